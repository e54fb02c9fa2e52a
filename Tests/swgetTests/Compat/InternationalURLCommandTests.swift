import Foundation
import Testing
import SwgetTestSupport

/// Non-ASCII URLs typed on the command line: UTF-8 percent-encoded paths and punycode hosts
/// on the wire, the file named after the decoded path.
@Suite("swget international URLs, end to end")
struct InternationalURLCommandTests {
    @Test func aNonASCIIPathIsSentPercentEncoded() async throws {
        let server = try await TestServer.start { _ in .text("unicode") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "http://127.0.0.1:\(server.port)/bücher/straße.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.uri) == ["/b%C3%BCcher/stra%C3%9Fe.txt"])
        #expect(FileManager.default.contents(atPath: dir + "/straße.txt") == Data("unicode".utf8))
    }

    @Test func anInternationalHostGoesOutAsPunycode() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-t", "1", "--spider", "http://bücher.invalid:9/"], in: dir)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("xn--bcher-kva.invalid"), "\(result.stderr)")
    }

    @Test func aHostIDNARefusesIsAnInvalidURL() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["http://a\u{2488}b.example/"], in: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("invalid URL"), "\(result.stderr)")
    }
}
