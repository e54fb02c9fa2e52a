import Foundation
import Testing
@testable import SwgetKit

/// Renders challenges compactly: `Basic[realm=x;charset=UTF-8]`, `Negotiate<abc==>`, `Foo`.
func renderAuthChallenges(_ challenges: [AuthChallenge]) -> String {
    challenges.map { challenge in
        if let token68 = challenge.token68 { return "\(challenge.scheme)<\(token68)>" }
        if challenge.parameters.isEmpty { return challenge.scheme }
        return "\(challenge.scheme)[" + challenge.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: ";") + "]"
    }.joined(separator: " ")
}

@Suite("WWW-Authenticate parsing (RFC 9110 §11)")
struct ChallengeParsingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let fields: [String]
        let expected: String
        var testDescription: String { name }
        init(_ name: String, _ fields: [String], _ expected: String) {
            self.name = name
            self.fields = fields
            self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case("Basic", [#"Basic realm="x""#], "Basic[realm=x]"),
        Case("Basic with charset", [#"Basic realm="x", charset="UTF-8""#], "Basic[realm=x;charset=UTF-8]"),
        Case("RFC 9110 §11.6.1 example", [#"Basic realm="simple", Newauth realm="apps", type=1, title="Login to \"apps\"""#],
             #"Basic[realm=simple] Newauth[realm=apps;type=1;title=Login to "apps"]"#),
        Case("token68", ["Negotiate abc=="], "Negotiate<abc==>"),
        Case("token68 then a challenge", [#"Negotiate a/b+c=, Basic realm="x""#], "Negotiate<a/b+c=> Basic[realm=x]"),
        Case("scheme alone", ["Negotiate"], "Negotiate"),
        Case("schemes alone in a list", [#"Negotiate, NTLM, Basic realm=x"#], "Negotiate NTLM Basic[realm=x]"),
        Case("case kept as sent", [#"bAsIc REALM="x""#], "bAsIc[REALM=x]"),
        Case("white space around =", [#"Digest realm = "x" , nonce= "y""#], "Digest[realm=x;nonce=y]"),
        Case("empty list elements", [#", ,Basic realm="a",, ,Digest nonce="n","#], "Basic[realm=a] Digest[nonce=n]"),
        Case("escapes", [#"Basic realm="a\\b\"c\d""#], #"Basic[realm=a\b"cd]"#),
        Case("tab after the scheme", ["Basic\trealm=\"x\""], "Basic[realm=x]"),
        Case("empty quoted value", [#"Basic realm="""#], "Basic[realm=]"),
        Case("non-ASCII quoted value", [#"Basic realm="café ☕""#], "Basic[realm=café ☕]"),
        Case("token value", ["Digest algorithm=SHA-256, qop=auth, nonce=abc"], "Digest[algorithm=SHA-256;qop=auth;nonce=abc]"),
        Case("a lone `name=` is token68", ["Basic realm="], "Basic<realm=>"),
        Case("param after token68 is dropped", ["Negotiate abc, realm=x, Basic realm=y"], "Negotiate<abc> Basic[realm=y]"),
        Case("duplicates kept in order", [#"Digest realm="a", realm="b""#], "Digest[realm=a;realm=b]"),
        Case("several fields", [#"Basic realm="a""#, #"Digest realm="b", nonce="n""#], "Basic[realm=a] Digest[realm=b;nonce=n]"),
        Case("comma inside a quoted value", [#"Digest realm="a, b", qop="auth, auth-int", Basic realm=c"#],
             "Digest[realm=a, b;qop=auth, auth-int] Basic[realm=c]"),
        // Malformed input: the bad challenge goes, the rest stays.
        Case("unterminated quote", [#"Basic realm="abc"#], ""),
        Case("unterminated quote after a good challenge", [#"Digest realm="a", nonce="b", Basic realm="x"#], "Digest[realm=a;nonce=b]"),
        Case("a bad field does not spoil the next", [#"Basic realm="x"#, "Digest realm=b, nonce=n"], "Digest[realm=b;nonce=n]"),
        Case("missing comma between params", [#"Digest realm="a" nonce="b", Basic realm="x""#], "Basic[realm=x]"),
        Case("stray params after a bad challenge", [#"Digest realm="a" junk, qop=auth, algorithm=MD5, Basic realm=y"#], "Basic[realm=y]"),
        Case("control character in a quoted value", ["Basic realm=\"a\u{01}b\", Digest nonce=n"], "Digest[nonce=n]"),
        Case("NUL in a quoted value", ["Basic realm=\"a\u{00}b\""], ""),
        Case("DEL escaped", ["Basic realm=\"a\\\u{7F}b\""], ""),
        Case("escaped newline", ["Basic realm=\"a\\\nb\""], ""),
        Case("quote right after the scheme", [#"Basic"x", Digest nonce=n"#], "Digest[nonce=n]"),
        Case("non-ASCII in a token value", ["Basic realm=café, Digest nonce=n"], "Digest[nonce=n]"),
        Case("leading garbage", [#"=== , Basic realm="x""#], "Basic[realm=x]"),
        Case("leading quoted junk with a comma", [#""junk, more", Basic realm=x"#], "Basic[realm=x]"),
        Case("`name=` before a comma is token68 too", ["Basic realm=, Digest nonce=n"], "Basic<realm=> Digest[nonce=n]"),
        Case("control character, then a quoted comma", ["Basic realm=\"a\u{01}b, c\", Digest nonce=n"], "Digest[nonce=n]"),
        Case("equals with no name", ["Basic =x, Digest nonce=n"], "Digest[nonce=n]"),
        Case("empty field", [""], ""),
        Case("only separators", [" , \t ,"], ""),
    ]

    @Test(arguments: cases)
    func parse(_ c: Case) {
        #expect(renderAuthChallenges(AuthChallenge.parse(fields: c.fields)) == c.expected)
    }

    @Test func lookupsIgnoreCase() throws {
        let challenge = try #require(AuthChallenge.parse(field: #"dIgEsT ReAlM="r", NONCE=n, nonce=m"#).first)
        #expect(challenge.hasScheme("Digest"))
        #expect(!challenge.hasScheme("Basic"))
        #expect(challenge.parameter("realm") == "r")
        #expect(challenge.parameter("nonce") == "n")
        #expect(challenge.occurrences(of: "Nonce") == 2)
        #expect(challenge.parameter("opaque") == nil)
    }

    // MARK: hostile sizes

    @Test func hugeFieldIsIgnoredWhole() {
        let huge = #"Basic realm=""# + String(repeating: "a", count: 100_000) + #"""#
        #expect(AuthChallenge.parse(fields: [huge, "Digest nonce=n"]).map(\.scheme) == ["Digest"])
    }

    @Test func fieldAtTheLimitIsRead() {
        let prefix = #"Basic realm=""#
        let field = prefix + String(repeating: "a", count: AuthChallenge.Limits.fieldBytes - prefix.utf8.count - 1) + #"""#
        #expect(field.utf8.count == AuthChallenge.Limits.fieldBytes)
        #expect(AuthChallenge.parse(field: field).first?.parameter("realm")?.count == AuthChallenge.Limits.fieldBytes - prefix.utf8.count - 1)
        #expect(AuthChallenge.parse(field: field + " ").isEmpty)
    }

    @Test func thousandsOfParametersDropTheChallenge() {
        let parameters = (0..<5000).map { "p\($0)=v" }.joined(separator: ", ")
        #expect(renderAuthChallenges(AuthChallenge.parse(field: "Foo " + parameters + #", Basic realm="x""#)) == "Basic[realm=x]")
    }

    @Test func parametersUpToTheLimitAreKept() {
        let limit = AuthChallenge.Limits.parametersPerChallenge
        let atLimit = (0..<limit).map { "p\($0)=v" }.joined(separator: ", ")
        #expect(AuthChallenge.parse(field: "Foo " + atLimit).first?.parameters.count == limit)
        #expect(AuthChallenge.parse(field: "Foo " + atLimit + ", extra=1").isEmpty)
    }

    @Test func challengesAndFieldsAreBounded() {
        let many = String(repeating: "A, ", count: 10_000)
        #expect(AuthChallenge.parse(field: many).count == AuthChallenge.Limits.challenges)
        let fields = Array(repeating: "Basic realm=x", count: 1000)
        #expect(AuthChallenge.parse(fields: fields).count == AuthChallenge.Limits.fields)
        #expect(AuthChallenge.parse(fields: Array(repeating: "A, B", count: 64)).count == AuthChallenge.Limits.challenges)
    }

    @Test func deepRunOfBackslashesAndQuotes() {
        let field = "Basic realm=\"" + String(repeating: "\\\"", count: 20_000) + "\""
        #expect(AuthChallenge.parse(field: field).first?.parameter("realm") == String(repeating: "\"", count: 20_000))
    }

    // MARK: seeded random input

    /// Every challenge parsed from random bytes is well formed, and serialising what was parsed
    /// then parsing it again gives the same challenges.
    @Test func randomInputParsesToWellFormedChallengesThatRoundTrip() {
        var generator = AuthSeededGenerator(seed: 0x5EED_0014)
        let alphabet = Array(#"ab Z9=,"\ \t/+-.é"#.unicodeScalars) + ["\u{01}", "\u{7F}"]
        for _ in 0..<3000 {
            let length = Int(generator.next() % 40)
            var text = ""
            for _ in 0..<length { text.unicodeScalars.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
            let parsed = AuthChallenge.parse(field: text)
            for challenge in parsed {
                #expect(!challenge.scheme.isEmpty && challenge.scheme.utf8.allSatisfy(ChallengeScanner.isTokenChar))
                #expect(challenge.token68 == nil || challenge.parameters.isEmpty)
                #expect(challenge.parameters.count <= AuthChallenge.Limits.parametersPerChallenge)
                #expect(challenge.parameters.allSatisfy { !$0.value.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" } })
            }
            #expect(AuthChallenge.parse(field: serialise(parsed)) == parsed, "\(text.debugDescription)")
        }
    }

    func serialise(_ challenges: [AuthChallenge]) -> String {
        challenges.map { challenge in
            if let token68 = challenge.token68 { return "\(challenge.scheme) \(token68)" }
            if challenge.parameters.isEmpty { return challenge.scheme }
            let parameters = challenge.parameters.map { parameter in
                let escaped = parameter.value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return "\(parameter.name)=\"\(escaped)\""
            }
            return "\(challenge.scheme) " + parameters.joined(separator: ", ")
        }.joined(separator: ", ")
    }
}

/// A small deterministic generator for seeded tests.
struct AuthSeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
