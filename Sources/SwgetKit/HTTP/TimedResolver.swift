import Dispatch
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// NIO's own resolver (one `getaddrinfo` off the event loop, answering both the A and the AAAA
/// query of Happy Eyeballs in one tick), with one addition: it says when the lookup ended, so
/// that ``TaskMetrics/domainLookupEnd`` is the lookup's and not the connection's. NIO's
/// `GetaddrinfoResolver` is internal; this follows it.
final class TimedResolver: Resolver, Sendable {
    private let loop: EventLoop
    private let v4: EventLoopPromise<[SocketAddress]>
    private let v6: EventLoopPromise<[SocketAddress]>
    private let resolved: @Sendable () -> Void

    init(loop: EventLoop, resolved: @escaping @Sendable () -> Void) {
        self.loop = loop
        v4 = loop.makePromise()
        v6 = loop.makePromise()
        self.resolved = resolved
    }

    /// The A results: the lookup started by the AAAA query answers both.
    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        v4.futureResult
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        DispatchQueue.global().async { self.resolve(host: host, port: port) }
        return v6.futureResult
    }

    /// getaddrinfo cannot be cancelled; the results are then simply not used.
    func cancelQueries() {}

    private func resolve(host: String, port: Int) {
        var info: UnsafeMutablePointer<addrinfo>?
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        let rc = getaddrinfo(host, String(port), &hints, &info)
        resolved()
        guard rc == 0, let first = info else {
            fail(LookupFailed(host: host, port: port, reason: rc == 0 ? "no address" : String(cString: gai_strerror(rc))))
            return
        }
        defer { freeaddrinfo(first) }
        var v4Results: [SocketAddress] = []
        var v6Results: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            next = entry.pointee.ai_next
            guard let address = entry.pointee.ai_addr else { continue }
            switch entry.pointee.ai_family {
            case AF_INET:
                v4Results.append(SocketAddress(UnsafeRawPointer(address).load(as: sockaddr_in.self), host: host))
            case AF_INET6:
                v6Results.append(SocketAddress(UnsafeRawPointer(address).load(as: sockaddr_in6.self), host: host))
            default:
                continue
            }
        }
        // Both in the same tick, as NIO does, so that no promise is left behind.
        loop.execute { [v4Results, v6Results] in
            self.v6.succeed(v6Results)
            self.v4.succeed(v4Results)
        }
    }

    /// The lookup found nothing (NIO's `SocketAddressError.UnknownHost` cannot be made outside NIO).
    struct LookupFailed: Error, CustomStringConvertible {
        let host: String
        let port: Int
        let reason: String
        var description: String { "cannot resolve \(host):\(port): \(reason)" }
    }

    private func fail(_ error: Error) {
        loop.execute {
            self.v6.fail(error)
            self.v4.fail(error)
        }
    }
}
