import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

/// A server that serves one connection at a time (GNU wget's test server, small embedded
/// servers) accepts the next connection only when the current one closes. Several downloads
/// from it open several connections; the first one done must not sit idle in the pool while
/// the others wait for their answers until the read timeout (wget's Test-504, Test-416,
/// Test-c-full and Test--https timed out this way).
@Suite("A server that serves one connection at a time")
struct SingleConnectionServerTests {
    @Test func parallelDownloadsAllFinishWithoutWaitingForTheReadTimeout() async throws {
        let body = bytes(20_000, seed: 3)
        let server = try SerialTestServer(body: body)
        defer { server.stop() }
        let dir = try makeTemporaryDirectory()
        var configuration = SessionConfiguration.default
        // Idle connections stay parked for longer than a task waits for an answer: a download
        // starved by our own idle connection fails with a read timeout.
        configuration.idleReadTimeout = .seconds(60)
        configuration.idleConnectionTimeout = .seconds(600)
        let session = Session(configuration: configuration)
        let tasks = (1...4).map { session.downloadTask(with: request(server.baseURL + "/f\($0).bin"), destination: .directory(dir)) }
        for task in tasks { task.resume() }
        for task in tasks {
            let error = await task.outcome()
            #expect(error == nil, "\(task.originalRequest.url.lastPathComponent): \(error.map { "\($0)" } ?? "")")
        }
        #expect(files(in: dir) == ["f1.bin", "f2.bin", "f3.bin", "f4.bin"])
        for index in 1...4 { #expect(contents(dir + "/f\(index).bin") == body) }
        #expect(server.requests == 4)
    }
}
