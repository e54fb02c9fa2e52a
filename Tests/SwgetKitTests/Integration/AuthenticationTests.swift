import Foundation
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// HTTP authentication through the request engine, against the in-process server scripting the
/// challenges: 401 → the challenge machine → the delegate or default handling → one retry per
/// protection space, Basic and every Digest algorithm checked by the server itself, stale nonces,
/// refusals and endless challenges bounded, origins respected across redirects, credentials sent
/// before the challenge once a space has accepted them. Every session is ephemeral: its stores
/// are its own.
@Suite("Authentication through the request engine")
struct AuthenticationTests {
    // MARK: Basic

    /// Where the credential comes from, and what the server must receive.
    struct BasicCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// `%@` stands for "127.0.0.1:PORT".
        let url: String
        let credential: Credential?
        let user: String
        let password: String
        var testDescription: String { name }
    }

    static let basicCases: [BasicCase] = [
        BasicCase(name: "the request's credential", url: "http://%@/f", credential: Credential(user: "alice", password: "secret", persistence: .forSession),
                  user: "alice", password: "secret"),
        BasicCase(name: "URL userinfo", url: "http://alice:secret@%@/f", credential: nil, user: "alice", password: "secret"),
        BasicCase(name: "percent-decoded userinfo", url: "http://al%40ice:p%3As%20s%25@%@/f", credential: nil,
                  user: "al@ice", password: "p:s s%"),
        BasicCase(name: "UTF-8 userinfo", url: "http://b%C3%B6b:p%C3%A4ss@%@/f", credential: nil, user: "böb", password: "päss"),
        BasicCase(name: "the request's credential wins over userinfo", url: "http://mallory:nope@%@/f",
                  credential: Credential(user: "alice", password: "secret", persistence: .forSession), user: "alice", password: "secret"),
    ]

    @Test(arguments: basicCases)
    func basicChallengeIsAnsweredOnce(_ c: BasicCase) async throws {
        try await withServer(basicProtected(user: c.user, password: c.password)) { server in
            var request = request(c.url.replacingOccurrences(of: "%@", with: "127.0.0.1:\(server.port)"))
            request.credential = c.credential
            let (data, response) = try await Session(configuration: isolatedConfiguration()).data(for: request)
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "ok /f")
            // Nothing before the challenge (wget's behaviour), then exactly one answer.
            #expect(headerValues("Authorization", server.requests) == [nil, basicAuthorization(c.user, c.password)])
        }
    }

    // MARK: Digest

    struct DigestCase: Sendable, CustomTestStringConvertible {
        let algorithm: DigestAlgorithm
        var qop: String? = "auth"
        var userhash = false
        var post = false
        var testDescription: String {
            "\(algorithm.rawValue) qop=\(qop ?? "none")\(userhash ? " userhash" : "")\(post ? " POST" : "")"
        }
    }

    static let digestCases: [DigestCase] = DigestAlgorithm.allCases.map { DigestCase(algorithm: $0) } + [
        DigestCase(algorithm: .md5, qop: nil),
        DigestCase(algorithm: .sha256, qop: "auth-int", post: true),
        DigestCase(algorithm: .sha512_256Session, qop: "auth-int", post: true),
        DigestCase(algorithm: .md5, qop: "auth, auth-int", post: true),
        DigestCase(algorithm: .sha256, userhash: true),
    ]

    @Test(arguments: digestCases)
    func digestEachAlgorithmIsAcceptedByTheServer(_ c: DigestCase) async throws {
        let digest = DigestServer(algorithm: c.algorithm, qop: c.qop, userhash: c.userhash)
        try await withServer({ digest.handle($0) }) { server in
            var request = request(server.baseURL + "/dir/file.txt?q=1&r=%20")
            request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
            if c.post {
                request.method = "POST"
                request.body = .data(Array("name=value&other=ü".utf8))
            }
            let (data, response) = try await Session(configuration: isolatedConfiguration()).data(for: request)
            #expect(response.statusCode == 200, "\(server.requests.map { $0.header("Authorization") ?? "-" })")
            #expect(String(decoding: data, as: UTF8.self) == "ok /dir/file.txt")
            #expect(server.requests.count == 2)
            #expect(digest.verify(server.requests[0]) == .refused("no Authorization"))
            if c.post { #expect(server.requests.allSatisfy { $0.body == Array("name=value&other=ü".utf8) }) }
        }
    }

    /// `stale=true` re-challenges with the credential just used, without counting a failure and
    /// without asking the delegate again; at most two stale retries per space.
    @Test(arguments: [(1, true), (2, true), (3, false)])
    func staleNonceIsRetriedWithoutCountingAFailure(staleNonces: Int, succeeds: Bool) async throws {
        let digest = DigestServer(algorithm: .sha256, staleNonces: staleNonces)
        let delegate = ChallengeDelegate { _, _ in .useCredential(Credential(user: "alice", password: "secret", persistence: .forSession)) }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer({ digest.handle($0) }) { server in
            let session = Session(configuration: isolatedConfiguration(), delegate: delegate)
            let task = session.downloadTask(with: request(server.baseURL + "/f.txt"), destination: .directory(dir))
            let error = await task.outcome()
            // One request without credentials, one per nonce after that.
            #expect(server.requests.count == staleNonces + 1 + (succeeds ? 1 : 0))
            #expect(delegate.challenges.count == 1, "a stale nonce does not go back to the delegate")
            #expect(delegate.challenges.first?.previousFailureCount == 0)
            if succeeds {
                #expect(error == nil)
                #expect(files(in: dir) == ["f.txt"])
            } else {
                #expect(error?.category == .authentication)
                #expect(error?.message.contains("credentials refused") == true, "\(error?.message ?? "")")
            }
        }
    }

    // MARK: Failures, bounded

    @Test func wrongPasswordFailsAfterExactlyOneRetry() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(basicProtected()) { server in
            let session = Session(configuration: isolatedConfiguration())
            var request = request(server.baseURL + "/f.txt")
            request.credential = Credential(user: "alice", password: "wrong", persistence: .forSession)
            let task = session.downloadTask(with: request, destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .authentication)
            #expect(error.message.contains("credentials refused"), "\(error.message)")
            #expect(error.response?.statusCode == 401)
            #expect(headerValues("Authorization", server.requests) == [nil, basicAuthorization("alice", "wrong")])
            // The refused credential is not remembered: a later task starts again from nothing.
            let again = session.downloadTask(with: request, destination: .directory(dir))
            _ = await again.outcome()
            #expect(headerValues("Authorization", server.requests).dropFirst(2).first == .some(nil))
        }
        #expect(files(in: dir).isEmpty)
    }

    /// A server that asks again and again, each time for a new realm (a new protection space that
    /// the credential could answer), ends after ``AuthenticationState/maximumChallenges``.
    @Test func aServerThatChallengesForeverIsBounded() async throws {
        let counter = Mutex(0)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer({ _ in
            let n = counter.withLock { $0 += 1; return $0 }
            return TestResponse.text("again", status: 401).withHeader("WWW-Authenticate", "Basic realm=\"realm \(n)\"")
        }) { server in
            var request = request(server.baseURL + "/f.txt")
            request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
            let task = Session(configuration: isolatedConfiguration()).downloadTask(with: request, destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .authentication)
            #expect(error.message.contains("too many authentication challenges"), "\(error.message)")
            #expect(server.requests.count == AuthenticationState.maximumChallenges + 1)
        }
    }

    /// No credential anywhere: the 401 ends the task as an authentication failure, after one request.
    @Test func aChallengeWithoutCredentialsFailsAtOnce() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(basicProtected()) { server in
            let task = Session(configuration: isolatedConfiguration())
                .downloadTask(with: request(server.baseURL + "/f.txt"), destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .authentication)
            #expect(error.message.hasPrefix("authentication required"), "\(error.message)")
            #expect(server.requests.count == 1)
        }
    }

    /// A 401 without any challenge the client could parse is still an authentication failure.
    @Test func a401WithoutAChallengeIsAnAuthenticationFailure() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer({ _ in .text("no", status: 401) }) { server in
            let task = Session(configuration: isolatedConfiguration())
                .downloadTask(with: request(server.baseURL + "/f.txt"), destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .authentication)
            #expect(error.message.hasPrefix("the server asks for authentication"), "\(error.message)")
        }
    }

    // MARK: Redirects and origins

    @Test func aChallengeOnARedirectTargetAtTheSameOrigin() async throws {
        let protected = basicProtected()
        try await withServer({ request in
            request.path == "/start" ? .redirect(302, to: "/protected/file") : protected(request)
        }) { server in
            var request = request(server.baseURL + "/start")
            request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
            let (data, response) = try await Session(configuration: isolatedConfiguration()).data(for: request)
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "ok /protected/file")
            #expect(server.requests.map(\.path) == ["/start", "/protected/file", "/protected/file"])
            #expect(headerValues("Authorization", server.requests) == [nil, nil, basicAuthorization("alice", "secret")])
        }
    }

    /// A redirect from 127.0.0.1 to localhost (another origin): the credential of the first
    /// origin — from the URL, accepted there and remembered — never reaches the second, which
    /// ends as "authentication required".
    @Test(arguments: [false, true])
    func credentialsDoNotFollowARedirectToAnotherOrigin(firstOriginChallenges: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(basicProtected()) { other in
            let target = "http://localhost:\(other.port)/file.txt"
            let redirect: @Sendable (TestRequest) -> TestResponse = { _ in .redirect(302, to: target) }
            try await withServer(firstOriginChallenges ? basicProtected(body: redirect) : redirect) { first in
                let url = "http://alice:secret@127.0.0.1:\(first.port)/start"
                let task = Session(configuration: isolatedConfiguration()).downloadTask(with: request(url), destination: .directory(dir))
                let error = try #require(await task.outcome())
                #expect(error.category == .authentication)
                #expect(error.message.hasPrefix("authentication required"), "\(error.message)")
                #expect(other.requests.count == 1)
                #expect(other.requests.allSatisfy { $0.header("Authorization") == nil })
                #expect(first.requests.count == (firstOriginChallenges ? 2 : 1))
            }
        }
    }

    /// A `.netrc` entry for the other host supplies that host's own credential; the first
    /// origin's never travels.
    @Test func netrcSuppliesTheOtherOriginsOwnCredential() async throws {
        try await withServer(basicProtected(user: "bob", password: "b0b pass")) { other in
            let target = "http://localhost:\(other.port)/file.txt"
            try await withServer(basicProtected(body: { _ in .redirect(302, to: target) })) { first in
                var configuration = isolatedConfiguration()
                configuration.netrc = try Netrc(parsing: "machine localhost login bob password \"b0b pass\"\n")
                let url = "http://alice:secret@127.0.0.1:\(first.port)/start"
                let (data, response) = try await Session(configuration: configuration).data(for: request(url))
                #expect(response.statusCode == 200)
                #expect(String(decoding: data, as: UTF8.self) == "ok /file.txt")
                #expect(headerValues("Authorization", first.requests) == [nil, basicAuthorization("alice", "secret")])
                #expect(headerValues("Authorization", other.requests) == [nil, basicAuthorization("bob", "b0b pass")])
            }
        }
    }

    // MARK: Sending before the challenge

    /// After a space accepted a credential, later requests of the same run send it at once
    /// (Basic as is; Digest with the same nonce and the next count), to that origin only.
    @Test(arguments: [nil, DigestAlgorithm.md5, .sha256Session])
    func acceptedCredentialsAreSentPreemptivelyWithinTheSession(digestAlgorithm: DigestAlgorithm?) async throws {
        let digest = digestAlgorithm.map { DigestServer(algorithm: $0) }
        let handler: @Sendable (TestRequest) -> TestResponse
        if let digest {
            handler = { digest.handle($0) }
        } else {
            handler = basicProtected()
        }
        try await withServer(handler) { server in
            try await withServer(handler) { other in
                let session = Session(configuration: isolatedConfiguration())
                for path in ["/a", "/b", "/c"] {
                    var request = request(server.baseURL + path)
                    request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
                    let (_, response) = try await session.data(for: request)
                    #expect(response.statusCode == 200)
                }
                // One challenge for /a, then /b and /c carry the credential from the start.
                #expect(server.requests.map(\.path) == ["/a", "/a", "/b", "/c"])
                let sent = headerValues("Authorization", server.requests)
                #expect(sent.first == .some(nil) && sent.dropFirst().allSatisfy { $0 != nil })
                if let digest {
                    #expect(digest.noncesIssued == 1, "one nonce serves all three requests")
                    let counts = server.requests.dropFirst().map { request -> String? in
                        guard let field = request.header("Authorization") else { return nil }
                        return AuthChallenge.parse(field: field).first?.parameter("nc")
                    }
                    #expect(counts == ["00000001", "00000002", "00000003"])
                }
                // Another origin (localhost, another port) gets nothing before it asks.
                let (_, response) = try await session.data(for: request("http://localhost:\(other.port)/x"))
                #expect(response.statusCode == 401)
                #expect(other.requests.allSatisfy { $0.header("Authorization") == nil })
            }
        }
    }

    /// wget's `--auth-no-challenge`: Basic with the first request to the request's own origin,
    /// and never to the origin a redirect leads to.
    @Test func credentialsBeforeAnyChallengeStayAtTheirOrigin() async throws {
        try await withServer({ _ in .text("elsewhere") }) { other in
            try await withServer(basicProtected(body: { request in
                request.path == "/go" ? .redirect(302, to: "http://localhost:\(other.port)/x") : .text("ok \(request.path)")
            })) { server in
                var configuration = isolatedConfiguration()
                configuration.sendsCredentialsPreemptively = true
                let session = Session(configuration: configuration)
                var first = request(server.baseURL + "/f")
                first.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
                let (_, response) = try await session.data(for: first)
                #expect(response.statusCode == 200)
                #expect(headerValues("Authorization", server.requests) == [basicAuthorization("alice", "secret")])

                var redirected = request(server.baseURL + "/go")
                redirected.credential = first.credential
                let (data, _) = try await session.data(for: redirected)
                #expect(String(decoding: data, as: UTF8.self) == "elsewhere")
                #expect(other.requests.count == 1 && other.requests[0].header("Authorization") == nil)

                // Without a credential (and a storage of its own) there is nothing to send.
                var fresh = isolatedConfiguration()
                fresh.sendsCredentialsPreemptively = true
                let (_, anonymous) = try await Session(configuration: fresh).data(for: request(server.baseURL + "/f"))
                #expect(anonymous.statusCode == 401)
                #expect(server.requests.last?.header("Authorization") == nil)
            }
        }
    }

    // MARK: The delegate

    @Test func delegateUseCredentialSeesTheWholeChallenge() async throws {
        let delegate = ChallengeDelegate { _, _ in .useCredential(Credential(user: "alice", password: "secret", persistence: .none)) }
        try await withServer(basicProtected(realm: "the realm")) { server in
            let session = Session(configuration: isolatedConfiguration(), delegate: delegate)
            let (_, response) = try await session.data(for: request(server.baseURL + "/f"))
            #expect(response.statusCode == 200)
            let challenge = try #require(delegate.challenges.first)
            #expect(delegate.challenges.count == 1)
            #expect(challenge.protectionSpace == ProtectionSpace(host: "127.0.0.1", port: server.port, scheme: "http", realm: "the realm",
                                                                 authenticationMethod: .httpBasic, isProxy: false))
            #expect(challenge.previousFailureCount == 0)
            #expect(challenge.proposedCredential == nil)
            #expect(challenge.failureResponse?.statusCode == 401)
            #expect(challenge.failureResponse?.headers["WWW-Authenticate"] == "Basic realm=\"the realm\", charset=\"UTF-8\"")
            #expect(challenge.serverChallenge.hasScheme("Basic"))
            // A `.none` credential is used once and not remembered: the next request asks again.
            _ = try await session.data(for: request(server.baseURL + "/g"))
            #expect(delegate.challenges.count == 2)
        }
    }

    /// A credential remembered in the storage is sent before the challenge; when the server
    /// refuses it (the password changed), the delegate sees one failure and the refused credential.
    @Test func delegateSeesTheRefusedStoredCredential() async throws {
        let old = Credential(user: "alice", password: "old", persistence: .forSession)
        let new = Credential(user: "alice", password: "secret", persistence: .forSession)
        let delegate = ChallengeDelegate { _, _ in .useCredential(new) }
        try await withServer(basicProtected()) { server in
            let configuration = isolatedConfiguration()
            let space = ProtectionSpace(host: "127.0.0.1", port: server.port, scheme: "http", realm: "files",
                                        authenticationMethod: .httpBasic, isProxy: false)
            configuration.credentialStorage.setDefaultCredential(old, for: space)
            let (_, response) = try await Session(configuration: configuration, delegate: delegate).data(for: request(server.baseURL + "/f"))
            #expect(response.statusCode == 200)
            #expect(headerValues("Authorization", server.requests) == [basicAuthorization("alice", "old"), basicAuthorization("alice", "secret")])
            let challenge = try #require(delegate.challenges.first)
            #expect(delegate.challenges.count == 1)
            #expect(challenge.previousFailureCount == 1)
            #expect(challenge.proposedCredential == old)
            #expect(challenge.protectionSpace == space)
            // The accepted credential replaces the refused one as the space's default.
            #expect(configuration.credentialStorage.defaultCredential(for: space) == new)
        }
    }

    /// Default handling after a refused stored credential takes the next candidate: the request's own.
    @Test func defaultHandlingSkipsTheRefusedCredential() async throws {
        let delegate = ChallengeDelegate { _, _ in .performDefaultHandling }
        try await withServer(basicProtected()) { server in
            let configuration = isolatedConfiguration()
            let space = ProtectionSpace(host: "127.0.0.1", port: server.port, scheme: "http", realm: "files",
                                        authenticationMethod: .httpBasic, isProxy: false)
            configuration.credentialStorage.setDefaultCredential(Credential(user: "alice", password: "old", persistence: .forSession), for: space)
            var request = request(server.baseURL + "/f")
            request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
            let (_, response) = try await Session(configuration: configuration, delegate: delegate).data(for: request)
            #expect(response.statusCode == 200)
            #expect(server.requests.count == 2)
            #expect(delegate.challenges.count == 1)
        }
    }

    @Test func delegateCancelEndsTheTask() async throws {
        let delegate = ChallengeDelegate { _, _ in .cancelAuthenticationChallenge }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(basicProtected()) { server in
            var request = request(server.baseURL + "/f")
            request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
            let task = Session(configuration: isolatedConfiguration(), delegate: delegate).downloadTask(with: request, destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .cancelled)
            #expect(server.requests.count == 1)
            #expect(delegate.challenges.count == 1)
        }
        #expect(files(in: dir).isEmpty)
    }

    /// The server offers Digest and Basic; the delegate rejects the stronger one and answers the
    /// other. With a single space, rejecting it leaves no credential: an authentication failure.
    @Test func delegateRejectsAProtectionSpace() async throws {
        let digest = DigestServer(algorithm: .sha256, realm: "d")
        let delegate = ChallengeDelegate { challenge, _ in
            challenge.protectionSpace.authenticationMethod == .httpDigest
                ? .rejectProtectionSpace
                : .useCredential(Credential(user: "alice", password: "secret", persistence: .forSession))
        }
        try await withServer({ request in
            if request.header("Authorization") == basicAuthorization("alice", "secret") { return .text("basic ok") }
            return TestResponse.text("who?", status: 401)
                .withHeader("WWW-Authenticate", digest.challenge())
                .withHeader("WWW-Authenticate", "Basic realm=\"b\"")
        }) { server in
            let (data, response) = try await Session(configuration: isolatedConfiguration(), delegate: delegate).data(for: request(server.baseURL + "/f"))
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "basic ok")
            #expect(delegate.challenges.map(\.protectionSpace.authenticationMethod) == [.httpDigest, .httpBasic])
            #expect(delegate.challenges.map(\.protectionSpace.realm) == ["d", "b"])
            #expect(server.requests.count == 2)
        }

        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rejecting = ChallengeDelegate { _, _ in .rejectProtectionSpace }
        try await withServer(basicProtected()) { server in
            var request = request(server.baseURL + "/f")
            request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
            let task = Session(configuration: isolatedConfiguration(), delegate: rejecting).downloadTask(with: request, destination: .directory(dir))
            let error = try #require(await task.outcome())
            #expect(error.category == .authentication)
            #expect(server.requests.count == 1)
        }
    }

    // MARK: Segments

    /// A split download behind Basic: every range request carries the credential the first
    /// answer accepted.
    @Test func segmentsOfASplitDownloadCarryTheAcceptedCredential() async throws {
        let source = bytes(1_000_000, seed: 3)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer(basicProtected(body: { request in
            TestResponse.serving(source, to: request, etag: "\"v1\"").trickled(bytesPerWrite: 50_000, every: .milliseconds(5))
        })) { server in
            var configuration = isolatedConfiguration()
            configuration.segmentsPerDownload = 4
            configuration.minimumSegmentBytes = 64 * 1024
            var request = request(server.baseURL + "/big.bin")
            request.credential = Credential(user: "alice", password: "secret", persistence: .forSession)
            let (path, _) = try await Session(configuration: configuration).download(request, to: .directory(dir))
            #expect(fingerprint(contents(path)) == fingerprint(source))
            let ranged = server.requests.filter { $0.header("Range") != nil }
            #expect(ranged.count >= 2, "\(server.requests.map { $0.header("Range") ?? "-" })")
            #expect(ranged.allSatisfy { $0.header("Authorization") == basicAuthorization("alice", "secret") })
        }
    }
}
