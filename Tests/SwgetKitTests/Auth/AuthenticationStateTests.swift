import Testing
@testable import SwgetKit

@Suite("Authentication flow (state machine)")
struct AuthenticationStateTests {
    enum Event: Sendable {
        case preemptive(PreemptiveAuthorization)
        /// A preemptive Digest credential (alice) for realm r with `nonce`, last count `count`.
        case preemptiveDigest(nonce: String, count: UInt32)
        case challenged(Int, [String], ChallengedRequest = AuthenticationStateTests.request)
        case decide(CredentialDecision)
        /// `succeeded()`, rendered: "realm:user, realm:user".
        case succeed
    }

    struct Step: Sendable {
        let event: Event
        let expected: String
        init(_ event: Event, _ expected: String) {
            self.event = event
            self.expected = expected
        }
    }

    struct Flow: CustomTestStringConvertible, Sendable {
        let name: String
        let steps: [Step]
        var testDescription: String { name }
        init(_ name: String, _ steps: [Step]) {
            self.name = name
            self.steps = steps
        }
    }

    static let request = ChallengedRequest(host: "h", port: 80, scheme: "http", method: "GET", uri: "/f")
    static let proxyRequest = ChallengedRequest(host: "proxy", port: 3128, scheme: "http", method: "GET", uri: "http://h/f")
    static let alice = Credential(user: "alice", password: "pa", persistence: .forSession)
    static let bob = Credential(user: "bob", password: "pb", persistence: .forSession)
    static let basicR = ProtectionSpace(host: "h", port: 80, scheme: "http", realm: "r", authenticationMethod: .httpBasic)
    static let anyBasic = ProtectionSpace(host: "h", port: 80, scheme: "http", realm: nil, authenticationMethod: .httpBasic)
    static let digestR = ProtectionSpace(host: "h", port: 80, scheme: "http", realm: "r", authenticationMethod: .httpDigest)
    static let aliceBasic = "retry Authorization: Basic YWxpY2U6cGE="
    static let bobBasic = "retry Authorization: Basic Ym9iOnBi"

    static func preemptiveDigest(nonce: String, count: UInt32) throws -> PreemptiveAuthorization {
        let challenge = AuthChallenge(scheme: "Digest", parameters: [.init(name: "realm", value: "r"), .init(name: "nonce", value: nonce),
                                                                     .init(name: "qop", value: "auth")])
        return PreemptiveAuthorization(space: digestR, credential: alice, value: "Digest …",
                                       digest: DigestNonceState(challenge: try DigestChallenge(challenge), cnonce: "old", nonceCount: count))
    }

