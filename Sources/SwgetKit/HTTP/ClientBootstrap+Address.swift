import NIOCore
import NIOPosix

extension ClientBootstrap {
    /// `connect(host:port:)`, except that an address (`127.0.0.1`, `::1`) is connected to at
    /// once when no address family is forced. NIO's resolver would parse it with a getaddrinfo
    /// on another thread and hand the answer back: two thread switches before the connection.
    /// With `-4`/`-6` the family's resolver decides (an address of the other family fails as
    /// unresolvable). The connect timeout and the bound local address apply either way.
    func connect(host: String, port: Int, family: AddressFamily) -> EventLoopFuture<Channel> {
        if let address = Self.address(host: host, port: port, family: family) { return connect(to: address) }
        return connect(host: host, port: port)
    }

    /// The same, for NIO's connect with an asynchronous channel initializer (the bootstrap is
    /// handed over, as NIO's own async connect takes it).
    static func connect<Output: Sendable>(_ bootstrap: sending ClientBootstrap, host: String, port: Int, family: AddressFamily,
                                          channelInitializer: @escaping @Sendable (Channel) -> EventLoopFuture<Output>) async throws -> Output {
        if let address = address(host: host, port: port, family: family) {
            return try await bootstrap.connect(to: address, channelInitializer: channelInitializer)
        }
        return try await bootstrap.connect(host: host, port: port, channelInitializer: channelInitializer)
    }

    private static func address(host: String, port: Int, family: AddressFamily) -> SocketAddress? {
        guard family == .any else { return nil }
        return try? SocketAddress(ipAddress: host, port: port)
    }
}
