import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// An in-process HTTP/1.1 server (optionally HTTPS) for tests, scripted per request.
///
/// It listens on 127.0.0.1 (and, when it can, ::1 on the same port) on an ephemeral port.
/// Requests are parsed by NIOHTTP1; responses are formatted by hand from `TestResponse`, so they
/// can be wrong on purpose. Call `stop()` at the end of each test.
///
/// Each server runs on its own event-loop thread, so a test's server never waits behind the
/// sessions and servers of the tests running beside it (they share the process's two-thread
/// singleton group, which a busy test can hold for seconds).
public final class TestServer: Sendable {
    /// The listening port.
    public let port: Int
    /// "http://127.0.0.1:PORT", or "https://localhost:PORT" with TLS (the test certificates name
    /// "localhost").
    public let baseURL: String

    private let core: Core
    private let listeners: [Channel]
    private let group: MultiThreadedEventLoopGroup

    private init(port: Int, baseURL: String, core: Core, listeners: [Channel], group: MultiThreadedEventLoopGroup) {
        self.port = port
        self.baseURL = baseURL
        self.core = core
        self.listeners = listeners
        self.group = group
    }

    /// Starts a server. `handler` is called once per request, on one of the server's threads.
    public static func start(
        tls: TestCertificates.ServerIdentity? = nil,
        handler: @escaping @Sendable (TestRequest) -> TestResponse
    ) async throws -> TestServer {
        let core = Core(handler: handler)
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0.serverConfiguration()) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let id = core.accept(channel) else {
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let sslContext {
                        try pipeline.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try pipeline.addHandler(TestServerHandler(connectionID: id, core: core))
                }
            }
        let v4: Channel
        do {
            v4 = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let port = v4.localAddress?.port ?? 0
        var listeners = [v4]
        // Best effort, so that "localhost" works whichever address the client tries first.
        if let v6 = try? await bootstrap.bind(host: "::1", port: port).get() {
            listeners.append(v6)
        }
        let baseURL = tls == nil ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)"
        return TestServer(port: port, baseURL: baseURL, core: core, listeners: listeners, group: group)
    }

    /// Every request received so far, in the order they were completed.
    public var requests: [TestRequest] {
        core.state.withLock { $0.requests }
    }

    /// TCP connections accepted so far.
    public var connectionCount: Int {
        core.state.withLock { $0.connectionCount }
    }

    /// Closes the listeners and every open connection, stalled ones included, and ends the
    /// server's thread. A second call does nothing.
    public func stop() async throws {
        guard let open = core.stop() else { return }
        for listener in listeners {
            try await Self.close(listener)
        }
        for channel in open {
            try await Self.close(channel)
        }
        try await group.shutdownGracefully()
    }

    private static func close(_ channel: Channel) async throws {
        do {
            try await channel.close()
        } catch ChannelError.alreadyClosed {
            // Closed by the peer or by the response in the meantime.
        }
    }
}

extension TestServer {
    /// What the connections share: the test's handler and the record of what happened.
    final class Core: Sendable {
        struct State {
            var requests: [TestRequest] = []
            var connectionCount = 0
            var open: [Int: Channel] = [:]
            var stopped = false
        }

        let handler: @Sendable (TestRequest) -> TestResponse
        let state = Mutex(State())

        init(handler: @escaping @Sendable (TestRequest) -> TestResponse) {
            self.handler = handler
        }

        /// Numbers a new connection and tracks it until it closes; nil once the server stops.
        func accept(_ channel: Channel) -> Int? {
            let id: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                let id = state.connectionCount
                state.connectionCount += 1
                state.open[id] = channel
                return id
            }
            if let id {
                channel.closeFuture.whenComplete { _ in
                    self.state.withLock { _ = $0.open.removeValue(forKey: id) }
                }
            }
            return id
        }

        func record(_ request: TestRequest) {
            state.withLock { $0.requests.append(request) }
        }

        /// Refuses new connections and returns the open ones.
        /// The connections still open, or nil when the server was already stopped.
        func stop() -> [Channel]? {
            state.withLock { state in
                guard !state.stopped else { return nil }
                state.stopped = true
                return Array(state.open.values)
            }
        }
    }
}
