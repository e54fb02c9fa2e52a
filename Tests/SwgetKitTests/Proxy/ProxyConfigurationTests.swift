#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

@Suite("Proxy URLs and the environment (pure)")
struct ProxyConfigurationTests {
    typealias Creds = Proxy.Credentials

    struct GoodURL: CustomTestStringConvertible, Sendable {
        let text: String
        let proxy: Proxy
        var testDescription: String { text }
    }

    static func good(_ text: String, _ kind: Proxy.Kind, _ host: String, _ port: Int, _ credentials: Creds? = nil) -> GoodURL {
        GoodURL(text: text, proxy: Proxy(kind: kind, host: host, port: port, credentials: credentials))
    }

    static let goodURLs: [GoodURL] = [
        good("proxy.example:3128", .http, "proxy.example", 3128),
        good("proxy.example", .http, "proxy.example", 1080),
        good("http://proxy.example", .http, "proxy.example", 1080),
        good("http://proxy.example/", .http, "proxy.example", 1080),
        good("http://proxy.example:", .http, "proxy.example", 1080),
        good("HTTP://Proxy.Example:8080", .http, "proxy.example", 8080),
        good("https://proxy.example", .https, "proxy.example", 443),
        good("https://proxy.example:8443/", .https, "proxy.example", 8443),
        good("socks5://127.0.0.1", .socks5, "127.0.0.1", 1080),
        good("socks5h://localhost:9050", .socks5h, "localhost", 9050),
        good("socks4://10.0.0.1:1081", .socks4, "10.0.0.1", 1081),
        good("socks4a://gw", .socks4a, "gw", 1080),
        good("socks://gw", .socks4, "gw", 1080),
        good("http://[::1]:3128", .http, "::1", 3128),
        good("[2001:DB8::1]", .http, "2001:db8::1", 1080),
        good("http://user:secret@proxy:3128", .http, "proxy", 3128, Creds(user: "user", password: "secret")),
        good("http://user@proxy", .http, "proxy", 1080, Creds(user: "user", password: "")),
        good("http://:pw@proxy", .http, "proxy", 1080, Creds(user: "", password: "pw")),
        good("http://@proxy", .http, "proxy", 1080),
        good("http://us%40er:p%3Ass%2Fw%25rd@proxy", .http, "proxy", 1080, Creds(user: "us@er", password: "p:ss/w%rd")),
        good("http://a:b:c@proxy", .http, "proxy", 1080, Creds(user: "a", password: "b:c")),
        good("http://a@b@proxy", .http, "proxy", 1080, Creds(user: "a@b", password: "")),
        good("http://j%C3%BCrgen:%E2%82%AC@proxy", .http, "proxy", 1080, Creds(user: "jürgen", password: "€")),
        good("socks5://u:p@[::1]:1080", .socks5, "::1", 1080, Creds(user: "u", password: "p")),
        good("http://proxy:65535", .http, "proxy", 65535),
        good("http://proxy:1", .http, "proxy", 1),
        good("http://my_proxy.local", .http, "my_proxy.local", 1080),
    ]

    @Test(arguments: goodURLs)
    func parsesProxyURL(_ c: GoodURL) throws {
        #expect(try Proxy(parsing: c.text) == c.proxy)
    }

    struct BadURL: CustomTestStringConvertible, Sendable {
        let text: String
        let error: ProxyConfigurationError
        var testDescription: String { text.debugDescription }
    }

