#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Connections through a proxy: `[TLS to an https proxy] → [CONNECT or SOCKS handshake, removed
/// when the tunnel is up] → [TLS to the origin] → HTTP`. The origin's TLS (SNI, verification and
/// the trust challenge) is exactly as without a proxy; the proxy's own TLS is verified against
/// the proxy's name.
extension HTTPConnection {
    static func connect(host: String, origin: Origin, settings: Settings, route: ProxyRoute,
                        on eventLoop: EventLoop) async throws(SessionError) -> HTTPConnection {
        let proxy = route.proxy
        let trustFailure = TrustFailureBox()
        let handshakeFailure = TLSHandshakeFailure.Box()
        let proxyTrustFailure = TrustFailureBox()
        let proxyHandshakeFailure = TLSHandshakeFailure.Box()
        let bootstrap = settings.bootstrap(on: eventLoop)
        let connected: (Channel, EventLoopFuture<ProxyTunnel>?)
        do {
            connected = try await ClientBootstrap.connect(bootstrap, host: proxy.host, port: proxy.port, family: settings.addressFamily) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if proxy.kind == .https, let tls = route.tls {
                        try sync.addHandlers(try tls.makeHandlers(host: proxy.host, port: proxy.port, trustFailure: proxyTrustFailure,
                                                                  handshakeFailure: proxyHandshakeFailure, firstHandshake: nil))
                    }
                    var tunnel: EventLoopFuture<ProxyTunnel>?
                    if route.tunnel {
                        let handshake = try ProxyHandshakeHandler(proxy: proxy, targetHost: route.tunnelHost, targetPort: origin.port,
                                                                  proxyAuthorization: route.authorization, userAgent: route.userAgent,
                                                                  eventLoop: channel.eventLoop, timeout: settings.connectTimeout)
                        try sync.addHandler(handshake)
                        tunnel = handshake.tunnel
                    }
                    // The origin's TLS only inside a tunnel; a forward proxy speaks plain http to us.
                    var inner = settings
                    if !route.tunnel { inner.tls = nil }
                    try configurePipeline(channel: channel, host: host, port: origin.port, settings: inner, trustFailure: trustFailure,
                                          handshakeFailure: handshakeFailure, firstHandshake: nil)
                    return (channel, tunnel)
                }
            }
        } catch let error as ProxyHandshakeError {
            throw proxyError(error, proxy: proxy)
        } catch {
            throw proxyConnectError(error, proxy: proxy)
        }
        let (channel, tunnel) = connected
        var tunnelResponse: Response?
        if let tunnel {
            do {
                if case .httpConnect(let head) = try await tunnel.get() { tunnelResponse = response(head, proxy: proxy) }
            } catch {
                channel.close(promise: nil)
                if let handshake = error as? ProxyHandshakeError { throw proxyError(handshake, proxy: proxy) }
                if let reason = proxyTrustFailure.reason {
                    throw SessionError.tlsUntrusted.with("proxy \(proxy): certificate not trusted: \(reason)")
                }
                if let failure = proxyHandshakeFailure.error {
                    throw failure.with("proxy \(proxy): \(failure.message)")
                }
                if error is NIOSSLError || error is BoringSSLError {
                    throw SessionError.tlsHandshake.with("TLS handshake with proxy \(proxy) failed: \(error)")
                }
                throw SessionError.connectionClosed.with("proxy \(proxy): \(error)")
            }
        }
        do {
            let handler = try await channel.eventLoop.submit {
                NIOLoopBound(try channel.pipeline.syncOperations.handler(type: HTTPClientHandler.self), eventLoop: channel.eventLoop)
            }.get()
            return HTTPConnection(channel: channel, origin: origin, handler: handler, tunnelResponse: tunnelResponse)
        } catch {
            channel.close(promise: nil)
            if let reason = trustFailure.reason { throw SessionError.tlsUntrusted.with("certificate not trusted: \(reason)") }
            throw handshakeFailure.error ?? SessionError.connectionClosed.with("connection through proxy \(proxy) closed during setup")
        }
    }

    /// A proxy that cannot be reached: exit 4 naming the proxy.
    private static func proxyConnectError(_ error: Error, proxy: Proxy) -> SessionError {
        let base = connectError(error, host: proxy.host, port: proxy.port)
        return base.with("proxy \(proxy): \(base.message)")
    }

    /// A handshake the proxy refused or broke.
    static func proxyError(_ error: ProxyHandshakeError, proxy: Proxy) -> SessionError {
        let text = "proxy \(proxy): \(DisplayText.sanitize(error.description))"
        switch error {
        case .proxyAuthenticationRequired(let head):
            return SessionError.proxyAuthenticationRequired.with(text).responding(response(head, proxy: proxy))
        case .connectRefused(let head) where error.isAuthenticationFailure:
            return SessionError.authenticationFailed.with(text).responding(response(head, proxy: proxy))
        case .connectRefused(let head):
            return SessionError.httpStatus.with(text).responding(response(head, proxy: proxy))
        case .socksAuthenticationFailed, .socksNoAcceptableMethod:
            return SessionError.authenticationFailed.with(text)
        case .malformedResponse:
            return SessionError.badResponse.with(text)
        case .invalidTarget:
            return SessionError.unsupportedURL.with(text)
        case .connectionClosed, .timedOut, .socks5ConnectFailed, .socks4ConnectFailed:
            return SessionError.connectFailed.with(text)
        }
    }

    /// The proxy's answer to CONNECT as a response value (for -S and for 407 challenges).
    static func response(_ head: HTTPConnectHandshake.ResponseHead, proxy: Proxy) -> Response {
        let url = URL(string: "\(proxy.kind == .https ? "https" : "http")://\(proxy.hostForURL):\(proxy.port)/")
            ?? URL(filePath: "/")
        return Response(url: url, statusCode: head.status, reasonPhrase: head.reasonPhrase, httpVersion: head.version,
                        headers: head.headers, expectedContentLength: nil)
    }
}
