import Foundation
import Synchronization
import SwgetKit
import SwgetTestSupport

/// Helpers shared by the authentication, cookie and HSTS integration tests: a Digest server that
/// checks answers with its own assembly of RFC 7616 §3.4, a delegate that records and answers
/// authentication challenges, and configurations whose stores no other test sees.

/// An ephemeral configuration: its own cookie, credential and HSTS stores, so that tests running
/// side by side (all against 127.0.0.1 or localhost) never see each other's state.
func isolatedConfiguration() -> SessionConfiguration {
    var configuration = SessionConfiguration.ephemeral
    configuration.idleReadTimeout = .seconds(20)
    return configuration
}

/// `Basic base64(user:password)` (RFC 7617), UTF-8.
func basicAuthorization(_ user: String, _ password: String) -> String {
    "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
}

/// A handler that serves `body` to requests carrying Basic for `user`/`password` and answers
/// everything else with a 401 challenge for `realm`.
func basicProtected(user: String = "alice", password: String = "secret", realm: String = "files",
                    body: @escaping @Sendable (TestRequest) -> TestResponse = { .text("ok \($0.path)") })
    -> @Sendable (TestRequest) -> TestResponse {
    let expected = basicAuthorization(user, password)
    return { request in
        guard request.header("Authorization") == expected else {
            return TestResponse.text("who are you?", status: 401)
                .withHeader("WWW-Authenticate", "Basic realm=\"\(realm)\", charset=\"UTF-8\"")
        }
        return body(request)
    }
}

/// The values of every header `name` a server received, in order (nil for a request without one).
func headerValues(_ name: String, _ requests: [TestRequest]) -> [String?] {
    requests.map { $0.header(name) }
}

/// A Digest server (RFC 7616) for one protection space: it issues nonces, and checks each
/// answer by computing the expected `response` itself (A1, A2 and the final hash are assembled
/// here from the RFC's text, independently of SwgetKit's client code; only the hash functions
/// are shared). It refuses a nonce it never issued, a replayed or decreasing `nc`, a wrong `uri`,
/// `realm`, `algorithm` or `opaque`.
final class DigestServer: Sendable {
    /// What the server made of one request's `Authorization` field.
    enum Verdict: Equatable {
        case accepted(user: String)
        /// A correct answer with a nonce the server declares stale.
        case stale
        case refused(String)
    }

    let algorithm: DigestAlgorithm
    let realm: String
    let qop: String?
    let userhash: Bool
    let users: [String: String]
    let opaque = "0paque/\"quoted\""

    private struct State {
        var issued = 0
        /// The last `nc` seen for each nonce issued (0: none yet).
        var counts: [String: UInt32] = [:]
        /// How many nonces are still to be declared stale at their first correct use.
        var staleBudget: Int
        var stale: Set<String> = []
    }
    private let state: Mutex<State>

    /// `qop` is the challenge's list ("auth", "auth-int", "auth, auth-int"), nil for RFC 2069.
    /// The first `staleNonces` nonces are declared stale when first answered correctly.
    init(algorithm: DigestAlgorithm, realm: String = "digest realm", qop: String? = "auth", userhash: Bool = false,
         users: [String: String] = ["alice": "secret"], staleNonces: Int = 0) {
        self.algorithm = algorithm
        self.realm = realm
        self.qop = qop
        self.userhash = userhash
        self.users = users
        self.state = Mutex(State(staleBudget: staleNonces))
    }

