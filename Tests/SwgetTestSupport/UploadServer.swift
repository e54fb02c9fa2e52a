import Crypto
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An in-process HTTP/1.1 server for upload tests: it records what each request sent (method,
/// headers, body length and SHA-256, the body itself up to `keptBodyBytes`) and can be told how
/// to treat `Expect: 100-continue` and the body, per request:
///
/// - `.read(sendContinue:)` reads the whole body (answering `100 Continue` first when asked
///   for it and `sendContinue`), then answers with the test's response;
/// - `.answerBeforeBody` answers at once, reading nothing (a 401 or a 307 to a large upload);
///   the connection then closes after the answer, as servers do with an unread body;
/// - `.closeAfter(bytes)` reads that many body bytes, then closes the connection abruptly.
///
/// Listens on 127.0.0.1 on an ephemeral port, on a thread of its own. Call `stop()` at the end.
public final class UploadServer: Sendable {
    /// What the server does with one request's body.
    public enum BodyPlan: Sendable, Equatable {
        /// Read it all, answering `Expect: 100-continue` with `100 Continue` when `sendContinue`
        /// (false: a server that ignores the expectation and just reads).
        case read(sendContinue: Bool)
        /// Answer before reading any of it (the connection closes after the answer).
        case answerBeforeBody
        /// Read this many body bytes, then close the connection without an answer.
        case closeAfter(bytes: Int)
    }

    /// One request as received.
    public struct Received: Sendable {
        public let method: String
        public let uri: String
        public let headers: [(String, String)]
        /// Body bytes read (de-chunked).
        public let bodyLength: Int
        /// Lowercase hex SHA-256 of the body bytes read.
        public let sha256: String
        /// The body, when it was at most `keptBodyBytes` long.
        public let body: [UInt8]?
        /// The body was complete (its end arrived), rather than cut or not read.
        public let complete: Bool
        public let connectionID: Int

        /// The first value of header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// The answer to a request: status, header lines, body.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// 200 with a text body `METHOD LENGTH SHA256` (what the server saw).
        public static func echo(_ received: Received) -> Reply {
            Reply(status: 200, headers: [("Content-Type", "text/plain")],
                  body: Array("\(received.method) \(received.bodyLength) \(received.sha256)".utf8))
        }
    }

    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Bodies up to this size are kept in `Received.body`.
    public static let keptBodyBytes = 16 << 20

    private let core: Core
    private let listener: Channel
    private let group: MultiThreadedEventLoopGroup

    private init(port: Int, core: Core, listener: Channel, group: MultiThreadedEventLoopGroup) {
        self.port = port
        self.core = core
        self.listener = listener
        self.group = group
    }

    /// Starts a server: `plan` decides per request head what happens to the body, `reply`
    /// answers (after the body for `.read`, at once for `.answerBeforeBody`, in which case
    /// the `Received` has no body).
    public static func start(plan: @escaping @Sendable (_ method: String, _ uri: String, _ headers: HTTPHeaders) -> BodyPlan,
                             reply: @escaping @Sendable (Received) -> Reply = Reply.echo) async throws -> UploadServer {
        let core = Core(plan: plan, reply: reply)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard let id = core.accept(channel) else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try channel.pipeline.syncOperations.addHandler(UploadServerHandler(connectionID: id, core: core))
                }
            }
        do {
            let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            return UploadServer(port: listener.localAddress?.port ?? 0, core: core, listener: listener, group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Lowercase hex SHA-256 of `bytes` (to compare with `Received.sha256`).
    public static func sha256(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    /// Every request recorded so far (when its body ended, or was given up).
    public var requests: [Received] { core.state.withLock { $0.requests } }

    /// Connections accepted so far.
    public var connectionCount: Int { core.state.withLock { $0.connections } }

    /// Closes everything and ends the server's thread. Idempotent.
    public func stop() async throws {
        guard let open = core.stop() else { return }
        try? await listener.close()
        for channel in open { try? await channel.close() }
        try await group.shutdownGracefully()
    }

    final class Core: Sendable {
        struct State {
            var requests: [Received] = []
            var connections = 0
            var open: [Int: Channel] = [:]
            var stopped = false
        }

        let plan: @Sendable (String, String, HTTPHeaders) -> BodyPlan
        let reply: @Sendable (Received) -> Reply
        let state = Mutex(State())

        init(plan: @escaping @Sendable (String, String, HTTPHeaders) -> BodyPlan, reply: @escaping @Sendable (Received) -> Reply) {
            self.plan = plan
            self.reply = reply
        }

        func accept(_ channel: Channel) -> Int? {
            let id: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                defer { state.connections += 1 }
                state.open[state.connections] = channel
                return state.connections
            }
            if let id {
                channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open.removeValue(forKey: id) } }
            }
            return id
        }

        func record(_ received: Received) { state.withLock { $0.requests.append(received) } }

        func stop() -> [Channel]? {
            state.withLock { state in
                guard !state.stopped else { return nil }
                state.stopped = true
                return Array(state.open.values)
            }
        }
    }
}

