import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
@testable import SwgetKit

/// `SessionConfiguration.dnsTimeout`: a lookup that does not answer in time fails the
/// connection as a timeout naming the host, on an embedded loop's clock.
@Suite("DNS timeout (DeadlineResolver)")
struct DeadlineResolverTests {
    /// A resolver whose queries answer only when told to.
    final class HeldResolver: Resolver, Sendable {
        let loop: EventLoop
        let held = NIOLockedValueBox<[EventLoopPromise<[SocketAddress]>]>([])
        init(loop: EventLoop) { self.loop = loop }

        func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> { hold() }
        func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> { hold() }
        func cancelQueries() { answer(.failure(ChannelError.ioOnClosedChannel)) }

        private func hold() -> EventLoopFuture<[SocketAddress]> {
            let promise = loop.makePromise(of: [SocketAddress].self)
            held.withLockedValue { $0.append(promise) }
            return promise.futureResult
        }

        func answer(_ result: Result<[SocketAddress], Error>) {
            for promise in held.withLockedValue({ promises in defer { promises = [] }; return promises }) {
                promise.completeWith(result)
            }
        }
    }

    @Test func aQueryNotAnsweredInTimeFails() throws {
        let loop = EmbeddedEventLoop()
        let base = HeldResolver(loop: loop)
        let resolver = DeadlineResolver(base: base, timeout: .seconds(2), loop: loop)
        let results = NIOLockedValueBox<[Result<[SocketAddress], Error>]>([])
        resolver.initiateAQuery(host: "slow.example", port: 80).whenComplete { result in results.withLockedValue { $0.append(result) } }
        loop.advanceTime(by: .milliseconds(1999))
        #expect(results.withLockedValue { $0.isEmpty })
        loop.advanceTime(by: .milliseconds(1))
        let outcome = try #require(results.withLockedValue { $0.first })
        guard case .failure(let error) = outcome, let late = error as? DeadlineResolver.TimedOut else {
            Issue.record("expected a timeout, got \(outcome)")
            return
        }
        #expect(late.host == "slow.example")
        #expect(late.description == "looking up 'slow.example' took longer than 2 s")
        // The late answer changes nothing.
        base.answer(.success([try SocketAddress(ipAddress: "192.0.2.1", port: 80)]))
        #expect(results.withLockedValue { $0.count } == 1)
        try loop.syncShutdownGracefully()
    }

    @Test func anAnswerInTimePassesThrough() throws {
        let loop = EmbeddedEventLoop()
        let base = HeldResolver(loop: loop)
        let resolver = DeadlineResolver(base: base, timeout: .seconds(2), loop: loop)
        let results = NIOLockedValueBox<[Result<[SocketAddress], Error>]>([])
        resolver.initiateAAAAQuery(host: "quick.example", port: 443).whenComplete { result in results.withLockedValue { $0.append(result) } }
        loop.advanceTime(by: .seconds(1))
        let address = try SocketAddress(ipAddress: "2001:db8::1", port: 443)
        base.answer(.success([address]))
        loop.advanceTime(by: .seconds(5))
        let outcomes = results.withLockedValue { $0 }
        #expect(outcomes.count == 1)
        guard case .success(let addresses)? = outcomes.first else {
            Issue.record("expected the addresses, got \(outcomes)")
            return
        }
        #expect(addresses == [address])
        try loop.syncShutdownGracefully()
    }

    @Test(arguments: [(TimeAmount.milliseconds(1500), "1.5 s"), (.seconds(30), "30 s"), (.milliseconds(250), "0.25 s")])
    func secondsAreWrittenPlainly(_ amount: TimeAmount, _ text: String) {
        #expect(DeadlineResolver.TimedOut.seconds(amount) == text)
    }

    /// Through NIO's Happy Eyeballs: both queries time out, and the connection error says so.
    @Test func aConnectionWhoseLookupTimesOutIsATimeout() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let base = HeldResolver(loop: loop)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.seconds(600))
            .resolver(DeadlineResolver(base: base, timeout: .milliseconds(50), loop: loop))
        var failure: SessionError?
        do {
            let channel = try await bootstrap.connect(host: "stalled.invalid", port: 80).get()
            try await channel.close()
        } catch {
            failure = HTTPConnection.connectError(error, host: "stalled.invalid", port: 80)
        }
        #expect(failure == SessionError.timedOut)
        #expect(failure?.message == "looking up 'stalled.invalid' took longer than 0.05 s")
        base.answer(.failure(ChannelError.ioOnClosedChannel))
        try await group.shutdownGracefully()
    }
}
