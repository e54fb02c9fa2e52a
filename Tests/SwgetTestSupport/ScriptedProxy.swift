import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// An in-process HTTP proxy scripted per request, for the proxy tests that need precise control
/// of what a proxy says (a 403 or 502 to CONNECT, a 407 loop, a malformed or truncated answer)
/// and a record of exactly what it received (every request head, headers included, which
/// tinyproxy's log does not show).
///
/// It listens on 127.0.0.1 on an ephemeral port, on its own event-loop thread, over TLS when
/// given an identity (an `https://` proxy). Each request head
/// (up to 64 KiB, ending with an empty line) is recorded and handed to the script, which answers:
/// bytes written as they are (so they can be wrong on purpose), a tunnel to the CONNECT target,
/// a forward of an absolute-form request to its origin, or a plain close. Bodies of requests are
/// not read: tests send GET. Call `stop()` at the end of each test.
///
/// ```swift
/// let proxy = try await ScriptedProxy.start { head in
///     head.header("Proxy-Authorization") == nil ? .respond(ScriptedProxy.status(407, challenge: "Basic realm=\"x\""))
///                                               : .tunnel()
/// }
/// defer { Task { try await proxy.stop() } }
/// ```
public final class ScriptedProxy: Sendable {
    /// One request head as the proxy received it.
    public struct Head: Sendable {
        /// "CONNECT", "GET"...
        public let method: String
        /// `host:port` for CONNECT, the absolute URL for a forward request.
        public let target: String
        /// "HTTP/1.1" as sent.
        public let version: String
        /// Every header line, in order, names as sent.
        public let headers: [(String, String)]
        /// Which accepted connection carried it: 0, 1, 2...
        public let connectionID: Int

        /// The first value of `name`, compared case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// The request line as sent: "CONNECT localhost:8443 HTTP/1.1".
        public var requestLine: String { "\(method) \(target) \(version)" }
    }

    /// What the proxy does with one request head.
    public enum Answer: Sendable {
        /// Writes these bytes, then closes the connection.
        case respond([UInt8])
        /// Writes these bytes and waits for the next request on the same connection.
        case respondKeepingAlive([UInt8])
        /// Connects to the CONNECT target (host:port), writes `answer` (by default
        /// `HTTP/1.1 200 Connection established`), then relays bytes both ways until either side
        /// closes. A target that cannot be reached gets a 502.
        case tunnel(answer: [UInt8] = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
        /// Sends an absolute-form request on to its origin in origin form, without the
        /// `Proxy-*` fields and with `Connection: close`, and relays the answer; then closes.
        case forward
        /// Closes the connection without a word.
        case close
    }

    /// The listening port on 127.0.0.1.
    public let port: Int
    /// True when clients speak TLS to the proxy.
    public let isTLS: Bool
    private let shared: Shared
    private let listener: Channel
    private let group: MultiThreadedEventLoopGroup

    struct State {
        var heads: [Head] = []
        var connectionCount = 0
        var open: [Int: Channel] = [:]
        var originCount = 0
        var stopped = false
    }

    /// "http://127.0.0.1:PORT", or "https://localhost:PORT" over TLS (the test certificates name
    /// "localhost").
    public var url: String { isTLS ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)" }

    /// Every request head received so far, in order.
    public var heads: [Head] { shared.state.withLock { $0.heads } }

    /// TCP connections accepted so far.
    public var connectionCount: Int { shared.state.withLock { $0.connectionCount } }

    private init(port: Int, isTLS: Bool, shared: Shared, listener: Channel, group: MultiThreadedEventLoopGroup) {
        self.port = port
        self.isTLS = isTLS
        self.shared = shared
        self.listener = listener
        self.group = group
    }

    /// Starts the proxy (over TLS with `tls`); `script` is called once per request head, on the
    /// proxy's thread.
    public static func start(tls: TestCertificates.ServerIdentity? = nil,
                             _ script: @escaping @Sendable (Head) -> Answer) async throws -> ScriptedProxy {
        let shared = Shared(script: script)
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0.serverConfiguration()) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let id = shared.accept(channel) else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    if let sslContext { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext)) }
                    try channel.pipeline.syncOperations.addHandler(ScriptedProxyHandler(connectionID: id, shared: shared))
                }
            }
        let listener: Channel
        do {
            listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        return ScriptedProxy(port: listener.localAddress?.port ?? 0, isTLS: tls != nil, shared: shared, listener: listener, group: group)
    }

    /// Closes the listener and every open connection (tunnels included: a proxy that dies), and
    /// ends the proxy's thread. A second call does nothing.
    public func stop() async throws {
        let open: [Channel]? = shared.state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return Array(state.open.values)
        }
        guard let open else { return }
        try? await listener.close()
        for channel in open { try? await channel.close() }
        try await group.shutdownGracefully()
    }

    /// A complete answer: `HTTP/1.1 CODE REASON`, `Content-Length: 0` unless a body is given,
    /// `Proxy-Authenticate: challenge` when one is given, then `headers`.
    public static func status(_ code: Int, reason: String = "Scripted", challenge: String? = nil,
                              headers: [(String, String)] = [], body: String = "") -> [UInt8] {
        var text = "HTTP/1.1 \(code) \(reason)\r\n"
        if let challenge { text += "Proxy-Authenticate: \(challenge)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        return Array(text.utf8)
    }

    /// What the connections share: the script and the record.
    final class Shared: Sendable {
        let script: @Sendable (Head) -> Answer
        let state = Mutex(State())

        init(script: @escaping @Sendable (Head) -> Answer) { self.script = script }

        func accept(_ channel: Channel) -> Int? {
            let id: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                defer { state.connectionCount += 1 }
                state.open[state.connectionCount] = channel
                return state.connectionCount
            }
            if let id { channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open.removeValue(forKey: id) } } }
            return id
        }

        /// Tracks a connection to an origin, so that `stop()` closes it too.
        func track(_ channel: Channel) {
            let id: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.originCount += 1
                let id = -state.originCount
                state.open[id] = channel
                return id
            }
            guard let id else { channel.close(promise: nil); return }
            channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open.removeValue(forKey: id) } }
        }

        func record(_ head: Head) { state.withLock { $0.heads.append(head) } }
    }
}