/// One connection of the upload server: one request at a time.
final class UploadServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private let connectionID: Int
    private let core: UploadServer.Core
    private var head: HTTPRequestHead?
    private var plan = UploadServer.BodyPlan.read(sendContinue: true)
    private var hasher = SHA256()
    private var length = 0
    private var kept: [UInt8] = []
    private var closed = false

    init(connectionID: Int, core: UploadServer.Core) {
        self.connectionID = connectionID
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            hasher = SHA256()
            length = 0
            kept = []
            plan = core.plan(h.method.rawValue, h.uri, h.headers)
            let expects = h.headers["expect"].contains { $0.lowercased() == "100-continue" }
            switch plan {
            case .read(let sendContinue):
                if expects && sendContinue { write(context, "HTTP/1.1 100 Continue\r\n\r\n") }
            case .answerBeforeBody:
                finish(context, complete: false, thenClose: true)
            case .closeAfter(let bytes) where bytes <= 0:
                if expects { write(context, "HTTP/1.1 100 Continue\r\n\r\n") }
                record(complete: false)
                close(context)
            case .closeAfter:
                if expects { write(context, "HTTP/1.1 100 Continue\r\n\r\n") }
            }
        case .body(let buffer):
            var buffer = buffer
            if case .closeAfter(let limit) = plan, length + buffer.readableBytes >= limit {
                buffer = buffer.getSlice(at: buffer.readerIndex, length: limit - length) ?? buffer
                take(buffer)
                record(complete: false)
                close(context)
                return
            }
            take(buffer)
        case .end:
            guard head != nil else { return }
            finish(context, complete: true, thenClose: false)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        close(context)
    }

    private func take(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        length += buffer.readableBytes
        if length <= UploadServer.keptBodyBytes { kept += buffer.readableBytesView } else { kept = [] }
    }

    private func received(complete: Bool) -> UploadServer.Received? {
        guard let head else { return nil }
        let digest = UploadServer.hex(hasher.finalize())
        return UploadServer.Received(method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                                     bodyLength: length, sha256: digest, body: length <= UploadServer.keptBodyBytes ? kept : nil,
                                     complete: complete, connectionID: connectionID)
    }

    private func record(complete: Bool) {
        guard let received = received(complete: complete) else { return }
        head = nil
        core.record(received)
    }

    private func finish(_ context: ChannelHandlerContext, complete: Bool, thenClose: Bool) {
        guard let received = received(complete: complete) else { return }
        head = nil
        core.record(received)
        let reply = core.reply(received)
        var text = "HTTP/1.1 \(reply.status) \(HTTPResponseStatus(statusCode: reply.status).reasonPhrase)\r\n"
        for (name, value) in reply.headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(reply.body.count)\r\n"
        if thenClose { text += "Connection: close\r\n" }
        text += "\r\n"
        let bytes = Array(text.utf8) + reply.body
        let written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
        if thenClose {
            closed = true
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    private func write(_ context: ChannelHandlerContext, _ text: String) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
    }

    private func close(_ context: ChannelHandlerContext) {
        closed = true
        context.close(promise: nil)
    }
}
