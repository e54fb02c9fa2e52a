import Foundation
import Testing
@testable import SwgetKit

@Suite("Set-Cookie parsing (RFC 6265bis §5.6)")
struct SetCookieParserTests {
    static let now = CookieTestClock.start
    static let limit = SetCookieParser.cookieAgeLimit
    static let june9 = Date(timeIntervalSince1970: 1_623_233_894)

    static func parse(_ header: String) -> Result<SetCookie, CookieRejection> {
        Result { () throws(CookieRejection) in try SetCookieParser.parse(header, now: now) }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let header: String
        let expected: Result<SetCookie, CookieRejection>
        var testDescription: String { String(header.prefix(80)).debugDescription }
    }

    static func ok(_ header: String, _ cookie: SetCookie) -> Case { Case(header: header, expected: .success(cookie)) }
    static func no(_ header: String, _ reason: CookieRejection) -> Case { Case(header: header, expected: .failure(reason)) }
    static func c(_ name: String = "a", _ value: String = "b", expires: Date? = nil, maxAge: Date? = nil,
                  domain: String? = nil, path: String? = nil, hasPath: Bool = false, secure: Bool = false,
                  httpOnly: Bool = false, sameSite: Cookie.SameSite = .unspecified) -> SetCookie {
        SetCookie(name: name, value: value, expires: expires, maxAge: maxAge, domain: domain, path: path,
                  hasPathAttribute: hasPath, secure: secure, httpOnly: httpOnly, sameSite: sameSite)
    }

    static let nameValue: [Case] = [
        ok("a=b", c()),
        ok("  a  =  b  ", c()),
        ok("\ta\t=\tb\t", c()),
        ok("a=", c("a", "")),
        ok("a=b=c", c("a", "b=c")),
        ok("a=\"quoted value\"", c("a", "\"quoted value\"")),
        ok("a=b c", c("a", "b c")),
        ok("a=b\tc", c("a", "b\tc")),                           // HTAB is allowed
        ok("a=ünïcødé", c("a", "ünïcødé")),
        ok("a b=c", c("a b", "c")),
        ok("A=b", c("A", "b")),                                     // names keep their case
        ok("a=b;", c()),
        no("=b", .missingName),
        no("  =b", .missingName),
        no("b", .missingName),                                      // nameless: refused like curl and wget
        no("", .missingName),
        no(";a=b", .missingName),
        no("a=b\u{1}", .controlCharacter),
        no("a=b\u{0}", .controlCharacter),
        no("a=b\u{7F}", .controlCharacter),
        no("a=b\r\nSet-Cookie: c=d", .controlCharacter),
        no("a=b; Path=/\n", .controlCharacter),                     // anywhere in the string
        ok("a=" + String(repeating: "v", count: 4095), c("a", String(repeating: "v", count: 4095))),
        no("a=" + String(repeating: "v", count: 4096), .tooLarge),
        no(String(repeating: "n", count: 4097) + "=", .tooLarge),
        no("a=b;" + String(repeating: " ", count: 70_000), .headerTooLong),
    ]

    static let expiry: [Case] = [
        ok("a=b; Max-Age=60", c(maxAge: now + 60)),
        ok("a=b; max-age=60", c(maxAge: now + 60)),
        ok("a=b;Max-Age = 60 ", c(maxAge: now + 60)),
        ok("a=b; Max-Age=0", c(maxAge: .distantPast)),
        ok("a=b; Max-Age=-1", c(maxAge: .distantPast)),
        ok("a=b; Max-Age=-99999999999999999999999", c(maxAge: .distantPast)),
        ok("a=b; Max-Age=99999999999999999999999", c(maxAge: now + limit)),
        ok("a=b; Max-Age=34560001", c(maxAge: now + limit)),        // capped at 400 days
        ok("a=b; Max-Age=007", c(maxAge: now + 7)),
        ok("a=b; Max-Age=+5", c()),
        ok("a=b; Max-Age=5s", c()),
        ok("a=b; Max-Age=", c()),
        ok("a=b; Max-Age=-", c()),
        ok("a=b; Max-Age=1.5", c()),
        ok("a=b; Max-Age=60; Max-Age=120", c(maxAge: now + 120)),   // the last wins
        ok("a=b; Max-Age=60; Max-Age=x", c(maxAge: now + 60)),      // an invalid one is ignored
        ok("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT", c(expires: june9)),
        ok("a=b; expires=Wed, 09-Jun-21 10:18:14 GMT", c(expires: june9)),
        ok("a=b; Expires=garbage", c()),
        ok("a=b; Expires=", c()),
        ok("a=b; Expires=Wed, 09 Jun 2100 10:18:14 GMT", c(expires: now + limit)),
        ok("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Expires=bad", c(expires: june9)),
        ok("a=b; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT", c(expires: june9, maxAge: now + 60)),
        ok("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60", c(expires: june9, maxAge: now + 60)),
    ]