    static let badURLs: [BadURL] = [
        BadURL(text: "", error: .malformedProxyURL("", reason: "empty")),
        BadURL(text: "ftp://proxy", error: .unsupportedScheme("ftp")),
        BadURL(text: "socks6://proxy", error: .unsupportedScheme("socks6")),
        BadURL(text: "://proxy", error: .unsupportedScheme("")),
        BadURL(text: "http://proxy:0", error: .invalidPort("0")),
        BadURL(text: "http://proxy:65536", error: .invalidPort("65536")),
        BadURL(text: "http://proxy:123456", error: .invalidPort("123456")),
        BadURL(text: "http://proxy:-1", error: .invalidPort("-1")),
        BadURL(text: "http://proxy:8o", error: .invalidPort("8o")),
        BadURL(text: "http://[::1]:0", error: .invalidPort("0")),
        BadURL(text: "http://proxy/path", error: .unexpectedPath("http://proxy/path")),
        BadURL(text: "http://proxy/?q", error: .unexpectedPath("http://proxy/?q")),
        BadURL(text: "http://proxy#frag", error: .unexpectedPath("http://proxy#frag")),
        BadURL(text: "http://u:secret@proxy/x", error: .unexpectedPath("http://u:***@proxy/x")),
        BadURL(text: "http://", error: .malformedProxyURL("http://", reason: "no host")),
        BadURL(text: "http://:8080", error: .malformedProxyURL("http://:8080", reason: "no host")),
        BadURL(text: "http://u:p@", error: .malformedProxyURL("http://u:***@", reason: "no host")),
        BadURL(text: "http://::1:8080", error: .malformedProxyURL("http://::1:8080", reason: "an IPv6 address must be in brackets")),
        BadURL(text: "http://[::1", error: .malformedProxyURL("http://[::1", reason: "'[' without ']'")),
        BadURL(text: "http://[proxy]", error: .malformedProxyURL("http://[proxy]", reason: "no IPv6 address inside the brackets")),
        BadURL(text: "http://[10.0.0.1]", error: .malformedProxyURL("http://[10.0.0.1]", reason: "no IPv6 address inside the brackets")),
        BadURL(text: "http://[fe80::1%25eth0]", error: .malformedProxyURL("http://[fe80::1%25eth0]", reason: "no IPv6 address inside the brackets")),
        BadURL(text: "http://[::1]x", error: .malformedProxyURL("http://[::1]x", reason: "unexpected text after ']'")),
        BadURL(text: "http://pro xy", error: .malformedProxyURL("http://pro xy", reason: "contains a space or a control character")),
        BadURL(text: "http://proxy\r\n", error: .malformedProxyURL("http://proxy\r\n", reason: "contains a space or a control character")),
        BadURL(text: "http://büro-proxy", error: .malformedProxyURL("http://büro-proxy", reason: "invalid character in the host name (IDN names must be given in punycode)")),
        BadURL(text: "http://pr%6Fxy", error: .malformedProxyURL("http://pr%6Fxy", reason: "invalid character in the host name (IDN names must be given in punycode)")),
        BadURL(text: "http://u:%zz@proxy", error: .malformedProxyURL("http://u:***@proxy", reason: "bad percent-encoding in the user name or password")),
        BadURL(text: "http://u%:p@proxy", error: .malformedProxyURL("http://u%:***@proxy", reason: "bad percent-encoding in the user name or password")),
        BadURL(text: "http://u:%FF@proxy", error: .malformedProxyURL("http://u:***@proxy", reason: "bad percent-encoding in the user name or password")),
        BadURL(text: "http://" + String(repeating: "a", count: 300), error: .malformedProxyURL(
            "http://" + String(repeating: "a", count: 193) + "…", reason: "host name longer than 253 bytes")),
    ]

    @Test(arguments: badURLs)
    func rejectsProxyURL(_ c: BadURL) {
        #expect(throws: c.error) { try Proxy(parsing: c.text) }
    }

