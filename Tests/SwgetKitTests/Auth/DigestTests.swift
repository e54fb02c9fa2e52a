import Foundation
import Crypto
import Testing
@testable import SwgetKit

@Suite("Digest authentication (RFC 7616)")
struct DigestTests {
    /// RFC 7616 §3.9.1's two challenges (one field each; obs-fold already replaced by spaces).
    static let rfcChallengeFields = [
        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
    ]
    static let rfcCnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    /// The RFC's `Authorization` field as printed (folded over lines), folded back into one line.
    static func unfold(_ printed: String) -> String {
        printed.split(separator: "\n").map { $0.trimmingOWS }.joined(separator: " ")
    }

    static func digest(_ field: String) throws -> DigestChallenge {
        let challenge = try #require(AuthChallenge.parse(field: field).first)
        return try DigestChallenge(challenge)
    }

    @Test func rfc7616Section391BothResponsesByteForByte() throws {
        let ranked = SupportedChallenge.ranked(AuthChallenge.parse(fields: Self.rfcChallengeFields), body: .empty)
        #expect(ranked.count == 2)
        guard case .digest(let sha256, _) = ranked[0], case .digest(let md5, _) = ranked[1] else {
            Issue.record("expected two Digest challenges")
            return
        }
        #expect(sha256.algorithm == .sha256 && md5.algorithm == .md5, "SHA-256 is preferred to MD5")

        let md5Expected = Self.unfold(#"""
            Digest username="Mufasa",
                realm="http-auth@example.org",
                uri="/dir/index.html",
                algorithm=MD5,
                nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
                nc=00000001,
                cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
                qop=auth,
                response="8ca523f5e9506fed4657c9700eebdbec",
                opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
            """#)
        let sha256Expected = Self.unfold(#"""
            Digest username="Mufasa",
                realm="http-auth@example.org",
                uri="/dir/index.html",
                algorithm=SHA-256,
                nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
                nc=00000001,
                cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
                qop=auth,
                response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
                opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
            """#)
        for (challenge, expected) in [(md5, md5Expected), (sha256, sha256Expected)] {
            let value = try DigestAuthentication.authorization(challenge: challenge, user: "Mufasa", password: "Circle of Life", method: "GET",
                                                               uri: "/dir/index.html", nonceCount: 1, cnonce: Self.rfcCnonce, body: .empty)
            #expect(value == expected)
        }
    }

    static let rfc392Field = #"Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", charset=UTF-8, userhash=true"#
    static let rfc392Cnonce = "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v"

    /// RFC 7616 §3.9.2 (SHA-512-256, userhash). The RFC prints a userhash and response computed
    /// with SHA-512 truncated to 256 bits (a known erratum); SHA-512/256 proper (FIPS 180-4
    /// §5.3.6, what servers implement and Python's hashlib computes) gives the values below.
    @Test func rfc7616Section392UserhashWithRealSHA512_256() throws {
        let challenge = try Self.digest(Self.rfc392Field)
        #expect(challenge.userhash && challenge.charsetUTF8 && challenge.algorithm == .sha512_256)
        let value = try DigestAuthentication.authorization(challenge: challenge, user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?",
                                                           method: "GET", uri: "/doe.json", nonceCount: 1, cnonce: Self.rfc392Cnonce, body: .empty)
        let expected = Self.unfold(#"""
            Digest username="793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b",
                realm="api@example.org",
                uri="/doe.json",
                algorithm=SHA-512-256,
                nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK",
                nc=00000001,
                cnonce="NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v",
                qop=auth,
                response="3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5",
                opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS",
                userhash=true
            """#)
        #expect(value == expected)
    }

    @Test func rfc7616Section392PrintedValuesAreTruncatedSHA512() {
        // Documents the erratum: the printed userhash is SHA-512 cut to 32 bytes, not SHA-512/256.
        let truncated = DigestHash.hexString(SHA512.hash(data: Array("J\u{E4}s\u{F8}n Doe:api@example.org".utf8)).prefix(32))
        #expect(truncated == "488869477bf257147b804c45308cd62ac4e25eb717b12b298c79e62dcea254ec")
        #expect(DigestHash.sha512_256.hex("J\u{E4}s\u{F8}n Doe:api@example.org") != truncated)
    }

    @Test func rfc7616Section392WithoutUserhashUsesUsernameStar() throws {
        let challenge = try Self.digest(Self.rfc392Field.replacingOccurrences(of: "userhash=true", with: "userhash=false"))
        let value = try DigestAuthentication.authorization(challenge: challenge, user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?",
                                                           method: "GET", uri: "/doe.json", nonceCount: 1, cnonce: Self.rfc392Cnonce, body: .empty)
        #expect(value.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm=\"api@example.org\""))
        #expect(value.contains(#"response="3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5""#))
        #expect(!value.contains("userhash"))
    }

    @Test(arguments: [
        (DigestHash.md5, "abc", "900150983cd24fb0d6963f7d28e17f72"),
        (.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        // FIPS 180-4 / NIST example for SHA-512/256: its own IV, unlike a truncated SHA-512.
        (.sha512_256, "abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
        (.md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
    ])
    func hashVectors(_ hash: DigestHash, _ input: String, _ expected: String) {
        #expect(hash.hex(input) == expected)
        var hasher = DigestHash.Hasher(hash)
        let bytes = Array(input.utf8)
        for piece in [bytes.prefix(1), bytes.dropFirst().prefix(0), bytes.dropFirst()] {
            Array(piece).withUnsafeBytes { hasher.update($0) }
        }
        #expect(hasher.finalize() == expected, "streamed in pieces")
    }

    /// Every algorithm with `auth` and `auth-int` (expected values from Python's hashlib), on the
    /// nonce's second use.
    @Test(arguments: [
        ("MD5", "auth", "ffbca35502ae99103e7bf6ca307b150d"),
        ("MD5", "auth-int", "77a20acf86051cc54323be3b146ccf38"),
        ("MD5-sess", "auth", "439eb500f2856efd8bca9d523803e649"),
        ("MD5-sess", "auth-int", "029e91ff902a1dffd7b3aeb4fb5d2787"),
        ("SHA-256", "auth", "8acd51e054cc634faf8d811881a8435be267aba8a6b380f6d5441fb224532fe5"),
        ("SHA-256", "auth-int", "aebb8fb33b41d36a5904d174fde6d4b1c9f1d0ee777d0d921220dfa6f36d46d2"),
        ("sha-256-SESS", "auth", "0f3e4a9d39db3121b7410a4482b6c2fdc37c35a861439d27382d46b0cb49bda3"),
        ("SHA-256-sess", "auth-int", "7b00239aa06be160d580059231a446e685e811a0714499b5fe8bda952b751e2f"),
        ("SHA-512-256", "auth", "2b27c472bd193a20f3fb19e4bf9618dc21f603201ec52917678cbe69be1dda2b"),
        ("SHA-512-256", "auth-int", "a240576d8e333621071ce0c0dac9a3de5dd2189ed19ac68222334cffff625a4a"),
        ("SHA-512-256-sess", "auth", "665e5baf08b3ceb46ebbac7a77c138a9d2db08972c9d910e024734a8624bfe10"),
        ("SHA-512-256-sess", "auth-int", "f8057231d4f0244162e11a79007948b75c1ef713256f2ec9904090a72936e531"),
    ])
    func everyAlgorithm(_ algorithm: String, _ qop: String, _ response: String) throws {
        let challenge = try Self.digest(#"Digest realm="swget@test", nonce="NONCE-abc123", qop="\#(qop)", algorithm=\#(algorithm)"#)
        let body = Array("hello body".utf8)
        let hash = challenge.algorithm.hash
        for entity in [DigestEntityBody.bytes(body), .precomputed([hash: hash.hex(body)])] {
            let value = try DigestAuthentication.authorization(challenge: challenge, user: "alice", password: "s3cret pass", method: "PUT",
                                                               uri: "/upload?x=1", nonceCount: 2,
                                                               cnonce: "0123456789abcdef0123456789abcdef", body: entity)
            #expect(value.contains(#"response="\#(response)""#), "\(value)")
            #expect(value.contains("nc=00000002, cnonce=\"0123456789abcdef0123456789abcdef\", qop=\(qop), "))
            #expect(value.contains("algorithm=\(challenge.algorithm.rawValue),"))
        }
    }

    @Test func rfc2617ExampleAndRFC2069FormWithoutQop() throws {
        let withQop = try Self.digest(#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#)
        let value = try DigestAuthentication.authorization(challenge: withQop, user: "Mufasa", password: "Circle Of Life", method: "GET",
                                                           uri: "/dir/index.html", nonceCount: 1, cnonce: "0a4f113b", body: .unavailable)
        #expect(value.contains(#"response="6629fae49393a05397450978507c4ef1""#))
        let legacy = try Self.digest(#"Digest realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093""#)
        let old = try DigestAuthentication.authorization(challenge: legacy, user: "Mufasa", password: "Circle Of Life", method: "GET",
                                                         uri: "/dir/index.html", nonceCount: 1, cnonce: "unused", body: .empty)
        #expect(old == #"Digest username="Mufasa", realm="testrealm@host.com", uri="/dir/index.html", algorithm=MD5, nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", response="670fd8c2df070c60b045671b8b24ff02""#)
    }

    @Test func authIsPreferredAndAuthIntAloneNeedsTheBody() throws {
        #expect(DigestAuthentication.chooseQOP(try Self.digest("Digest realm=r, nonce=n, qop=\"auth-int, auth\"")) == .auth)
        let intOnly = try Self.digest("Digest realm=r, nonce=n, qop=auth-int")
        #expect(DigestAuthentication.chooseQOP(intOnly) == .authInt)
        #expect(throws: DigestAuthenticationError.bodyDigestUnavailable) {
            try DigestAuthentication.authorization(challenge: intOnly, user: "u", password: "p", method: "POST", uri: "/",
                                                   nonceCount: 1, cnonce: "c", body: .unavailable)
        }
        #expect(throws: DigestAuthenticationError.bodyDigestUnavailable) {
            try DigestAuthentication.authorization(challenge: intOnly, user: "u", password: "p", method: "POST", uri: "/",
                                                   nonceCount: 1, cnonce: "c", body: .precomputed([.sha256: "x"]))
        }
        let empty = try DigestAuthentication.authorization(challenge: intOnly, user: "u", password: "p", method: "GET", uri: "/",
                                                           nonceCount: 1, cnonce: "c", body: .empty)
        let bytes = try DigestAuthentication.authorization(challenge: intOnly, user: "u", password: "p", method: "GET", uri: "/",
                                                           nonceCount: 1, cnonce: "c", body: .bytes([]))
        #expect(empty == bytes && empty.contains("qop=auth-int"))
    }

    struct BadChallenge: CustomTestStringConvertible, Sendable {
        let field: String
        let error: DigestAuthenticationError
        var testDescription: String { field }
    }

    @Test(arguments: [
        BadChallenge(field: "Basic realm=r", error: .notDigest),
        BadChallenge(field: "Digest abc==", error: .notDigest),
        BadChallenge(field: "Digest nonce=n", error: .missingParameter("realm")),
        BadChallenge(field: "Digest realm=r", error: .missingParameter("nonce")),
        BadChallenge(field: "Digest realm=r, nonce=n, nonce=m", error: .duplicateParameter("nonce")),
        BadChallenge(field: "Digest realm=r, nonce=n, ALGORITHM=MD5, algorithm=SHA-256", error: .duplicateParameter("algorithm")),
        BadChallenge(field: "Digest realm=r, nonce=n, algorithm=SHA-1", error: .unsupportedAlgorithm("SHA-1")),
        BadChallenge(field: "Digest realm=r, nonce=n, qop=auth-conf", error: .unsupportedQOP("auth-conf")),
        BadChallenge(field: "Digest realm=r, nonce=\"\(String(repeating: "n", count: 2049))\"", error: .parameterTooLong("nonce")),
    ])
    func badChallenges(_ c: BadChallenge) throws {
        let challenge = try #require(AuthChallenge.parse(field: c.field).first)
        #expect(throws: c.error) { try DigestChallenge(challenge) }
    }

    @Test func controlCharactersInEchoedValuesAreRefused() {
        let challenge = AuthChallenge(scheme: "Digest", parameters: [.init(name: "realm", value: "r"), .init(name: "nonce", value: "a\r\nX-Evil: 1")])
        #expect(throws: DigestAuthenticationError.controlCharacter("nonce")) { try DigestChallenge(challenge) }
    }

    @Test func sessionAlgorithmWithoutQopCannotBeAnswered() throws {
        let challenge = try Self.digest("Digest realm=r, nonce=n, algorithm=MD5-sess")
        #expect(throws: DigestAuthenticationError.self) {
            try DigestAuthentication.authorization(challenge: challenge, user: "u", password: "p", method: "GET", uri: "/",
                                                   nonceCount: 1, cnonce: "c", body: .empty)
        }
    }

    @Test func parametersAreReadLeniently() throws {
        let challenge = try Self.digest(#"DIGEST Realm="r", Nonce="n", Algorithm=sha-256, QOP=" AUTH ,bogus", Stale=TRUE, UserHash=True, Charset=utf-8, Domain="/a /b", extra=1"#)
        #expect(challenge.algorithm == .sha256 && challenge.qopOptions == [.auth] && challenge.stale && challenge.userhash)
        #expect(challenge.charsetUTF8 && challenge.domain == "/a /b" && challenge.opaque == nil)
        let plain = try Self.digest("Digest realm=r, nonce=n, stale=false, userhash=no")
        #expect(plain.algorithm == .md5 && plain.qopOptions.isEmpty && !plain.stale && !plain.userhash)
    }

    @Test func userNamesAreQuotedOrEncoded() throws {
        let challenge = try Self.digest("Digest realm=r, nonce=n, qop=auth")
        let quoted = try DigestAuthentication.authorization(challenge: challenge, user: #"a"b\c"#, password: "p", method: "GET", uri: "/",
                                                            nonceCount: 1, cnonce: "c", body: .empty)
        #expect(quoted.hasPrefix(#"Digest username="a\"b\\c", "#))
        let control = try DigestAuthentication.authorization(challenge: challenge, user: "a\r\nb", password: "p", method: "GET", uri: "/",
                                                             nonceCount: 1, cnonce: "c", body: .empty)
        #expect(control.hasPrefix("Digest username*=UTF-8''a%0D%0Ab, "))
        #expect(!control.contains("\r") && !control.contains("\n"))
    }

    @Test func nonceStateCountsAndStopsAtTheMaximum() throws {
        let challenge = try Self.digest("Digest realm=r, nonce=n, qop=auth")
        var state = DigestNonceState(challenge: challenge, cnonce: "c")
        let first = try state.nextAuthorization(user: "u", password: "p", method: "GET", uri: "/", body: .empty)
        let second = try state.nextAuthorization(user: "u", password: "p", method: "GET", uri: "/", body: .empty)
        #expect(first.contains("nc=00000001") && second.contains("nc=00000002") && state.nonceCount == 2)
        var nearEnd = DigestNonceState(challenge: challenge, cnonce: "c", nonceCount: UInt32.max - 1)
        #expect(try nearEnd.nextAuthorization(user: "u", password: "p", method: "GET", uri: "/", body: .empty).contains("nc=ffffffff"))
        #expect(throws: DigestAuthenticationError.nonceCountExhausted) {
            try nearEnd.nextAuthorization(user: "u", password: "p", method: "GET", uri: "/", body: .empty)
        }
        #expect(nearEnd.nonceCount == UInt32.max)
        #expect(DigestAuthentication.formatNonceCount(255) == "000000ff")
    }

    @Test func cnonceComesFromTheInjectedGenerator() {
        var a = AuthSeededGenerator(seed: 7), b = AuthSeededGenerator(seed: 7), c = AuthSeededGenerator(seed: 8)
        let x = DigestAuthentication.makeCnonce(using: &a)
        #expect(x == DigestAuthentication.makeCnonce(using: &b))
        #expect(x != DigestAuthentication.makeCnonce(using: &c))
        #expect(x != DigestAuthentication.makeCnonce(using: &a), "the next one differs")
        #expect(x.count == 32 && x.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        #expect(DigestAuthentication.makeCnonce() != DigestAuthentication.makeCnonce())
    }

    @Test func rankingPrefersTheStrongest() {
        let fields = [
            "Basic realm=b",
            "Digest realm=r, nonce=n1",                                   // MD5 without qop
            "Digest realm=r, nonce=n2, qop=auth",                         // MD5
            "Digest realm=r, nonce=n3, qop=auth, algorithm=SHA-256",
            "Digest realm=r, nonce=n4, qop=auth, algorithm=SHA-512-256-sess",
            "Digest realm=r, nonce=n5, qop=auth, algorithm=SHA-512-256",
            "Digest realm=r, nonce=n6, algorithm=MD5-sess",               // unusable: -sess without qop
            "Digest realm=r, nonce=n7, qop=auth-int, algorithm=SHA-512-256", // unusable without the body
            "Negotiate abc==",
            "Digest realm=r, nonce=n8, algorithm=SHA-3",                  // unknown algorithm
        ]
        let ranked = SupportedChallenge.ranked(AuthChallenge.parse(fields: fields), body: .unavailable)
        let order = ranked.map { $0.serverChallenge.parameter("nonce") ?? "basic" }
        #expect(order == ["n4", "n5", "n3", "n2", "n1", "basic"])
        let withBody = SupportedChallenge.ranked(AuthChallenge.parse(fields: fields), body: .empty)
        #expect(withBody.map { $0.serverChallenge.parameter("nonce") ?? "basic" }.prefix(3) == ["n4", "n5", "n7"])
    }
}
