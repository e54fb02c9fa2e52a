import Foundation
import NIOHTTP1
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Upload tasks against the in-process upload server: what arrives (method, framing, Expect,
/// the body's SHA-256), 100-continue accepted, refused and ignored, 307 replays, a connection
/// closed mid-upload, retries of idempotent and non-idempotent requests, and forms end to end.
@Suite("Upload tasks (in-process server)")
struct UploadTaskTests {
    /// Records the body progress and answers `needNewBodyStream` as told.
    final class Recorder: SessionDelegate {
        let sent = Mutex<[(Int64, Int64?)]>([])
        let asked = Mutex(0)
        let replay: (@Sendable () -> AsyncThrowingStream<[UInt8], any Error>)?

        init(replay: (@Sendable () -> AsyncThrowingStream<[UInt8], any Error>)? = nil) {
            self.replay = replay
        }

        func task(_ task: SessionTask, didEmit event: TaskEvent) async {
            if case .sentBodyData(let bytes, let total, let expected) = event {
                #expect(bytes > 0)
                sent.withLock { $0.append((total, expected)) }
            }
        }

        func task(_ task: SessionTask, needNewBodyStreamFor request: Request) async -> AsyncThrowingStream<[UInt8], any Error>? {
            asked.withLock { $0 += 1 }
            return replay?()
        }

        /// The totals reported, in order.
        var totals: [Int64] { sent.withLock { $0.map(\.0) } }
    }

    static func withUploadServer(plan: @escaping @Sendable (String, String, HTTPHeaders) -> UploadServer.BodyPlan = { _, _, _ in .read(sendContinue: true) },
                                 reply: @escaping @Sendable (UploadServer.Received) -> UploadServer.Reply = UploadServer.Reply.echo,
                                 _ body: (UploadServer) async throws -> Void) async throws {
        let server = try await UploadServer.start(plan: plan, reply: reply)
        do {
            try await body(server)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    static func put(_ url: String, method: String = "PUT") throws -> Request {
        var request = try #require(Request(string: url))
        request.method = method
        return request
    }

    /// A single-use stream of `bytes` in chunks of `chunk` (standard input's shape).
    static func once(_ bytes: [UInt8], chunk: Int = 64 * 1024, length: Int64? = nil) -> BodyStream {
        .once(length: length, stream(bytes, chunk: chunk))
    }

    static func stream(_ bytes: [UInt8], chunk: Int = 64 * 1024) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            var offset = 0
            while offset < bytes.count {
                continuation.yield(Array(bytes[offset..<min(offset + chunk, bytes.count)]))
                offset += chunk
            }
            continuation.finish()
        }
    }

    // MARK: - what arrives

    @Test("data: method, Content-Length, no Expect below 1 MiB, the bytes; progress ends at the total")
    func smallData() async throws {
        try await Self.withUploadServer { server in
            let body = patternBytes(100_000)
            let recorder = Recorder()
            let session = Session(delegate: recorder)
            let task = session.uploadTask(with: try Self.put(server.baseURL + "/up", method: "POST"), from: Data(body))
            try await task.completion()
            let received = try #require(server.requests.first)
            #expect(received.method == "POST")
            #expect(received.header("Content-Length") == "100000")
            #expect(received.header("Expect") == nil)
            #expect(received.header("Transfer-Encoding") == nil)
            #expect(received.sha256 == UploadServer.sha256(body))
            #expect(recorder.totals.last == 100_000)
            #expect(recorder.totals == recorder.totals.sorted())
            #expect(task.countOfBytesSent == 100_000)
            #expect(task.countOfBytesExpectedToSend == 100_000)
            #expect(task.response?.statusCode == 200)
        }
    }

    @Test("a file of 3 MiB: Expect, 100 Continue, Content-Length, byte for byte")
    func fileWithContinue() async throws {
        let dir = try UploadScratchDirectory()
        let body = patternBytes(3 << 20, seed: 3)
        let path = try dir.write("big.bin", body)
        try await Self.withUploadServer { server in
            let (data, response) = try await Session().upload(for: try Self.put(server.baseURL + "/big.bin"), fromFile: URL(filePath: path))
            let received = try #require(server.requests.first)
            #expect(received.header("Expect") == "100-continue")
            #expect(received.header("Content-Length") == "\(3 << 20)")
            #expect(received.complete)
            #expect(received.sha256 == UploadServer.sha256(body))
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "PUT \(3 << 20) \(UploadServer.sha256(body))")
        }
    }

    @Test("a stream of unknown length goes chunked with Expect; a known length goes with Content-Length")
    func streams() async throws {
        let body = patternBytes(1_500_000, seed: 5)
        try await Self.withUploadServer { server in
            var request = try Self.put(server.baseURL + "/s")
            request.body = .stream(Self.once(body, chunk: 70_000))
            _ = try await Session().data(for: request)
            request.body = .stream(BodyStream(length: Int64(body.count)) { Self.stream(body, chunk: 33_333) })
            _ = try await Session().data(for: request)
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[0].header("Transfer-Encoding") == "chunked")
            #expect(requests[0].header("Content-Length") == nil)
            #expect(requests[0].header("Expect") == "100-continue")
            #expect(requests[1].header("Content-Length") == "1500000")
            #expect(requests.allSatisfy { $0.complete && $0.sha256 == UploadServer.sha256(body) })
        }
    }

    @Test("a stream that yields fewer or more bytes than its length fails the request")
    func streamLengthMismatch() async throws {
        try await Self.withUploadServer { server in
            for (count, length) in [(1000, 2000), (3000, 2000)] {
                var request = try Self.put(server.baseURL + "/s")
                request.body = .stream(BodyStream(length: Int64(length)) { Self.stream(patternBytes(count)) })
                let task = Session().dataTask(with: request)
                let error = await task.outcome()
                #expect(error?.category == .fileIO, "\(count) of \(length)")
            }
        }
    }

    // MARK: - 100-continue

    @Test("refused with 401 before the body: withheld, answered, sent once with the credential — even from a single-use stream")
    func refusedWith401() async throws {
        let body = patternBytes(2 << 20, seed: 9)
        try await Self.withUploadServer(plan: { _, _, headers in
            headers["authorization"].isEmpty ? .answerBeforeBody : .read(sendContinue: true)
        }, reply: { received in
            received.header("Authorization") == nil
                ? UploadServer.Reply(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"up\"")])
                : .echo(received)
        }) { server in
            var request = try Self.put(server.baseURL + "/up")
            request.body = .stream(Self.once(body))
            request.credential = Credential(user: "u", password: "p", persistence: .forSession)
            let recorder = Recorder()
            let (_, response) = try await Session(delegate: recorder).data(for: request)
            #expect(response.statusCode == 200)
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[0].bodyLength == 0)
            #expect(requests[1].complete && requests[1].sha256 == UploadServer.sha256(body))
            #expect(recorder.asked.withLock { $0 } == 0)
            #expect(recorder.totals.last == Int64(body.count))
        }
    }

    @Test("a server that ignores Expect gets the body after the wait")
    func ignoredExpect() async throws {
        let body = patternBytes(2 << 20, seed: 11)
        try await Self.withUploadServer(plan: { _, _, _ in .read(sendContinue: false) }) { server in
            var configuration = SessionConfiguration.default
            configuration.expectContinueTimeout = .milliseconds(200)
            let (data, _) = try await Session(configuration: configuration).upload(for: try Self.put(server.baseURL + "/x"), from: Data(body))
            #expect(String(decoding: data, as: UTF8.self).hasSuffix(UploadServer.sha256(body)))
            let received = try #require(server.requests.first)
            #expect(received.header("Expect") == "100-continue")
            #expect(received.complete)
        }
    }

    @Test("417 to Expect: the request is repeated without it")
    func expectationFailed() async throws {
        let body = patternBytes(1 << 20, seed: 13)
        try await Self.withUploadServer(plan: { _, _, headers in
            headers["expect"].isEmpty ? .read(sendContinue: false) : .answerBeforeBody
        }, reply: { received in
            received.header("Expect") != nil ? UploadServer.Reply(status: 417) : .echo(received)
        }) { server in
            let (_, response) = try await Session().upload(for: try Self.put(server.baseURL + "/x"), from: Data(body))
            #expect(response.statusCode == 200)
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[1].header("Expect") == nil)
            #expect(requests[1].sha256 == UploadServer.sha256(body))
        }
    }

    @Test("Expect can be turned off with an empty field, or by the configuration")
    func expectOff() async throws {
        let body = patternBytes(2 << 20, seed: 15)
        try await Self.withUploadServer(plan: { _, _, _ in .read(sendContinue: false) }) { server in
            var request = try Self.put(server.baseURL + "/x")
            request.headers.set("Expect", "")
            _ = try await Session().upload(for: request, from: Data(body))
            var configuration = SessionConfiguration.default
            configuration.expectContinueThreshold = nil
            _ = try await Session(configuration: configuration).upload(for: try Self.put(server.baseURL + "/y"), from: Data(body))
            #expect(server.requests.count == 2)
            #expect(server.requests.allSatisfy { $0.header("Expect") == nil && $0.complete })
        }
    }
}