    @Test func hugeURLIsRefusedWithoutEchoingIt() {
        let text = "http://" + String(repeating: "x", count: 100_000)
        #expect {
            _ = try Proxy(parsing: text)
        } throws: { error in
            "\(error)".contains("longer than 8192 bytes") && "\(error)".count < 400
        }
    }

    @Test func descriptionsNeverShowThePassword() throws {
        let proxy = try Proxy(parsing: "socks5h://alice:hunter2@[::1]:9050")
        #expect(proxy.description == "socks5h://alice:***@[::1]:9050")
        #expect(!String(reflecting: proxy).contains("hunter2"))
        #expect(!"\(proxy.credentials.map(String.init(reflecting:)) ?? "")".contains("hunter2"))
        #expect(try Proxy(parsing: "proxy:3128").description == "http://proxy:3128")
        #expect(Creds(user: "u", password: "").description == "u")
        #expect(Creds(user: "Aladdin", password: "open sesame").basicAuthorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test func tunnelIsNeededForEverythingButPlainHTTPThroughAnHTTPProxy() {
        #expect(!Proxy(kind: .http, host: "p").needsTunnel(toScheme: "http"))
        #expect(!Proxy(kind: .https, host: "p").needsTunnel(toScheme: "HTTP"))
        #expect(Proxy(kind: .http, host: "p").needsTunnel(toScheme: "https"))
        #expect(Proxy(kind: .socks5h, host: "p").needsTunnel(toScheme: "http"))
        #expect(Proxy.Kind.allCases.filter(\.resolvesOriginLocally) == [.socks4, .socks5])
    }

    // MARK: environment

    struct EnvCase: CustomTestStringConvertible, Sendable {
        let name: String
        let environment: [String: String]
        let http: String?
        let https: String?
        let all: String?
        var testDescription: String { name }
    }

    static let environments: [EnvCase] = [
        EnvCase(name: "nothing set", environment: [:], http: nil, https: nil, all: nil),
        EnvCase(name: "lower-case http_proxy", environment: ["http_proxy": "h:1"], http: "h", https: nil, all: nil),
        EnvCase(name: "upper-case HTTP_PROXY is ignored (httpoxy)", environment: ["HTTP_PROXY": "evil:1"], http: nil, https: nil, all: nil),
        EnvCase(name: "HTTP_PROXY ignored even beside http_proxy", environment: ["HTTP_PROXY": "evil:1", "http_proxy": "h:1"], http: "h", https: nil, all: nil),
        EnvCase(name: "https_proxy", environment: ["https_proxy": "s:1"], http: nil, https: "s", all: nil),
        EnvCase(name: "HTTPS_PROXY", environment: ["HTTPS_PROXY": "S:1"], http: nil, https: "s", all: nil),
        EnvCase(name: "https_proxy wins over HTTPS_PROXY", environment: ["https_proxy": "lower:1", "HTTPS_PROXY": "upper:1"], http: nil, https: "lower", all: nil),
        EnvCase(name: "empty https_proxy falls back to HTTPS_PROXY", environment: ["https_proxy": "", "HTTPS_PROXY": "upper:1"], http: nil, https: "upper", all: nil),
        EnvCase(name: "all_proxy", environment: ["all_proxy": "a:1"], http: nil, https: nil, all: "a"),
        EnvCase(name: "ALL_PROXY", environment: ["ALL_PROXY": "A:1"], http: nil, https: nil, all: "a"),
        EnvCase(name: "all_proxy wins over ALL_PROXY", environment: ["all_proxy": "lower:1", "ALL_PROXY": "upper:1"], http: nil, https: nil, all: "lower"),
        EnvCase(name: "empty http_proxy is unset", environment: ["http_proxy": ""], http: nil, https: nil, all: nil),
        EnvCase(name: "everything", environment: ["http_proxy": "h:1", "https_proxy": "s:1", "all_proxy": "a:1"], http: "h", https: "s", all: "a"),
    ]

    @Test(arguments: environments)
    func environmentPrecedence(_ c: EnvCase) throws {
        let configuration = try ProxyConfiguration.fromEnvironment(c.environment)
        #expect(configuration.http?.host == c.http)
        #expect(configuration.https?.host == c.https)
        #expect(configuration.all?.host == c.all)
    }

    struct RouteCase: CustomTestStringConvertible, Sendable {
        let url: String
        let proxyHost: String?
        var testDescription: String { url }
    }

    static let routeEnvironment = [
        "http_proxy": "hp:3128", "HTTPS_PROXY": "sp:3128", "ALL_PROXY": "socks5h://ap",
        "no_proxy": "internal.example, 10.0.0.0/8, [::1], direct.example:8443", "NO_PROXY": "*",
    ]

    static let routes: [RouteCase] = [
        RouteCase(url: "http://example.com/f", proxyHost: "hp"),
        RouteCase(url: "https://example.com/f", proxyHost: "sp"),
        RouteCase(url: "ftp://example.com/f", proxyHost: "ap"),
        RouteCase(url: "file:///etc/passwd", proxyHost: nil),
        RouteCase(url: "https://www.internal.example/f", proxyHost: nil),
        RouteCase(url: "http://INTERNAL.example./f", proxyHost: nil),
        RouteCase(url: "http://10.9.8.7/f", proxyHost: nil),
        RouteCase(url: "http://11.9.8.7/f", proxyHost: "hp"),
        RouteCase(url: "http://[::1]:8080/f", proxyHost: nil),
        RouteCase(url: "https://direct.example:8443/f", proxyHost: nil),
        RouteCase(url: "https://direct.example/f", proxyHost: "sp"),
    ]

    @Test(arguments: routes)
    func proxyForURL(_ c: RouteCase) throws {
        let configuration = try ProxyConfiguration.fromEnvironment(Self.routeEnvironment)
        let url = try #require(URL(string: c.url))
        #expect(configuration.proxy(for: url)?.host == c.proxyHost)
    }

    @Test func schemeFallsBackToAllProxy() throws {
        let configuration = try ProxyConfiguration.fromEnvironment(["all_proxy": "socks5://a"])
        #expect(configuration.proxy(scheme: "HTTPS", host: "x", port: nil)?.kind == .socks5)
        #expect(configuration.proxy(scheme: "http", host: "x", port: 80)?.kind == .socks5)
        #expect(configuration.proxy(scheme: "data", host: "x", port: nil) == nil)
        #expect(ProxyConfiguration.direct.isDirect)
        #expect(ProxyConfiguration.direct.proxy(scheme: "http", host: "x", port: nil) == nil)
    }

    @Test func lowerCaseNoProxyWinsAndStarMeansDirect() throws {
        let upper = try ProxyConfiguration.fromEnvironment(["http_proxy": "p", "NO_PROXY": "*"])
        #expect(upper.proxy(scheme: "http", host: "x", port: nil) == nil)
        let both = try ProxyConfiguration.fromEnvironment(["http_proxy": "p", "no_proxy": "y", "NO_PROXY": "*"])
        #expect(both.proxy(scheme: "http", host: "x", port: nil)?.host == "p")
    }

    @Test(arguments: [
        (["https_proxy": "ftp://p"], "https_proxy: unsupported proxy scheme 'ftp'"),
        (["HTTPS_PROXY": "p:0"], "HTTPS_PROXY: invalid proxy port '0'"),
        (["all_proxy": "http://u:pw@p/x"], "all_proxy: proxy URL 'http://u:***@p/x' must not have a path"),
        (["NO_PROXY": "10.0.0.0/40"], "NO_PROXY: invalid no_proxy entry '10.0.0.0/40'"),
        (["http_proxy": "http://[::1"], "http_proxy: malformed proxy URL"),
    ])
    func malformedVariablesAreNamed(_ environment: [String: String], _ message: String) {
        #expect {
            _ = try ProxyConfiguration.fromEnvironment(environment)
        } throws: { error in
            "\(error)".hasPrefix(message) && !"\(error)".contains("pw")
        }
    }

    @Test func malformedUpperCaseHTTPProxyIsIgnoredToo() throws {
        #expect(try ProxyConfiguration.fromEnvironment(["HTTP_PROXY": "ftp://evil:0/x"]) == .direct)
    }
}
