import Foundation
import Testing
@testable import SwgetKit

@Suite("Basic authentication (RFC 7617)")
struct BasicTests {
    @Test(arguments: [
        // RFC 7617 §2 and §2.1's examples.
        ("Aladdin", "open sesame", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ("test", "123\u{A3}", "Basic dGVzdDoxMjPCow=="),
        // Empty password, empty user, colons in the password, non-ASCII user.
        ("user", "", "Basic dXNlcjo="),
        ("", "pw", "Basic OnB3"),
        ("u", "a:b:c", "Basic dTphOmI6Yw=="),
        ("J\u{E4}s\u{F8}n", "p", "Basic SsOkc8O4bjpw"),
    ])
    func encodes(_ user: String, _ password: String, _ expected: String) throws {
        #expect(try BasicAuthentication.authorization(user: user, password: password) == expected)
        let decoded = try #require(Data(base64Encoded: String(expected.dropFirst(6))))
        #expect(decoded == Data((user + ":" + password).utf8), "always UTF-8 bytes")
    }

    @Test(arguments: [
        ("us:er", "p", BasicAuthenticationError.colonInUserName),
        (":", "p", .colonInUserName),
        ("user\r\nX-Evil 1", "p", .controlCharacter),
        ("user", "pa\u{0}ss", .controlCharacter),
        ("user", "pass\u{7F}", .controlCharacter),
        ("user", String(repeating: "x", count: 4092), .tooLong),
    ])
    func refuses(_ user: String, _ password: String, _ error: BasicAuthenticationError) {
        #expect(throws: error) { try BasicAuthentication.authorization(user: user, password: password) }
        #expect(!error.description.isEmpty)
    }

    @Test func theLimitItselfIsAccepted() throws {
        let password = String(repeating: "x", count: BasicAuthentication.maximumCredentialBytes - 5)
        #expect(try BasicAuthentication.authorization(user: "user", password: password).hasPrefix("Basic dXNlcjp4"))
    }

    @Test(arguments: [
        (#"Basic realm="foo", charset="UTF-8""#, true),
        (#"Basic realm="foo", charset=utf-8"#, true),
        (#"Basic realm="foo""#, false),
        (#"Basic realm="foo", charset="ISO-8859-1""#, false),
    ])
    func charsetParameter(_ field: String, _ utf8: Bool) throws {
        let challenge = try #require(AuthChallenge.parse(field: field).first)
        #expect(BasicAuthentication.requestsUTF8(challenge) == utf8)
    }
}