    static let scope: [Case] = [
        ok("a=b; Domain=example.com", c(domain: "example.com")),
        ok("a=b; Domain=.Example.COM", c(domain: "example.com")),
        ok("a=b; domain=..example.com", c(domain: ".example.com")),  // only one dot is removed
        ok("a=b; Domain=", c()),                                     // ignored
        ok("a=b; Domain=a.com; Domain=", c(domain: "a.com")),
        ok("a=b; Domain=.", c(domain: "")),
        ok("a=b; Domain=a.com; Domain=b.com", c(domain: "b.com")),
        ok("a=b; Domain=BÜCHER.de", c(domain: "bÜcher.de")),       // ASCII lowercasing only; §5.7 refuses it
        ok("a=b; Path=/a", c(path: "/a", hasPath: true)),
        ok("a=b; path=/a/b/", c(path: "/a/b/", hasPath: true)),
        ok("a=b; Path=a", c(hasPath: true)),                         // relative: the default path
        ok("a=b; Path=", c(hasPath: true)),
        ok("a=b; Path=/a; Path=b", c(hasPath: true)),                // the last one counts
        ok("a=b; Path=b; Path=/a", c(path: "/a", hasPath: true)),
        ok("a=b; Path=/a b", c(path: "/a b", hasPath: true)),
    ]

    static let flags: [Case] = [
        ok("a=b; Secure", c(secure: true)),
        ok("a=b; secure", c(secure: true)),
        ok("a=b; SECURE=no", c(secure: true)),                       // the value is ignored
        ok("a=b; HttpOnly", c(httpOnly: true)),
        ok("a=b; httponly", c(httpOnly: true)),
        ok("a=b; Secure; HttpOnly", c(secure: true, httpOnly: true)),
        ok("a=b; SameSite=Strict", c(sameSite: .strict)),
        ok("a=b; samesite=lax", c(sameSite: .lax)),
        ok("a=b; SameSite=NONE", c(sameSite: .none)),
        ok("a=b; SameSite=bogus", c(sameSite: .unspecified)),
        ok("a=b; SameSite", c(sameSite: .unspecified)),
        ok("a=b; SameSite=Strict; SameSite=bogus", c(sameSite: .unspecified)),
        ok("a=b; Secures", c()),
        ok("a=b; Foo=bar; Partitioned; Version=1; Comment=x", c()),
        ok("a=b;;; ; ;Secure;;", c(secure: true)),
        ok("a=b; =Secure", c()),
        ok("a=b; Sec ure", c()),
    ]

    static let limits: [Case] = [
        ok("a=b; Path=/" + String(repeating: "x", count: 1023), c(path: "/" + String(repeating: "x", count: 1023), hasPath: true)),
        ok("a=b; Path=/" + String(repeating: "x", count: 1024), c()),          // over 1,024: ignored
        ok("a=b; Path=/ok; Path=/" + String(repeating: "x", count: 1024), c(path: "/ok", hasPath: true)),
        ok("a=b; Domain=" + String(repeating: "d", count: 1025), c()),
        ok("a=b; Secure; Foo=" + String(repeating: "f", count: 5000), c(secure: true)),
        ok("a=b" + String(repeating: ";", count: 60_000), c()),
        ok("a=b" + String(repeating: "; Secure", count: 8000), c(secure: true)),
    ]

    @Test(arguments: nameValue) func nameAndValue(_ c: Case) { #expect(Self.parse(c.header) == c.expected) }
    @Test(arguments: expiry) func expiryAttributes(_ c: Case) { #expect(Self.parse(c.header) == c.expected) }
    @Test(arguments: scope) func domainAndPath(_ c: Case) { #expect(Self.parse(c.header) == c.expected) }
    @Test(arguments: flags) func flagAttributes(_ c: Case) { #expect(Self.parse(c.header) == c.expected) }
    @Test(arguments: limits) func sizeLimits(_ c: Case) { #expect(Self.parse(c.header) == c.expected) }

    /// Max-Age beats Expires in either order (§5.7 step 6).
    @Test func maxAgeWinsOverExpires() throws {
        for header in ["a=b; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT",
                       "a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60"] {
            #expect(try SetCookieParser.parse(header, now: Self.now).expiresAt == Self.now + 60)
        }
        #expect(try SetCookieParser.parse("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT", now: Self.now).expiresAt == Self.june9)
        #expect(try SetCookieParser.parse("a=b", now: Self.now).expiresAt == nil)
    }

    /// Every prefix of a realistic header parses or is refused without trouble, and control bytes at
    /// every position are refused.
    @Test func everyPrefixAndEveryControlByte() {
        let header = "sid=31d4d96e407aad42; Path=/; Domain=example.com; Max-Age=3600; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Secure; HttpOnly; SameSite=Lax"
        let bytes = Array(header.utf8)
        for end in 0...bytes.count {
            _ = Self.parse(String(decoding: bytes[..<end], as: UTF8.self))
        }
        for position in stride(from: 0, to: bytes.count, by: 7) {
            var broken = bytes
            broken.insert(0x0B, at: position)
            #expect(Self.parse(String(decoding: broken, as: UTF8.self)) == .failure(.controlCharacter))
        }
    }
}
