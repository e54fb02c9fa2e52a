import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// The body streams inside the connection's pipeline while the driver listens to its events;
/// a driver that stops listening (its task cancelled: `cancel()`, a resource timeout) must not
/// leave the pipeline writing into a descriptor the driver is about to close. Once closed, that
/// number is reused by the next file anyone opens, and the stale writes land there: a timed-out
/// transfer corrupted a concurrent test's `.part` file with its last 200 bytes this way.
@Suite("Body streaming into a file")
struct BodyStreamingTests {
    /// Plain connections take up to four reads per wake-up; TLS and rate-limited ones one, so
    /// NIOSSL's plaintext buffer holds one read's worth (four grew it to 2 MiB per connection).
    @Test(arguments: [(false, false, UInt(4)), (true, false, UInt(1)), (false, true, UInt(1)), (true, true, UInt(1))])
    func readsPerWakeUp(tls: Bool, rateLimited: Bool, expected: UInt) {
        #expect(HTTPConnection.Settings.readsPerWakeUp(tls: tls, rateLimited: rateLimited) == expected)
    }

    @Test func aCancelledReaderLetsGoOfTheFileBeforeReturning() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 1 MB, 1 kB every 10 ms, held at 20 kB by a gate until the reader has given up: the body
        // cannot end first, however long a loaded machine keeps this test from running (a whole
        // body read before the cancel leaves a healthy keep-alive connection open, as it should).
        let gate = BodyGate()
        gate.open(to: 20_000)
        try await withServer({ _ in .ok(bytes(1_000_000)).trickled(bytesPerWrite: 1000, every: .milliseconds(10), gate: gate) }) { server in
            let url = try #require(URL(string: server.baseURL + "/f"))
            let settings = HTTPConnection.Settings(connectTimeout: .seconds(10), idleReadTimeout: .seconds(30),
                                                   receiveBufferSize: 64 * 1024, maxHeaderBytes: 64 * 1024, tls: nil)
            let connection = try await HTTPConnection.connect(host: "127.0.0.1", origin: Origin(url), settings: settings,
                                                              on: MultiThreadedEventLoopGroup.singleton.next())
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "127.0.0.1")
            let head = try await connection.send(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/f", headers: headers), body: nil)
            #expect(head.head.status == .ok)

            let path = dir + "/f.part"
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            let reader = Task {
                await connection.streamBody(.file(fd: fd, progressInterval: .milliseconds(10))) { _ in }
            }
            while size(path) < 5_000 { try await Task.sleep(for: .milliseconds(5)) }
            reader.cancel()
            await reader.value
            gate.openFully()
            let atReturn = size(path)
            // The server goes on sending for seconds: any write still going on would show here.
            try await Task.sleep(for: .milliseconds(300))
            #expect(size(path) == atReturn, "bytes were written after streamBody returned")
            // The close is asked for before streamBody returns and completes on the channel's
            // loop: wait for it (bounded, so a connection left open fails instead of hanging).
            var waited = 0
            while connection.isActive && waited < 3_000 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            let closed = !connection.isActive
            #expect(closed, "the abandoned body's connection is closed")
        }
    }

    private func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : -1
    }
}