    static let flows: [Flow] = [
        Flow("Basic: challenge, credential, success", [
            Step(.challenged(401, [#"Basic realm="r""#]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.use(alice)), aliceBasic),
            Step(.succeed, "r:alice"),
        ]),
        Flow("wrong password: one retry, then rejected", [
            Step(.challenged(401, [#"Basic realm="r""#]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.use(alice)), aliceBasic),
            Step(.challenged(401, [#"Basic realm="r""#]), "fail rejected http://h:80 realm \"r\""),
        ]),
        Flow("no credential available", [
            Step(.challenged(401, [#"Basic realm="r""#]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.noCredential), "fail credentialsRequired http://h:80 realm \"r\""),
        ]),
        Flow("preemptive credential refused counts once, then one retry", [
            Step(.preemptive(PreemptiveAuthorization(space: basicR, credential: alice, value: "Basic YWxpY2U6cGE=", digest: nil)), ""),
            Step(.challenged(401, [#"Basic realm="r""#]), "ask http://h:80 realm \"r\" basic failures=1 proposed=alice"),
            Step(.decide(.use(bob)), bobBasic),
            Step(.challenged(401, [#"Basic realm="r""#]), "fail rejected http://h:80 realm \"r\""),
        ]),
        Flow("--auth-no-challenge Basic covers any realm of the origin", [
            Step(.preemptive(PreemptiveAuthorization(space: anyBasic, credential: alice, value: "Basic YWxpY2U6cGE=", digest: nil)), ""),
            Step(.challenged(401, [#"Basic realm="r""#]), "ask http://h:80 realm \"r\" basic failures=1 proposed=alice"),
            Step(.decide(.use(alice)), aliceBasic),
            Step(.succeed, "r:alice"),
        ]),
        Flow("a preemptive credential accepted is returned", [
            Step(.preemptive(PreemptiveAuthorization(space: basicR, credential: alice, value: "Basic YWxpY2U6cGE=", digest: nil)), ""),
            Step(.succeed, "r:alice"),
            Step(.succeed, ""),
        ]),
        Flow("Digest, then stale nonces retried without counting, at most twice", [
            Step(.challenged(401, ["Digest realm=r, nonce=n1, qop=auth"]), "ask http://h:80 realm \"r\" digest failures=0 proposed=-"),
            Step(.decide(.use(alice)), "retry Authorization: Digest user=alice nonce=n1 nc=00000001 cnonce=fresh"),
            Step(.challenged(401, ["Digest realm=r, nonce=n2, qop=auth, stale=true"]), "retry Authorization: Digest user=alice nonce=n2 nc=00000001 cnonce=fresh"),
            Step(.challenged(401, ["Digest realm=r, nonce=n3, qop=auth, stale=TRUE"]), "retry Authorization: Digest user=alice nonce=n3 nc=00000001 cnonce=fresh"),
            Step(.challenged(401, ["Digest realm=r, nonce=n4, qop=auth, stale=true"]), "fail rejected http://h:80 realm \"r\""),
        ]),
        Flow("stale after a preemptive Digest", [
            Step(.preemptiveDigest(nonce: "n0", count: 7), ""),
            Step(.challenged(401, ["Digest realm=r, nonce=n1, qop=auth, stale=true"]), "retry Authorization: Digest user=alice nonce=n1 nc=00000001 cnonce=fresh"),
            Step(.succeed, "r:alice nonce=n1 nc=1"),
        ]),
        Flow("stale without a credential sent is an ordinary challenge", [
            Step(.challenged(401, ["Digest realm=r, nonce=n1, qop=auth, stale=true"]), "ask http://h:80 realm \"r\" digest failures=0 proposed=-"),
        ]),
        Flow("a refused preemptive Digest continues the nonce's count", [
            Step(.preemptiveDigest(nonce: "n0", count: 5), ""),
            Step(.challenged(401, ["Digest realm=r, nonce=n0, qop=auth"]), "ask http://h:80 realm \"r\" digest failures=1 proposed=alice"),
            Step(.decide(.use(bob)), "retry Authorization: Digest user=bob nonce=n0 nc=00000006 cnonce=old"),
            Step(.succeed, "r:bob nonce=n0 nc=6"),
        ]),
        Flow("Digest over Basic; rejecting a space offers the next", [
            Step(.challenged(401, [#"Basic realm="r""#, "Digest realm=r, nonce=a, qop=auth", "Digest realm=r, nonce=b, algorithm=SHA-256, qop=auth"]),
                 "ask http://h:80 realm \"r\" digest failures=0 proposed=-"),
            Step(.decide(.rejectProtectionSpace), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.rejectProtectionSpace), "fail credentialsRequired http://h:80 realm \"r\""),
        ]),
        Flow("the strongest Digest is answered", [
            Step(.challenged(401, ["Digest realm=r, nonce=a, qop=auth", "Digest realm=r, nonce=b, algorithm=SHA-512-256, qop=auth"]),
                 "ask http://h:80 realm \"r\" digest failures=0 proposed=-"),
            Step(.decide(.use(alice)), "retry Authorization: Digest user=alice nonce=b nc=00000001 cnonce=fresh"),
        ]),
        Flow("proxy then server, both remembered", [
            Step(.challenged(407, [#"Basic realm="p""#], proxyRequest), "ask proxy http://proxy:3128 realm \"p\" basic failures=0 proposed=-"),
            Step(.decide(.use(bob)), "retry Proxy-Authorization: Basic Ym9iOnBi"),
            Step(.challenged(401, [#"Basic realm="r""#]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.use(alice)), aliceBasic),
            Step(.succeed, "r:alice, p:bob"),
        ]),
        Flow("wrong proxy password", [
            Step(.challenged(407, [#"Basic realm="p""#], proxyRequest), "ask proxy http://proxy:3128 realm \"p\" basic failures=0 proposed=-"),
            Step(.decide(.use(bob)), "retry Proxy-Authorization: Basic Ym9iOnBi"),
            Step(.challenged(407, [#"Basic realm="p""#], proxyRequest), "fail rejected proxy http://proxy:3128 realm \"p\""),
        ]),
        Flow("a server that changes realm forever", (1...8).flatMap { i in [
            Step(.challenged(401, ["Basic realm=r\(i)"]), "ask http://h:80 realm \"r\(i)\" basic failures=0 proposed=-"),
            Step(.decide(.use(alice)), aliceBasic),
        ] } + [Step(.challenged(401, ["Basic realm=r9"]), "fail tooManyChallenges")]),
        Flow("unsupported schemes", [Step(.challenged(401, ["Negotiate", "NTLM", "negotiate abc"]), "fail noSupportedChallenge Negotiate,NTLM")]),
        Flow("no challenge at all", [Step(.challenged(401, []), "fail noSupportedChallenge ")]),
        Flow("Digest with an unknown algorithm", [Step(.challenged(401, ["Digest realm=r, nonce=n, algorithm=SHA-1"]), "fail digest unsupported Digest algorithm SHA-1")]),
        Flow("auth-int only, body unknown", [
            Step(.challenged(401, ["Digest realm=r, nonce=n, qop=auth-int"],
                             ChallengedRequest(host: "h", port: 80, scheme: "http", method: "PUT", uri: "/f", body: .unavailable)),
                 "fail digest the server asks for Digest auth-int, which needs the request body's digest"),
        ]),
        Flow("auth-int with a known body", [
            Step(.challenged(401, ["Digest realm=r, nonce=n, qop=auth-int"],
                             ChallengedRequest(host: "h", port: 80, scheme: "http", method: "PUT", uri: "/f", body: .bytes([1, 2]))),
                 "ask http://h:80 realm \"r\" digest failures=0 proposed=-"),
            Step(.decide(.use(alice)), "retry Authorization: Digest user=alice nonce=n nc=00000001 cnonce=fresh"),
        ]),
        Flow("a user name Basic cannot carry", [
            Step(.challenged(401, ["Basic realm=r"]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.use(Credential(user: "a:b", password: "p", persistence: .forSession))), "fail basic colonInUserName"),
        ]),
        Flow("events out of order", [
            Step(.decide(.use(alice)), "fail unexpectedEvent"),
            Step(.challenged(200, ["Basic realm=r"]), "fail unexpectedEvent"),
            Step(.challenged(401, ["Basic realm=r"]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.challenged(401, ["Basic realm=r"]), "fail unexpectedEvent"),
        ]),
        Flow("after a success, a new challenge for the space is answered from scratch", [
            Step(.challenged(401, ["Basic realm=r"]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.use(alice)), aliceBasic),
            Step(.succeed, "r:alice"),
            Step(.challenged(401, ["Basic realm=r"]), "ask http://h:80 realm \"r\" basic failures=0 proposed=-"),
            Step(.decide(.use(alice)), aliceBasic),
            Step(.challenged(401, ["Basic realm=r"]), "fail rejected http://h:80 realm \"r\""),
        ]),
    ]

    @Test(arguments: flows)
    func flow(_ flow: Flow) throws {
        var machine = AuthenticationState(cnonce: { "fresh" })
        for (index, step) in flow.steps.enumerated() {
            let actual: String
            switch step.event {
            case .preemptive(let authorization):
                machine.sentPreemptively(authorization)
                actual = ""
            case .preemptiveDigest(let nonce, let count):
                machine.sentPreemptively(try Self.preemptiveDigest(nonce: nonce, count: count))
                actual = ""
            case .challenged(let status, let fields, let request):
                actual = Self.render(machine.challenged(status: status, challenges: AuthChallenge.parse(fields: fields), request: request))
            case .decide(let decision):
                actual = Self.render(machine.credentialDecided(decision))
            case .succeed:
                actual = machine.succeeded().map { accepted in
                    var text = "\(accepted.space.realm ?? "-"):\(accepted.credential.user ?? "-")"
                    if let digest = accepted.digest { text += " nonce=\(digest.challenge.nonce) nc=\(digest.nonceCount)" }
                    return text
                }.joined(separator: ", ")
            }
            #expect(actual == step.expected, "step \(index + 1)")
        }
    }

    static func render(_ action: AuthenticationState.Action) -> String {
        switch action {
        case .retry(let field, let value):
            guard value.hasPrefix("Digest "), let parsed = AuthChallenge.parse(field: value).first else { return "retry \(field): \(value)" }
            let p = { (name: String) in parsed.parameter(name) ?? "-" }
            return "retry \(field): Digest user=\(p("username")) nonce=\(p("nonce")) nc=\(p("nc")) cnonce=\(p("cnonce"))"
        case .askForCredential(let challenge):
            let method = challenge.protectionSpace.authenticationMethod == .httpDigest ? "digest" : "basic"
            return "ask \(challenge.protectionSpace) \(method) failures=\(challenge.previousFailureCount) proposed=\(challenge.proposedCredential?.user ?? "-")"
        case .fail(let failure):
            return switch failure {
            case .rejected(let space): "fail rejected \(space)"
            case .credentialsRequired(let space): "fail credentialsRequired \(space)"
            case .tooManyChallenges: "fail tooManyChallenges"
            case .noSupportedChallenge(let schemes): "fail noSupportedChallenge \(schemes.joined(separator: ","))"
            case .digest(let error): "fail digest \(error)"
            case .basic(let error): "fail basic \(error == .colonInUserName ? "colonInUserName" : "\(error)")"
            case .unexpectedEvent: "fail unexpectedEvent"
            }
        }
    }

    @Test func challengeCarriesTheServerChallengeAndAnEmptyResponse() throws {
        var machine = AuthenticationState(cnonce: { "c" })
        guard case .askForCredential(let challenge) = machine.challenged(status: 401, challenges: AuthChallenge.parse(field: #"Basic realm="r", charset="UTF-8""#),
                                                                         request: Self.request) else {
            Issue.record("expected a question")
            return
        }
        #expect(machine.isAwaitingCredential)
        #expect(challenge.serverChallenge.parameter("charset") == "UTF-8" && challenge.failureResponse == nil)
        #expect(challenge.protectionSpace == Self.basicR)
        _ = machine.credentialDecided(.noCredential)
        #expect(!machine.isAwaitingCredential)
    }

    @Test func failuresDescribeThemselves() {
        for failure in [AuthenticationFailure.tooManyChallenges, .rejected(Self.basicR), .credentialsRequired(Self.basicR),
                        .noSupportedChallenge(schemes: []), .noSupportedChallenge(schemes: ["NTLM"]), .basic(.tooLong),
                        .digest(.nonceCountExhausted), .unexpectedEvent("x")] {
            #expect(!failure.description.isEmpty && !failure.description.contains("\n"))
        }
    }

    @Test func preemptiveBasicForAuthNoChallenge() throws {
        let sent = try PreemptiveAuthorization.basic(Self.alice, for: Self.anyBasic)
        #expect(sent.value == "Basic YWxpY2U6cGE=" && sent.field == "Authorization")
        #expect(throws: BasicAuthenticationError.colonInUserName) {
            try PreemptiveAuthorization.basic(Credential(user: "a:b", password: "", persistence: .none), for: Self.anyBasic)
        }
    }
}
