import Testing
@testable import SwgetKit

@Suite("no_proxy lists (pure)")
struct NoProxyTests {
    struct MatchCase: CustomTestStringConvertible, Sendable {
        let list: String
        let host: String
        let port: Int
        let bypass: Bool
        var testDescription: String { "\(list) vs \(host):\(port) → \(bypass ? "direct" : "proxy")" }
    }

    static func m(_ list: String, _ host: String, _ port: Int, _ bypass: Bool) -> MatchCase {
        MatchCase(list: list, host: host, port: port, bypass: bypass)
    }

    static func m(_ list: String, _ host: String, _ bypass: Bool) -> MatchCase { m(list, host, 443, bypass) }

    static let matches: [MatchCase] = [
        // names, subdomains, dots
        m("example.com", "example.com", true),
        m("example.com", "a.example.com", true),
        m("example.com", "a.b.example.com", true),
        m("example.com", "badexample.com", false),
        m("example.com", "example.com.evil.net", false),
        m("example.com", "com", false),
        m(".example.com", "example.com", true),
        m(".example.com", "a.example.com", true),
        m(".example.com", "badexample.com", false),
        m("*.example.com", "a.example.com", true),
        m("*.example.com", "example.com", true),
        m("EXAMPLE.com", "www.Example.COM", true),
        m("example.com.", "a.example.com", true),
        m("example.com", "a.example.com.", true),
        m("localhost", "localhost", true),
        m("localhost", "127.0.0.1", false),
        // lists and separators
        m("foo.org, example.com", "example.com", true),
        m("foo.org example.com", "example.com", true),
        m("foo.org,\texample.com", "example.com", true),
        m(",,foo.org,,", "foo.org", true),
        m("", "example.com", false),
        m("   ", "example.com", false),
        m("foo.org,bar.org", "example.com", false),
        // everything
        m("*", "anything.at.all", true),
        m("*", "10.1.2.3", true),
        m("foo.org,*", "example.com", true),
        // IPv4
        m("10.1.2.3", "10.1.2.3", true),
        m("10.1.2.3", "10.1.2.4", false),
        m("10.0.0.0/8", "10.200.3.4", true),
        m("10.0.0.0/8", "11.0.0.1", false),
        m("10.1.2.3/8", "10.9.9.9", true),
        m("192.168.1.0/24", "192.168.1.255", true),
        m("192.168.1.0/24", "192.168.2.0", false),
        m("0.0.0.0/0", "8.8.8.8", true),
        m("0.0.0.0/0", "::1", false),
        m("172.16.0.0/12", "172.31.255.255", true),
        m("172.16.0.0/12", "172.32.0.0", false),
        m("10.0.0.0/8", "10.example.com", false),
        m("10.0.0.0/8", "ten.example.com", false),
        // IPv6
        m("::1", "::1", true),
        m("::1", "[::1]", true),
        m("[::1]", "::1", true),
        m("::1", "::2", false),
        m("fd00::/8", "fd12:3456::1", true),
        m("fd00::/8", "[fd12:3456::1]", true),
        m("fd00::/8", "fe80::1", false),
        m("[fd00::]/8", "fdff::1", true),
        m("[fd00::/8]", "fdff::1", true),
        m("2001:db8::/32", "2001:DB8:0:1::5", true),
        m("2001:db8::/32", "2001:db9::5", false),
        m("fe80::/10", "fe80::1%eth0", true),
        m("::/0", "10.0.0.1", false),
        m("::ffff:10.0.0.1", "::ffff:10.0.0.1", true),
        // ports
        m("example.com:8080", "example.com", 8080, true),
        m("example.com:8080", "example.com", 443, false),
        m("example.com:8080", "a.example.com", 8080, true),
        m("10.0.0.0/8:443", "10.1.1.1", 443, true),
        m("10.0.0.0/8:443", "10.1.1.1", 80, false),
        m("10.1.1.1:80", "10.1.1.1", 80, true),
        m("[::1]:8080", "::1", 8080, true),
        m("[::1]:8080", "::1", 8081, false),
        m("[fd00::]/8:443", "fd00::5", 443, true),
        m("[fd00::/8]:443", "fd00::5", 80, false),
        // oddities kept as names (curl does not fail on them)
        m("192.168.*", "192.168.1.1", false),
        m("<local>", "intranet", false),
        m("bücher.de", "bücher.de", true),
    ]

    @Test(arguments: matches)
    func matching(_ c: MatchCase) throws {
        let list = try NoProxy(parsing: c.list)
        #expect(list.matches(host: c.host, port: c.port) == c.bypass)
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        let list: String
        let reason: String
        var testDescription: String { list.debugDescription }
    }

