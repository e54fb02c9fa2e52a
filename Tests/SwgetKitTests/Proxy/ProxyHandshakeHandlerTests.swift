import NIOCore
import NIOEmbedded
import Testing
@testable import SwgetKit

@Suite("Proxy handshake handler (EmbeddedChannel)")
struct ProxyHandshakeHandlerTests {
    /// Stands for the handlers after the proxy handler (origin TLS, HTTP): records what reaches it.
    final class Downstream: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var events: [ProxyTunnelEstablishedEvent] = []
        var reads: [String] = []
        var readCompletes = 0
        var active = false

        func channelActive(context: ChannelHandlerContext) {
            active = true
            context.fireChannelActive()
        }
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ProxyTunnelEstablishedEvent { events.append(event) }
            context.fireUserInboundEventTriggered(event)
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            reads.append(String(buffer: unwrapInboundIn(data)))
        }
        func channelReadComplete(context: ChannelHandlerContext) {
            readCompletes += 1
        }
    }

    /// Sits in front of the proxy handler (towards the socket) and counts read requests.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    final class Box<T> { var value: T? }

    static func result<T>(_ future: EventLoopFuture<T>) -> Result<T, any Error>? {
        let box = Box<Result<T, any Error>>()
        future.assumeIsolated().whenComplete { box.value = $0 }
        return box.value
    }

    static func failure<T>(_ future: EventLoopFuture<T>) -> (any Error)? {
        guard case .failure(let error) = result(future) else { return nil }
        return error
    }

    struct Setup {
        let channel: EmbeddedChannel
        let handler: ProxyHandshakeHandler
        let downstream: Downstream
        let counter: ReadCounter
    }

    static func setup(_ machine: some ProxyHandshakeMachine, timeout: TimeAmount? = nil, connect: Bool = true) throws -> Setup {
        let channel = EmbeddedChannel()
        let handler = ProxyHandshakeHandler(machine: machine, eventLoop: channel.eventLoop, timeout: timeout)
        let downstream = Downstream()
        let counter = ReadCounter()
        try channel.pipeline.syncOperations.addHandlers([counter, handler, downstream])
        if connect { try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait() }
        return Setup(channel: channel, handler: handler, downstream: downstream, counter: counter)
    }

    static func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
    static func outbound(_ channel: EmbeddedChannel) throws -> String? {
        try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) }
    }

    static let connectRequest = "CONNECT origin.example:443 HTTP/1.1\r\nHost: origin.example:443\r\n\r\n"
    static func connect() throws -> HTTPConnectHandshake { try HTTPConnectHandshake(host: "origin.example", port: 443) }

    // MARK: CONNECT

    @Test func connectEstablishesBuffersAndGetsOutOfTheWay() throws {
        let s = try Self.setup(try Self.connect())
        #expect(try Self.outbound(s.channel) == Self.connectRequest)
        #expect(s.downstream.active)
        #expect(Self.result(s.handler.tunnel) == nil)

        // The origin's first bytes (a TLS ClientHello, say) wait for the tunnel, order kept.
        s.channel.write(Self.buffer("A"), promise: nil)
        s.channel.writeAndFlush(Self.buffer("B"), promise: nil)
        s.channel.write(Self.buffer("C"), promise: nil)
        #expect(try Self.outbound(s.channel) == nil)

        try s.channel.writeInbound(Self.buffer("HTTP/1.1 200 Connection established\r\nVia: 1.1 squid\r\n\r\nSERVERHELLO"))
        guard case .success(.httpConnect(let head)) = Self.result(s.handler.tunnel) else {
            Issue.record("tunnel not established")
            return
        }
        #expect(head.statusLine == "HTTP/1.1 200 Connection established")
        #expect(head.headers["via"] == "1.1 squid")
        #expect(s.downstream.events == [ProxyTunnelEstablishedEvent(tunnel: .httpConnect(head))])
        #expect(s.downstream.reads == ["SERVERHELLO"])
        #expect(s.downstream.readCompletes == 1)
        #expect(try Self.outbound(s.channel) == "A")
        #expect(try Self.outbound(s.channel) == "B")
        #expect(try Self.outbound(s.channel) == nil)  // C was never flushed
        s.channel.flush()
        #expect(try Self.outbound(s.channel) == "C")
        #expect(throws: (any Error).self) { try s.channel.pipeline.syncOperations.handler(type: ProxyHandshakeHandler.self) }

        // After removal bytes flow straight through.
        try s.channel.writeInbound(Self.buffer("DATA"))
        try s.channel.writeAndFlush(Self.buffer("REQ")).wait()
        #expect(s.downstream.reads == ["SERVERHELLO", "DATA"])
        #expect(try Self.outbound(s.channel) == "REQ")
        #expect(try s.channel.finish().isClean)
    }

    @Test func answerDeliveredByteByByte() throws {
        let s = try Self.setup(try Self.connect())
        _ = try Self.outbound(s.channel)
        let answer = Array("HTTP/1.0 200 OK\r\n\r\n".utf8)
        for byte in answer.dropLast() {
            try s.channel.writeInbound(ByteBuffer(bytes: [byte]))
            #expect(Self.result(s.handler.tunnel) == nil)
        }
        try s.channel.writeInbound(ByteBuffer(bytes: [answer[answer.count - 1]]))
        #expect(Self.result(s.handler.tunnel) != nil)
        #expect(s.downstream.reads.isEmpty)
        #expect(s.downstream.readCompletes == 1)
        _ = try s.channel.finish()
    }

    @Test func proxyAuthenticationRequiredFailsEverythingAndCloses() throws {
        let s = try Self.setup(try Self.connect())
        _ = try Self.outbound(s.channel)
        let write = s.channel.writeAndFlush(Self.buffer("ClientHello"))
        #expect {
            try s.channel.writeInbound(Self.buffer("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"squid\"\r\n\r\n"))
        } throws: { error in
            (error as? ProxyHandshakeError)?.isAuthenticationFailure == true
        }
        guard case .proxyAuthenticationRequired(let head) = Self.failure(s.handler.tunnel) as? ProxyHandshakeError else {
            Issue.record("expected a 407 failure")
            return
        }
        #expect(head.proxyAuthenticate == ["Basic realm=\"squid\""])
        #expect(Self.failure(write) as? ProxyHandshakeError == .proxyAuthenticationRequired(head))
        #expect(!s.channel.isActive)
        #expect(s.downstream.reads.isEmpty)
        #expect(try Self.outbound(s.channel) == nil)
    }

    @Test func refusalAndGarbageAreErrors() throws {
        for (answer, expected) in [
            ("HTTP/1.1 502 Bad Gateway\r\n\r\n", "the proxy refused CONNECT: HTTP/1.1 502 Bad Gateway"),
            ("garbage\n", "malformed proxy answer: not an HTTP/1.x status line: 'garbage'"),
        ] {
            let s = try Self.setup(try Self.connect())
            _ = try Self.outbound(s.channel)
            #expect(throws: ProxyHandshakeError.self) { try s.channel.writeInbound(Self.buffer(answer)) }
            #expect(Self.failure(s.handler.tunnel).map { "\($0)" } == expected)
            #expect(!s.channel.isActive)
        }
    }

    @Test func proxyClosingMidAnswer() throws {
        let s = try Self.setup(try Self.connect())
        _ = try Self.outbound(s.channel)
        let write = s.channel.writeAndFlush(Self.buffer("x"))
        try s.channel.writeInbound(Self.buffer("HTTP/1.1 200"))
        s.channel.pipeline.fireChannelInactive()
        #expect(Self.failure(s.handler.tunnel) as? ProxyHandshakeError
            == .connectionClosed("in the middle of its answer to CONNECT origin.example:443 (12 bytes received)"))
        #expect(Self.failure(write) != nil)
    }

    @Test func timeoutClosesTheChannel() throws {
        let s = try Self.setup(try Self.connect(), timeout: .seconds(10))
        _ = try Self.outbound(s.channel)
        s.channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(Self.result(s.handler.tunnel) == nil)
        s.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(Self.failure(s.handler.tunnel) as? ProxyHandshakeError == .timedOut)
        #expect(!s.channel.isActive)
    }

    @Test func timeoutIsCancelledOnSuccess() throws {
        let s = try Self.setup(try Self.connect(), timeout: .seconds(10))
        _ = try Self.outbound(s.channel)
        try s.channel.writeInbound(Self.buffer("HTTP/1.1 200 OK\r\n\r\n"))
        s.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(s.channel.isActive)
        #expect(try s.channel.finish().isClean)
    }

    @Test func errorFromAnEarlierHandlerIsPassedOnAsIs() throws {
        struct TLSBroke: Error, Equatable {}
        let s = try Self.setup(try Self.connect())
        _ = try Self.outbound(s.channel)
        s.channel.pipeline.fireErrorCaught(TLSBroke())
        #expect(Self.failure(s.handler.tunnel) as? TLSBroke == TLSBroke())
        #expect(throws: TLSBroke.self) { try s.channel.throwIfErrorCaught() }
    }

    @Test func startsWhenAddedToAnActiveChannel() throws {
        let s = try Self.setup(try Self.connect(), connect: false)
        #expect(try Self.outbound(s.channel) == nil)
        try s.channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait()
        #expect(try Self.outbound(s.channel) == Self.connectRequest)
        _ = try s.channel.finish(acceptAlreadyClosed: true)

        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait()
        let late = ProxyHandshakeHandler(machine: try Self.connect(), eventLoop: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(late)
        #expect(try Self.outbound(channel) == Self.connectRequest)
        try channel.writeInbound(Self.buffer("HTTP/1.1 200 OK\r\n\r\n"))
        #expect(Self.result(late.tunnel) != nil)
        #expect(try channel.finish().isClean)
    }

    @Test func removedBeforeTheHandshakeStillCompletesTheFuture() throws {
        let s = try Self.setup(try Self.connect(), connect: false)
        _ = try s.channel.finish(acceptAlreadyClosed: true)
        #expect(Self.failure(s.handler.tunnel) as? ProxyHandshakeError
            == .connectionClosed("before the proxy handshake finished (handler removed)"))
    }

    @Test func readsAreDrivenByTheHandshakeAndRestoredAfterwards() throws {
        let s = try Self.setup(try Self.connect())
        _ = try Self.outbound(s.channel)
        let afterStart = s.counter.reads
        #expect(afterStart >= 1)
        s.channel.read()  // a later handler asks to read during the handshake: remembered
        #expect(s.counter.reads == afterStart)
        try s.channel.writeInbound(Self.buffer("HTTP/1.1 200 OK\r\n"))
        #expect(s.counter.reads == afterStart + 1)  // more of the answer is needed
        try s.channel.writeInbound(Self.buffer("\r\n"))
        #expect(s.counter.reads == afterStart + 2)  // the remembered read, issued for the later handler
        s.channel.read()
        #expect(s.counter.reads == afterStart + 3)
        #expect(try s.channel.finish().isClean)
    }

    // MARK: SOCKS through the same handler

    @Test func socks5WithAuthenticationThroughTheHandler() throws {
        let target = try SOCKSTarget(host: "origin.example", port: 443)
        let machine = try SOCKS5Handshake(target: target, credentials: Proxy.Credentials(user: "u", password: "p"))
        let s = try Self.setup(machine)
        #expect(try s.channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(bytes: [5, 2, 0, 2]))
        s.channel.writeAndFlush(Self.buffer("ClientHello"), promise: nil)
        try s.channel.writeInbound(ByteBuffer(bytes: [5, 2]))
        #expect(try s.channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(bytes: [1, 1, 0x75, 1, 0x70]))
        try s.channel.writeInbound(ByteBuffer(bytes: [1, 0]))
        #expect(try s.channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(bytes: [5, 1, 0, 3, 14] + Array("origin.example".utf8) + [1, 0xBB]))
        try s.channel.writeInbound(ByteBuffer(bytes: [5, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x16]))
        #expect(Self.result(s.handler.tunnel).flatMap { try? $0.get() } == .socks)
        #expect(try Self.outbound(s.channel) == "ClientHello")
        #expect(s.downstream.reads == ["\u{16}"])
        #expect(try s.channel.finish().isClean)
    }

    @Test func socks5FailureInWords() throws {
        let s = try Self.setup(try SOCKS5Handshake(target: try SOCKSTarget(host: "10.0.0.9", port: 80)))
        _ = try s.channel.readOutbound(as: ByteBuffer.self)
        try s.channel.writeInbound(ByteBuffer(bytes: [5, 0]))
        _ = try s.channel.readOutbound(as: ByteBuffer.self)
        #expect(throws: ProxyHandshakeError.socks5ConnectFailed(reply: 5)) { try s.channel.writeInbound(ByteBuffer(bytes: [5, 5])) }
        #expect(Self.failure(s.handler.tunnel).map { "\($0)" } == "SOCKS5 proxy: connection refused")
        #expect(!s.channel.isActive)
    }

    @Test func convenienceInitialiserPicksTheMachine() throws {
        let channel = EmbeddedChannel()
        let proxy = try Proxy(parsing: "http://u:p@proxy:3128")
        let handler = try ProxyHandshakeHandler(proxy: proxy, targetHost: "h", targetPort: 443, userAgent: "swget/1", eventLoop: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 3128)).wait()
        #expect(try Self.outbound(channel) == "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\nProxy-Authorization: Basic dTpw\r\nUser-Agent: swget/1\r\n\r\n")
        #expect(throws: ProxyHandshakeError.self) {
            try ProxyHandshakeHandler(proxy: Proxy(kind: .socks5, host: "p"), targetHost: "name.example", targetPort: 1, eventLoop: channel.eventLoop)
        }
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
