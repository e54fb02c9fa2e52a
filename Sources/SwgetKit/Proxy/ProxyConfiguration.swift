#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which proxy, if any, each request uses: the connection proxy dictionary of Apple's URL Loading
/// System (NSURLSessionConfiguration's `connectionProxyDictionary`) as a typed value.
///
/// Per-scheme proxies come first, then the all-schemes fallback; `noProxy` lists the hosts that
/// are always reached directly. The library never reads the process environment by itself: pass
/// `ProcessInfo.processInfo.environment` (or a test dictionary) to `fromEnvironment`.
public struct ProxyConfiguration: Sendable, Equatable {
    /// The proxy for `http://` URLs.
    public var http: Proxy?
    /// The proxy for `https://` URLs.
    public var https: Proxy?
    /// The proxy for every network scheme without a proxy of its own (curl's `all_proxy`).
    public var all: Proxy?
    /// Hosts that bypass every proxy above.
    public var noProxy: NoProxy

    /// A configuration from its parts; everything nil means direct connections.
    public init(http: Proxy? = nil, https: Proxy? = nil, all: Proxy? = nil, noProxy: NoProxy = NoProxy()) {
        self.http = http
        self.https = https
        self.all = all
        self.noProxy = noProxy
    }

    /// No proxy at all: every connection is direct.
    public static let direct = ProxyConfiguration()

    /// True when no proxy is configured.
    public var isDirect: Bool { http == nil && https == nil && all == nil }

    /// Reads curl's variables from `environment`:
    /// - `http_proxy`, lower case only: an upper-case `HTTP_PROXY` can be set by a client through
    ///   a CGI request header (`Proxy:`, the "httpoxy" attack), so it is ignored;
    /// - `https_proxy`, else `HTTPS_PROXY`; `all_proxy`, else `ALL_PROXY`;
    /// - `no_proxy`, else `NO_PROXY`.
    /// Lower case wins when both are set; an empty value counts as unset (curl's `curl_getenv`).
    /// A malformed value throws `.environment(variable:, …)` naming the variable.
    public static func fromEnvironment(_ environment: [String: String]) throws(ProxyConfigurationError) -> ProxyConfiguration {
        func value(_ names: String...) -> (name: String, text: String)? {
            for name in names {
                if let text = environment[name], !text.isEmpty { return (name, text) }
            }
            return nil
        }
        func proxy(_ names: String...) throws(ProxyConfigurationError) -> Proxy? {
            var found: (name: String, text: String)?
            for name in names where found == nil { found = value(name) }
            guard let found else { return nil }
            do {
                return try Proxy(parsing: found.text)
            } catch {
                throw .environment(variable: found.name, error)
            }
        }
        var configuration = ProxyConfiguration()
        configuration.http = try proxy("http_proxy")
        configuration.https = try proxy("https_proxy", "HTTPS_PROXY")
        configuration.all = try proxy("all_proxy", "ALL_PROXY")
        if let list = value("no_proxy", "NO_PROXY") {
            do {
                configuration.noProxy = try NoProxy(parsing: list.text)
            } catch {
                throw .environment(variable: list.name, error)
            }
        }
        return configuration
    }

    /// The proxy for `url`, or nil to connect directly: `file:` and `data:` URLs and URLs
    /// without a host never use one.
    public func proxy(for url: URL) -> Proxy? {
        guard let scheme = url.scheme, let host = url.host(percentEncoded: false), !host.isEmpty else { return nil }
        return proxy(scheme: scheme, host: host, port: url.port)
    }

    /// The proxy for a request to `scheme://host:port` (`port` nil: the scheme's default).
    /// `http` uses `http` then `all`; `https` uses `https` then `all`; other network schemes
    /// (ftp, ws...) use `all`; `file` and `data` none. A host in `noProxy` goes direct.
    public func proxy(scheme: String, host: String, port: Int?) -> Proxy? {
        let scheme = scheme.lowercased()
        let chosen: Proxy?
        switch scheme {
        case "http": chosen = http ?? all
        case "https": chosen = https ?? all
        case "file", "data": chosen = nil
        default: chosen = all
        }
        guard let chosen else { return nil }
        let effectivePort = port ?? Self.defaultPort(scheme: scheme)
        return noProxy.matches(host: host, port: effectivePort) ? nil : chosen
    }

    /// The scheme's well-known port (0 when unknown, which only port-limited entries notice).
    static func defaultPort(scheme: String) -> Int {
        switch scheme {
        case "http", "ws": return 80
        case "https", "wss": return 443
        case "ftp": return 21
        case "ftps": return 990
        default: return 0
        }
    }
}

/// A proxy setting that cannot be used; the CLI reports it as a usage error (exit 2).
/// Messages never contain a password.
public indirect enum ProxyConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The proxy URL (password masked) cannot be parsed.
    case malformedProxyURL(String, reason: String)
    /// The proxy URL names a scheme swget does not speak.
    case unsupportedScheme(String)
    /// The port is not a number from 1 to 65535.
    case invalidPort(String)
    /// The proxy URL (password masked) has a path, query or fragment.
    case unexpectedPath(String)
    /// A `no_proxy` entry is malformed.
    case invalidNoProxyEntry(String, reason: String)
    /// The error came from this environment variable.
    case environment(variable: String, ProxyConfigurationError)

    /// One line for the user, naming the variable or entry at fault.
    public var description: String {
        switch self {
        case .malformedProxyURL(let text, let reason):
            return "malformed proxy URL '\(text)': \(reason)"
        case .unsupportedScheme(let scheme):
            return "unsupported proxy scheme '\(scheme)' (use http, https, socks4, socks4a, socks5 or socks5h)"
        case .invalidPort(let text):
            return "invalid proxy port '\(text)' (1 to 65535)"
        case .unexpectedPath(let text):
            return "proxy URL '\(text)' must not have a path, query or fragment"
        case .invalidNoProxyEntry(let entry, let reason):
            return "invalid no_proxy entry '\(entry)': \(reason)"
        case .environment(let variable, let error):
            return "\(variable): \(error)"
        }
    }
}
