#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// Which addresses a session connects to (wget's and curl's `-4` and `-6`).
public enum AddressFamily: Sendable, Equatable {
    /// IPv6 and IPv4, raced as Happy Eyeballs (RFC 8305). The default.
    case any
    /// IPv4 addresses only.
    case ipv4
    /// IPv6 addresses only.
    case ipv6
}

/// A resolver for one address family: getaddrinfo on a background thread for the family asked
/// for, nothing for the other, so NIO's Happy Eyeballs connects only where it is allowed.
struct AddressFamilyResolver: Resolver, Sendable {
    let family: AddressFamily
    let eventLoop: EventLoop

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        family == .ipv6 ? eventLoop.makeSucceededFuture([]) : lookup(host, port, AF_INET)
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        family == .ipv4 ? eventLoop.makeSucceededFuture([]) : lookup(host, port, AF_INET6)
    }

    func cancelQueries() {}

    private func lookup(_ host: String, _ port: Int, _ family: Int32) -> EventLoopFuture<[SocketAddress]> {
        let promise = eventLoop.makePromise(of: [SocketAddress].self)
        NIOThreadPool.singleton.submit { _ in
            promise.succeed(Self.addresses(host, port, family))
        }
        return promise.futureResult
    }

    /// The addresses of `host` in `family`, in getaddrinfo's order (RFC 6724); empty when none.
    static func addresses(_ host: String, _ port: Int, _ family: Int32) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0 else { return [] }
        defer { freeaddrinfo(result) }
        var addresses: [SocketAddress] = []
        var entry = result
        while let info = entry?.pointee {
            if let address = info.ai_addr {
                switch info.ai_family {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        addresses.append(SocketAddress($0.pointee, host: host))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        addresses.append(SocketAddress($0.pointee, host: host))
                    }
                default:
                    break
                }
            }
            entry = info.ai_next
        }
        return addresses
    }
}
