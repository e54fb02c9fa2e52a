import ArgumentParser
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// Proxies: the environment with curl's rules (`http_proxy` in lower case only, `https_proxy`,
/// `all_proxy`, `no_proxy`), or the options.
struct ProxyOptions: ParsableArguments {
    @Option(name: .customLong("proxy"),
            help: ArgumentHelp("Use this proxy for every URL (http://, https://, socks5://, socks5h://, socks4a://; no scheme means http://).",
                               valueName: "URL"))
    var proxy: String?

    @Option(name: .customLong("noproxy"),
            help: ArgumentHelp("Connect directly to these hosts (comma list: names and their subdomains, *, addresses, CIDR ranges, :port).",
                               valueName: "LIST"))
    var noProxyList: String?

    @Flag(name: .customLong("no-proxy"), help: "Use no proxy, whatever the environment says.")
    var noProxy = false

    @Option(name: .customLong("proxy-user"),
            help: ArgumentHelp("Log in to the proxy as USER (with :PASSWORD, curl's form).", valueName: "USER[:PASSWORD]"))
    var proxyUser: String?

    @Option(name: .customLong("proxy-password"), help: ArgumentHelp("The password for --proxy-user.", valueName: "PASSWORD"))
    var proxyPassword: String?
}

extension ProxyOptions {
    /// The proxy configuration of the run; a malformed proxy URL or `no_proxy` entry is a usage
    /// error (exit 2).
    func configuration(environment: [String: String]) throws -> ProxyConfiguration? {
        guard !noProxy else { return nil }
        var configuration: ProxyConfiguration
        do {
            configuration = try ProxyConfiguration.fromEnvironment(environment)
            if let proxy {
                configuration = ProxyConfiguration(all: try Proxy(parsing: proxy), noProxy: configuration.noProxy)
            }
            if let noProxyList { configuration.noProxy = try NoProxy(parsing: noProxyList) }
        } catch {
            throw ValidationError(error.description)
        }
        if let credentials = credentials() {
            configuration.http?.credentials = credentials
            configuration.https?.credentials = credentials
            configuration.all?.credentials = credentials
        }
        return configuration.http == nil && configuration.https == nil && configuration.all == nil ? nil : configuration
    }

    /// `--proxy-user` and `--proxy-password`.
    private func credentials() -> Proxy.Credentials? {
        guard var user = proxyUser else { return nil }
        var password = proxyPassword ?? ""
        if proxyPassword == nil, let colon = user.firstIndex(of: ":") {
            password = String(user[user.index(after: colon)...])
            user = String(user[..<colon])
        }
        return Proxy.Credentials(user: user, password: password)
    }

    /// The proxy variables of the process environment (the library never reads it itself).
    static var processEnvironment: [String: String] {
        var environment: [String: String] = [:]
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }
}
