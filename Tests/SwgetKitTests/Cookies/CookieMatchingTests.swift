import Foundation
import Testing
@testable import SwgetKit

@Suite("Cookie matching (RFC 6265bis §5.1.2–§5.1.4)")
struct CookieMatchingTests {
    struct Pair: CustomTestStringConvertible, Sendable {
        let a: String
        let b: String
        let expected: Bool
        var testDescription: String { "\(a.debugDescription) vs \(b.debugDescription)" }
    }

    static let domains: [Pair] = [
        Pair(a: "example.com", b: "example.com", expected: true),
        Pair(a: "www.example.com", b: "example.com", expected: true),
        Pair(a: "a.b.example.com", b: "example.com", expected: true),
        Pair(a: "wwwexample.com", b: "example.com", expected: false),
        Pair(a: "example.com", b: "www.example.com", expected: false),
        Pair(a: "example.com.", b: "example.com", expected: false),
        Pair(a: "www.example.com", b: ".example.com", expected: false),   // canonical domains carry no dot
        Pair(a: "example.com", b: "", expected: false),
        Pair(a: "com", b: "com", expected: true),
        Pair(a: "1.2.3.4", b: "1.2.3.4", expected: true),
        Pair(a: "1.2.3.4", b: "2.3.4", expected: false),                  // IP addresses never by suffix
        Pair(a: "1.2.3.4", b: "3.4", expected: false),
        Pair(a: "::1", b: "::1", expected: true),
    ]