/// One client connection of the scripted proxy: collects a head, asks the script, performs the
/// answer; after a tunnel or a forward, relays bytes (``RelayHandler``).
final class ScriptedProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connectionID: Int
    private let shared: ScriptedProxy.Shared
    private var buffer: [UInt8] = []
    /// Waiting for an origin connection: bytes are kept for it.
    private var relaying = false

    init(connectionID: Int, shared: ScriptedProxy.Shared) {
        self.connectionID = connectionID
        self.shared = shared
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer += bytes.readBytes(length: bytes.readableBytes) ?? []
        guard !relaying else { return }
        while let end = Self.headEnd(buffer) {
            let text = String(decoding: buffer[..<end], as: UTF8.self)
            buffer.removeFirst(end + 4)
            guard let head = Self.parse(text, connectionID: connectionID) else {
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: ScriptedProxy.status(400))), promise: nil)
                context.close(promise: nil)
                return
            }
            shared.record(head)
            switch shared.script(head) {
            case .respond(let answer):
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer))).whenComplete { _ in channel.close(promise: nil) }
                relaying = true  // nothing more is read
                return
            case .respondKeepingAlive(let answer):
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer)), promise: nil)
            case .close:
                relaying = true
                context.close(promise: nil)
                return
            case .tunnel(let answer):
                relaying = true
                open(to: head.target, first: answer, context: context)
                return
            case .forward:
                relaying = true
                forward(head, context: context)
                return
            }
        }
        if buffer.count > 64 * 1024 { context.close(promise: nil) }
    }

    /// Connects to `authority` (`host:port`, IPv6 in brackets), writes `first` to the client and
    /// `pending` to the origin, then relays.
    private func open(to authority: String, first: [UInt8], pending: [UInt8] = [], context: ChannelHandlerContext) {
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]) else {
            refuse(context: context)
            return
        }
        var host = String(authority[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let client = context.channel
        let shared = self.shared
        let connected = ClientBootstrap(group: context.eventLoop)
            .channelInitializer { origin in
                origin.eventLoop.makeCompletedFuture { try origin.pipeline.syncOperations.addHandler(RelayHandler(partner: client)) }
            }
            .connect(host: host, port: port)
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        connected.hop(to: loop).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .failure:
                handler.refuse(context: context)
            case .success(let origin):
                shared.track(origin)
                if !first.isEmpty { context.writeAndFlush(handler.wrapOutboundOut(ByteBuffer(bytes: first)), promise: nil) }
                let rest = pending + handler.buffer
                handler.buffer = []
                if !rest.isEmpty { origin.writeAndFlush(ByteBuffer(bytes: rest), promise: nil) }
                client.closeFuture.whenComplete { _ in origin.close(promise: nil) }
                let pipeline = context.pipeline.syncOperations
                try? pipeline.addHandler(RelayHandler(partner: origin))
                pipeline.removeHandler(context: context, promise: nil)
            }
        }
    }

    /// Sends an absolute-form request on in origin form.
    private func forward(_ head: ScriptedProxy.Head, context: ChannelHandlerContext) {
        let rest = head.target.drop { $0 != ":" }.dropFirst(3)  // after "scheme://"
        let authority = String(rest.prefix { $0 != "/" && $0 != "?" })
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty { path = "/" }
        var text = "\(head.method) \(path) \(head.version)\r\n"
        for (name, value) in head.headers {
            let lower = name.lowercased()
            if lower.hasPrefix("proxy-") || lower == "connection" { continue }
            text += "\(name): \(value)\r\n"
        }
        text += "Connection: close\r\n\r\n"
        open(to: authority.contains(":") ? authority : authority + ":80", first: [], pending: Array(text.utf8), context: context)
    }

    private func refuse(context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: ScriptedProxy.status(502, reason: "Bad Gateway"))))
            .whenComplete { _ in channel.close(promise: nil) }
    }

    /// Index of the first "\r\n\r\n".
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parse(_ text: String, connectionID: Int) -> ScriptedProxy.Head? {
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count == 3 else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmedOWS()))
        }
        return ScriptedProxy.Head(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]),
                                  headers: headers, connectionID: connectionID)
    }
}

/// Passes every byte read on this channel to `partner`; closes `partner` when this side ends.
final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: Channel

    init(partner: Channel) { self.partner = partner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

extension Substring {
    /// Without spaces and tabs at either end.
    fileprivate func trimmedOWS() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
