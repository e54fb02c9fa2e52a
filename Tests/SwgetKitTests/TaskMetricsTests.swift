import Foundation
import Synchronization
import Testing
import SwgetTestSupport
@testable import SwgetKit

/// ``TaskMetrics``: recorded at the edges of a transfer, in order, and counted over its hops.
@Suite("Task metrics")
struct TaskMetricsTests {
    final class Collector: SessionDelegate {
        let debug = Mutex<[String]>([])
        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            guard case .debug(let event) = event else { return }
            let line: String = switch event {
            case .connected(let host, _, let address, _): "connected \(host) \(address ?? "-")"
            case .reusingConnection(let host, _): "reused \(host)"
            case .requestSent(let method, let target, _, let headers): "sent \(method) \(target) \(headers["Host"] ?? "")"
            }
            debug.withLock { $0.append(line) }
        }
    }

    @Test func aRedirectedRequestOnOneConnection() async throws {
        let server = try await TestServer.start { request in
            request.path == "/from" ? .redirect(302, to: "/to") : .text("hello")
        }
        defer { Task { try? await server.stop() } }
        var configuration = SessionConfiguration.ephemeral
        configuration.emitsDebugEvents = true
        let collector = Collector()
        let session = Session(configuration: configuration, delegate: collector)
        let request = try #require(Request(string: server.baseURL + "/from"))
        let task = session.dataTask(with: request)
        #expect(task.metrics == TaskMetrics())
        try await task.completion()
        let metrics = task.metrics
        #expect(metrics.redirectCount == 1)
        #expect(metrics.connectionsOpened == 1)
        #expect(metrics.reusedConnection)
        #expect(metrics.retryCount == 0)
        #expect(metrics.remoteAddress == "127.0.0.1")
        #expect(metrics.remotePort == server.port)
        #expect(metrics.localAddress == "127.0.0.1")
        #expect(metrics.countOfResponseBodyBytesReceived == 5)
        #expect(metrics.countOfResponseHeaderBytesReceived > 20)
        #expect(metrics.secureConnectionEnd == nil)
        let phases = [\TaskMetrics.fetchStart, \.redirectEnd, \.connectEnd, \.requestStart, \.responseStart, \.taskEnd].map { metrics[keyPath: $0] }
        let instants = phases.compactMap { $0 }
        #expect(instants.count == phases.count, "\(metrics)")
        #expect(instants == instants.sorted())
        #expect(metrics.elapsed(\.taskEnd).map { $0 > .zero } == true)
        #expect(collector.debug.withLock { $0 } == [
            "connected 127.0.0.1 127.0.0.1", "sent GET /from 127.0.0.1:\(server.port)",
            "reused 127.0.0.1", "sent GET /to 127.0.0.1:\(server.port)",
        ])
    }

    @Test func noDebugEventsUnlessAsked() async throws {
        let server = try await TestServer.start { _ in .text("x") }
        defer { Task { try? await server.stop() } }
        let collector = Collector()
        let session = Session(configuration: .ephemeral, delegate: collector)
        let task = session.dataTask(with: try #require(Request(string: server.baseURL + "/")))
        try await task.completion()
        #expect(collector.debug.withLock { $0 }.isEmpty)
        #expect(task.metrics.domainLookupEnd != nil, "an address needs no lookup")
    }

    @Test func aNamesLookupEndsBeforeTheConnection() async throws {
        let server = try await TestServer.start { _ in .text("x") }
        defer { Task { try? await server.stop() } }
        let session = Session(configuration: .ephemeral)
        let task = session.dataTask(with: try #require(Request(string: "http://localhost:\(server.port)/")))
        try await task.completion()
        let metrics = task.metrics
        let lookup = try #require(metrics.domainLookupEnd)
        let start = try #require(metrics.fetchStart)
        let connect = try #require(metrics.connectEnd)
        #expect(start <= lookup && lookup <= connect)
    }
}