    /// A fresh challenge field value.
    func challenge(stale: Bool = false) -> String {
        let nonce = state.withLock { state -> String in
            state.issued += 1
            let nonce = "nonce-\(state.issued)-\(UInt32.random(in: 0...UInt32.max))"
            state.counts[nonce] = 0
            return nonce
        }
        var fields = ["realm=\"\(realm)\"", "nonce=\"\(nonce)\"", "algorithm=\(algorithm.rawValue)",
                      "opaque=\"\(opaque.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\""]
        if let qop { fields.append("qop=\"\(qop)\"") }
        if stale { fields.append("stale=true") }
        if userhash { fields.append("userhash=true") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// Nonces issued so far.
    var noncesIssued: Int { state.withLock { $0.issued } }

    /// Serves `body` to an accepted request; answers anything else with a 401 and a new challenge
    /// (with `stale=true` for a stale nonce).
    func handle(_ request: TestRequest, body: (TestRequest) -> TestResponse = { .text("ok \($0.path)") }) -> TestResponse {
        switch verify(request) {
        case .accepted:
            return body(request)
        case .stale:
            return TestResponse.text("stale", status: 401).withHeader("WWW-Authenticate", challenge(stale: true))
        case .refused:
            return TestResponse.text("no", status: 401).withHeader("WWW-Authenticate", challenge())
        }
    }

    /// Checks `request`'s `Authorization` field.
    func verify(_ request: TestRequest) -> Verdict {
        guard let field = request.header("Authorization") else { return .refused("no Authorization") }
        guard let answer = AuthChallenge.parse(field: field).first, answer.hasScheme("Digest") else {
            return .refused("not Digest: \(field)")
        }
        func param(_ name: String) -> String? { answer.parameter(name) }
        guard let nonce = param("nonce"), let response = param("response"), let uri = param("uri") else {
            return .refused("missing nonce, response or uri")
        }
        guard param("realm") == realm else { return .refused("realm \(param("realm") ?? "-")") }
        guard uri == request.uri else { return .refused("uri \(uri) for \(request.uri)") }
        guard param("algorithm").map({ DigestAlgorithm(name: $0) == algorithm }) ?? (algorithm == .md5) else {
            return .refused("algorithm \(param("algorithm") ?? "-")")
        }
        guard param("opaque") == opaque else { return .refused("opaque \(param("opaque") ?? "-")") }
        let hash = algorithm.hash
        // The user: plain, RFC 8187 `username*`, or hashed (userhash).
        let user: String? = if userhash {
            param("userhash") == "true" ? users.keys.first { hash.hex("\($0):\(realm)") == param("username") } : nil
        } else if let plain = param("username") {
            plain
        } else if let extended = param("username*"), extended.hasPrefix("UTF-8''") {
            extended.dropFirst(7).removingPercentEncoding
        } else {
            nil
        }
        guard let user, let password = users[user] else { return .refused("unknown user") }

        let cnonce = param("cnonce") ?? ""
        var ha1 = hash.hex("\(user):\(realm):\(password)")
        if algorithm.isSession { ha1 = hash.hex("\(ha1):\(nonce):\(cnonce)") }
        let chosenQOP = param("qop")
        var a2 = "\(request.method):\(uri)"
        if chosenQOP == "auth-int" { a2 += ":" + hash.hex(request.body) }
        let expected: String
        var count: UInt32 = 0
        if let chosenQOP {
            guard let offered = qop, offered.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == chosenQOP }) else {
                return .refused("qop \(chosenQOP) not offered")
            }
            guard let nc = param("nc"), nc.count == 8, let parsed = UInt32(nc, radix: 16), !cnonce.isEmpty else {
                return .refused("bad nc or cnonce")
            }
            count = parsed
            expected = hash.hex("\(ha1):\(nonce):\(nc):\(cnonce):\(chosenQOP):\(hash.hex(a2))")
        } else {
            guard qop == nil else { return .refused("qop missing") }
            expected = hash.hex("\(ha1):\(nonce):\(hash.hex(a2))")
        }
        guard response == expected else { return .refused("wrong response") }
        return state.withLock { state -> Verdict in
            guard let last = state.counts[nonce] else { return .refused("unknown nonce") }
            if qop != nil {
                guard count > last else { return .refused("nc \(count) replayed after \(last)") }
                state.counts[nonce] = count
            }
            if state.stale.contains(nonce) { return .stale }
            if state.staleBudget > 0 {
                state.staleBudget -= 1
                state.stale.insert(nonce)
                return .stale
            }
            return .accepted(user: user)
        }
    }
}

/// A delegate that records each authentication challenge and answers with `answer(challenge,
/// index)` (index 0 for the first challenge of the session).
final class ChallengeDelegate: SessionDelegate {
    private let answer: @Sendable (AuthenticationChallenge, Int) -> AuthChallengeDisposition
    private let recorded = Mutex<[AuthenticationChallenge]>([])

    init(_ answer: @escaping @Sendable (AuthenticationChallenge, Int) -> AuthChallengeDisposition) {
        self.answer = answer
    }

    var challenges: [AuthenticationChallenge] { recorded.withLock { $0 } }

    func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge) async -> AuthChallengeDisposition {
        let index = recorded.withLock { list in
            list.append(challenge)
            return list.count - 1
        }
        return answer(challenge, index)
    }
}

/// A test CA written to a temporary directory, with a server identity for localhost,
/// sub.localhost, 127.0.0.1 and ::1: the pieces an https test server and a client trusting it need.
struct LocalPKI {
    let certificates: TestCertificates
    let identity: TestCertificates.ServerIdentity
    let directory: String
    let caPath: String

    init() throws {
        certificates = try TestCertificates.make()
        identity = try certificates.serverIdentity(dnsNames: ["localhost", "sub.localhost"])
        directory = try makeTemporaryDirectory(prefix: "swget-pki")
        caPath = try certificates.writeCA(to: directory)
    }

    /// `configuration` trusting this CA only (full verification).
    func trusting(_ configuration: SessionConfiguration) -> SessionConfiguration {
        var configuration = configuration
        configuration.tls.useSystemTrustRoots = false
        configuration.tls.additionalTrustRootFiles = [caPath]
        return configuration
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
