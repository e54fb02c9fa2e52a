#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// How a request reaches its origin: directly, or through the proxy the configuration names for
/// its URL (a tunnel for https and for SOCKS, absolute-form requests for plain http through an
/// http(s) proxy). Connections are pooled per (proxy, origin).
struct ConnectionPlan: Sendable {
    let target: HTTPTarget
    let key: PoolKey
    let settings: HTTPConnection.Settings
    /// Requests go to a forward proxy in absolute form (`GET http://host/path`).
    let absoluteForm: Bool
    /// `Proxy-Authorization` for absolute-form requests.
    let proxyAuthorization: String?

    /// The plan for `request` of `task`; `proxyAuthorization` answers an earlier 407.
    static func make(for request: Request, task: SessionTask, proxyAuthorization: String?) async throws(SessionError) -> ConnectionPlan {
        let target = try HTTPTarget(request.url)
        let session = task.session
        var settings = try session.connectionSettings(for: target.origin, task: task)
        guard let proxy = session.configuration.proxy?.proxy(for: request.url) else {
            return ConnectionPlan(target: target, key: PoolKey(origin: target.origin), settings: settings,
                                  absoluteForm: false, proxyAuthorization: nil)
        }
        let tunnel = proxy.needsTunnel(toScheme: target.origin.scheme)
        let authorization = proxyAuthorization ?? proxy.credentials?.basicAuthorization
        var tunnelHost = target.host
        if tunnel && proxy.kind.resolvesOriginLocally && !TrustEvaluator.isIPLiteral(target.host) {
            tunnelHost = try await resolve(target.host)
        }
        var route = HTTPConnection.ProxyRoute(proxy: proxy, tunnel: tunnel, authorization: authorization,
                                              userAgent: session.configuration.defaultHeaders["User-Agent"], tunnelHost: tunnelHost)
        if proxy.kind == .https {
            // The proxy's own TLS: the session's roots and trust challenge, for the proxy's name;
            // a pinned key is the origin's, never the proxy's (curl's --pinnedpubkey).
            route.tls = try session.tlsConnector(for: task, pinned: false)
        }
        settings.route = route
        return ConnectionPlan(target: target, key: PoolKey(origin: target.origin, proxy: proxy.description), settings: settings,
                              absoluteForm: !tunnel, proxyAuthorization: tunnel ? nil : authorization)
    }

    /// The first address of `host`, for `socks5://` and `socks4://` (which carry addresses).
    static func resolve(_ host: String) async throws(SessionError) -> String {
        let resolved = await Task.detached {
            AddressFamilyResolver.addresses(host, 0, AF_UNSPEC).first?.ipAddress
        }.value
        guard let resolved else { throw SessionError.unresolvableHost.with("unable to resolve host address '\(host)'") }
        return resolved
    }
}