    static let bad: [BadCase] = [
        BadCase(list: "10.0.0.0/33", reason: "bad CIDR prefix"),
        BadCase(list: "fd00::/129", reason: "bad CIDR prefix"),
        BadCase(list: "10.0.0.0/", reason: "bad CIDR prefix"),
        BadCase(list: "10.0.0.0/x", reason: "bad CIDR prefix"),
        BadCase(list: "10.0.0.0/-1", reason: "bad CIDR prefix"),
        BadCase(list: "10.0.0.0/0008", reason: "bad CIDR prefix"),
        BadCase(list: "example.com/8", reason: "needs an IP address"),
        BadCase(list: "example.com:0", reason: "bad port"),
        BadCase(list: "example.com:65536", reason: "bad port"),
        BadCase(list: "example.com:", reason: "bad port"),
        BadCase(list: "example.com:http", reason: "bad port"),
        BadCase(list: "example.com:+80", reason: "bad port"),
        BadCase(list: "[::1", reason: "without ']'"),
        BadCase(list: "[]", reason: "no IP address"),
        BadCase(list: "[example.com]", reason: "no IP address"),
        BadCase(list: "[::1]x", reason: "unexpected text"),
        BadCase(list: "[::1]:99999", reason: "bad port"),
        BadCase(list: "[fd00::/8]/8", reason: "two CIDR prefixes"),
        BadCase(list: "fd00::zz", reason: "not an IPv6 address"),
        BadCase(list: "a\u{01}b", reason: "control character"),
        BadCase(list: "good.org,.", reason: "no host name"),
        BadCase(list: String(repeating: "a", count: 2000), reason: "longer than"),
        BadCase(list: String(repeating: "a,", count: 40_000), reason: "list is longer"),
    ]

    @Test(arguments: bad)
    func malformed(_ c: BadCase) {
        #expect {
            _ = try NoProxy(parsing: c.list)
        } throws: { error in
            guard let error = error as? ProxyConfigurationError, case .invalidNoProxyEntry = error else { return false }
            return error.description.contains(c.reason)
        }
    }

    @Test func canonicalFormRoundTrips() throws {
        let list = try NoProxy(parsing: ".Example.com:8080, 10.1.2.3/8 [::1]:80 fd00::/8 * 127.0.0.1")
        #expect(list.description == "example.com:8080,10.0.0.0/8,[::1]:80,fd00::/8,*,127.0.0.1")
        #expect(try NoProxy(parsing: list.description) == list)
    }

    /// A separator followed by a combining mark is one Character (",\u{309}"); the list is split
    /// on scalars, so the comma still separates and the canonical form parses back to the same
    /// list (FuzzProxy's finding in the ten-minute run).
    @Test func separatorsBeforeCombiningMarksStillSeparate() throws {
        let list = try NoProxy(parsing: "a.com,\u{309}b\r\u{7F0}")
        #expect(list.entries == [.domain("a.com", port: nil), .domain("\u{309}b", port: nil), .domain("\u{7F0}", port: nil)])
        #expect(try NoProxy(parsing: list.description) == list)
        #expect(list.matches(host: "a.com", port: 80))
    }

    /// Names that keep a leading or trailing dot, a `*`, a bracket or an address form after parsing
    /// are written so that they parse back to themselves (FuzzProxy's finding: `127..`, the name
    /// `127.`, was written `127.`, which parses to the name `127`).
    @Test(arguments: [
        ("127..", "127..", NoProxy.Entry.domain("127.", port: nil)),
        ("..x", "..x", .domain(".x", port: nil)),
        (".*.x", ".*.x", .domain("*.x", port: nil)),
        (".*", ".*", .domain("*", port: nil)),
        (".[x:81", ".[x:81", .domain("[x", port: 81)),
        (".127.0.0.1", ".127.0.0.1", .domain("127.0.0.1", port: nil)),
        ("...", "...", .domain(".", port: nil)),
        ("a.b.", "a.b", .domain("a.b", port: nil)),
    ])
    func awkwardNamesRoundTrip(_ list: String, _ canonical: String, _ entry: NoProxy.Entry) throws {
        let parsed = try NoProxy(parsing: list)
        #expect(parsed.entries == [entry])
        #expect(parsed.description == canonical)
        #expect(try NoProxy(parsing: parsed.description) == parsed)
    }

    @Test func entriesAreParsedToValues() throws {
        let list = try NoProxy(parsing: "a.org,10.0.0.0/8:22")
        #expect(list.entries == [.domain("a.org", port: nil), .network(address: [10, 0, 0, 0], prefixLength: 8, port: 22)])
        #expect(NoProxy().isEmpty)
        #expect(!NoProxy().matches(host: "anything", port: 80))
    }

    @Test func hostileHostsNeverMatchByAccident() throws {
        let list = try NoProxy(parsing: "example.com,10.0.0.0/8")
        for host in ["", ".", "[", "]", "[]", "%", "\u{0}", "example.com\u{0}.evil", String(repeating: "9", count: 100_000)] {
            #expect(!list.matches(host: host, port: 443))
        }
    }

    @Test(arguments: [
        ("1.2.3.4", [UInt8]([1, 2, 3, 4])), ("255.255.255.255", [255, 255, 255, 255]),
        ("01.2.3.4", []), ("1.2.3", []), ("1.2.3.4.5", []), ("256.1.1.1", []), ("1.2.3.4\u{0}", []),
        ("::", [UInt8](repeating: 0, count: 16)), ("::1", [UInt8](repeating: 0, count: 15) + [1]), (":::", []), ("1::2::3", []),
    ])
    func ipLiterals(_ text: String, _ bytes: [UInt8]) {
        #expect(IPLiteral.parse(text) == (bytes.isEmpty ? nil : bytes))
    }
}
