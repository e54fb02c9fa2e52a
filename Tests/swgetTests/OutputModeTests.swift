import Foundation
import Testing
import SwgetTestSupport

/// What each output mode prints, end to end: `--progress=dot|json|none|bar:force`, `-nv`,
/// `-q --show-progress`, and `--spider`.
@Suite("swget output modes, end to end")
struct OutputModeTests {
    static let payload = [UInt8](repeating: 0x5A, count: 300_000)

    func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    static func server() async throws -> TestServer {
        try await TestServer.start { request in
            switch request.path {
            case "/missing": .status(404, body: Array("no".utf8))
            case "/moved": .redirect(302, to: "/file.bin")
            default: .ok(payload).trickled(bytesPerWrite: 60_000, every: .milliseconds(30))
            }
        }
    }

    @Test func dotProgressIsWgetsLogFriendlyStyle() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["--progress=dot", server.baseURL + "/file.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        // 300,000 bytes are 292 one-KiB dots: five full lines of 50 and a last one, each led by its offset.
        let dotLines = lines.filter { $0.contains("K ") && $0.contains(".") && !$0.contains("saved") }
        #expect(dotLines.count == 6, "\(result.stderr)")
        #expect(dotLines.first?.hasPrefix("     0K ..........") == true)
        #expect(dotLines.last?.contains("100%") == true)
        #expect(lines.last?.hasPrefix("'file.bin' saved") == true)
        #expect(!result.stderr.contains("\r"))
    }

    @Test func jsonModePrintsOnlyJSONLines() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["--progress=json", "-j", "1", server.baseURL + "/moved", server.baseURL + "/missing"], in: dir)
        try await server.stop()
        #expect(result.status == 8)
        var events: [String] = []
        for line in result.stderr.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            events.append(object["event"] as? String ?? "?")
            if object["event"] as? String == "finish" {
                #expect(object["path"] as? String == "moved")  // named after the URL asked for, as wget does
                #expect(object["bytes"] as? Int == Self.payload.count)
                #expect(object["status"] as? Int == 200)
            }
            if object["event"] as? String == "error" {
                #expect(object["exitCode"] as? Int == 8)
                #expect((object["url"] as? String)?.hasSuffix("/missing") == true)
            }
        }
        #expect(events.first == "redirect")
        #expect(events.contains("start") && events.contains("finish"))
        #expect(events.suffix(2) == ["error", "summary"], "the summary ends the run: \(events)")
    }

    @Test func noVerbosePrintsOneLinePerFile() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-nv", "-S", "-j", "1", server.baseURL + "/a.bin", server.baseURL + "/b.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 3, "\(result.stderr)")
        #expect(lines[0].hasPrefix("'a.bin' saved") && lines[1].hasPrefix("'b.bin' saved"))
        #expect(lines[2].hasPrefix("Downloaded 2 of 2 files: "))
    }

    @Test func progressNoneKeepsTheSummary() async throws {
        let server = try await Self.server()
        let result = try await SwgetProcess.run(["--progress=none", server.baseURL + "/a.bin"], in: try makeTemporaryDirectory())
        try await server.stop()
        #expect(result.status == 0)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!result.stderr.contains("%"))
    }

    @Test func quietWithShowProgressDrawsOnlyTheBar() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-q", "--show-progress", "--progress=bar:force", server.baseURL + "/file.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 0)
        #expect(result.stderr.contains("100%"), "\(result.stderr.debugDescription)")
        #expect(!result.stderr.contains("saved"))
        #expect(list(dir) == ["file.bin"])
    }

    @Test func badProgressValueIsAUsageError() async throws {
        let result = try await SwgetProcess.run(["--progress=fancy", "http://127.0.0.1:1/"], in: try makeTemporaryDirectory())
        #expect(result.status == 2)
        #expect(result.stderr.contains("invalid --progress 'fancy'"))
    }

    @Test func spiderChecksWithoutDownloading() async throws {
        let server = try await Self.server()
        let dir = try makeTemporaryDirectory()
        let found = try await SwgetProcess.run(["--spider", server.baseURL + "/file.bin"], in: dir)
        let missing = try await SwgetProcess.run(["--spider", server.baseURL + "/file.bin", server.baseURL + "/missing"], in: dir)
        try await server.stop()
        #expect(found.status == 0)
        #expect(found.stderr.contains("remote file exists (200"), "\(found.stderr)")
        #expect(missing.status == 8)
        #expect(missing.stderr.contains("server answered 404"))
        #expect(list(dir) == [])
        #expect(server.requests.allSatisfy { $0.method == "HEAD" })
    }
}