    @Test(arguments: domains)
    func domainMatch(_ p: Pair) { #expect(CookieMatching.domainMatches(p.a, p.b) == p.expected) }

    static let paths: [Pair] = [
        Pair(a: "/", b: "/", expected: true),
        Pair(a: "/a", b: "/", expected: true),
        Pair(a: "/a/b", b: "/a", expected: true),
        Pair(a: "/a/b", b: "/a/", expected: true),
        Pair(a: "/a/", b: "/a", expected: true),
        Pair(a: "/a", b: "/a", expected: true),
        Pair(a: "/ab", b: "/a", expected: false),
        Pair(a: "/a", b: "/a/", expected: false),
        Pair(a: "/", b: "/a", expected: false),
        Pair(a: "/A", b: "/a", expected: false),                           // case-sensitive
        Pair(a: "/a%2Fb", b: "/a", expected: false),                       // compared as sent
        Pair(a: "/a%2F/b", b: "/a%2F", expected: true),
        Pair(a: "/docs/web", b: "/docs", expected: true),
        Pair(a: "/docsets", b: "/docs", expected: false),
    ]

    @Test(arguments: paths)
    func pathMatch(_ p: Pair) { #expect(CookieMatching.pathMatches(p.a, p.b) == p.expected) }

    @Test(arguments: [("", "/"), ("/", "/"), ("/a", "/"), ("/a/", "/a"), ("/a/b", "/a"), ("/a/b/c", "/a/b"),
                      ("a/b", "/"), ("//", "/"), ("/a//b", "/a/"), ("/ä/ö", "/ä")])
    func defaultPath(_ input: String, _ expected: String) { #expect(CookieMatching.defaultPath(input) == expected) }

    @Test func requestPathAndHost() {
        #expect(CookieMatching.requestPath(cookieURL("http://h")) == "/")
        #expect(CookieMatching.requestPath(cookieURL("http://h/a%20b/c?q=1#f")) == "/a%20b/c")
        #expect(CookieMatching.canonicalHost(cookieURL("http://WWW.Example.COM:8080/")) == "www.example.com")
        #expect(CookieMatching.canonicalHost(cookieURL("http://[::1]:8080/")) == "::1")
        #expect(CookieMatching.canonicalHost(cookieURL("file:///etc/passwd")) == nil)
    }

    @Test(arguments: [
        ("https://example.com/", true, true), ("HTTPS://example.com/", true, true), ("wss://example.com/", true, true),
        ("http://example.com/", true, false), ("ftp://example.com/", true, false),
        ("http://localhost/", true, true), ("http://localhost/", false, false),
        ("http://LOCALHOST:8080/", true, true), ("http://app.localhost/", true, true),
        ("http://127.0.0.1/", true, true), ("http://127.8.9.10/", true, true), ("http://[::1]/", true, true),
        ("http://128.0.0.1/", true, false), ("http://localhost.example.com/", true, false),
        ("http://[::2]/", true, false), ("http://10.0.0.1/", true, false),
    ])
    func secureConnection(_ string: String, _ loopbackIsSecure: Bool, _ expected: Bool) {
        #expect(CookieMatching.isSecure(cookieURL(string), loopbackIsSecure: loopbackIsSecure) == expected)
    }

    @Test(arguments: [("1.2.3.4", true), ("255.255.255.255", true), ("::1", true), ("[::1]", true), ("fe80::1", true),
                      ("1.2.3", false), ("999.1.1.1", false), ("example.com", false), ("", false), ("1.2.3.4.5", false)])
    func ipAddresses(_ host: String, _ expected: Bool) { #expect(CookieMatching.isIPAddress(host) == expected) }

    @Test func candidateDomains() {
        #expect(CookieMatching.candidateDomains(for: "a.b.example.com") == ["a.b.example.com", "b.example.com", "example.com", "com"])
        #expect(CookieMatching.candidateDomains(for: "localhost") == ["localhost"])
        #expect(CookieMatching.candidateDomains(for: "10.1.2.3") == ["10.1.2.3"])
        #expect(CookieMatching.candidateDomains(for: "a.") == ["a."])
        let hostile = String(repeating: "a.", count: 10_000) + "com"
        #expect(CookieMatching.candidateDomains(for: hostile).count == 128)
    }

    @Test(arguments: [("__Secure-a", "__Secure-", true), ("__secure-a", "__Secure-", true), ("__SECURE-", "__Secure-", true),
                      ("_Secure-a", "__Secure-", false), ("__Secure", "__Secure-", false), ("__Host-x", "__Host-", true),
                      ("__hOsT-x", "__Host-", true), ("x__Host-", "__Host-", false)])
    func prefixes(_ name: String, _ prefix: String, _ expected: Bool) {
        #expect(CookieMatching.hasPrefix(name, caseInsensitive: prefix) == expected)
    }
}

@Suite("Public suffixes through libpsl")
struct PublicSuffixTests {
    let list = PublicSuffixList.system

    @Test(arguments: [
        ("com", true), ("co.uk", true), ("github.io", true), ("CO.UK", true), ("co.uk.", true), ("uk", true),
        ("s3.amazonaws.com", true), ("xn--p1ai", true), ("рф", true), ("localhost", true), ("", true),
        ("example.com", false), ("example.co.uk", false), ("foo.github.io", false), ("www.example.com", false),
        ("127.0.0.1", false), ("::1", false),
    ])
    func isPublicSuffix(_ domain: String, _ expected: Bool) { #expect(list.isPublicSuffix(domain) == expected) }

    @Test func hostileInputIsAPublicSuffix() {
        #expect(list.isPublicSuffix(String(repeating: "a.", count: 600) + "com"))   // over 1,024 bytes
        #expect(list.isPublicSuffix("example\u{0}.com"))
        #expect(list.isPublicSuffix("."))
    }

    @Test(arguments: [
        ("www.example.co.uk", "example.co.uk"), ("a.b.github.io", "b.github.io"), ("WWW.Example.COM", "example.com"),
        ("example.com.", "example.com"), ("bücher.de", "bücher.de"),
    ])
    func registrableDomain(_ host: String, _ expected: String) { #expect(list.registrableDomain(host) == expected) }

    @Test(arguments: ["co.uk", "com", "github.io", "127.0.0.1", "::1", ""])
    func noRegistrableDomain(_ host: String) { #expect(list.registrableDomain(host) == nil) }

    @Test func loadsAListFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("psl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("list.dat").path
        try "// test list\n// ===BEGIN ICANN DOMAINS===\nexample\n*.wild\n// ===END ICANN DOMAINS===\n".write(toFile: path, atomically: true, encoding: .utf8)
        let custom = try #require(PublicSuffixList(contentsOfFile: path))
        #expect(custom.isPublicSuffix("example"))
        #expect(!custom.isPublicSuffix("foo.example"))
        #expect(custom.isPublicSuffix("x.wild"))
        #expect(custom.registrableDomain("a.b.example") == "b.example")
        #expect(PublicSuffixList(contentsOfFile: directory.appendingPathComponent("missing").path) == nil)
    }
}
