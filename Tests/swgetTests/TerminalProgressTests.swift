import Foundation
import Testing
import SwgetTestSupport

/// The progress bar as a terminal shows it: swget runs under a pseudo-terminal (util-linux's
/// `script`), and the bytes it draws are checked.
@Suite("Progress on a terminal")
struct TerminalProgressTests {
    @Test func barIsRedrawnInPlaceAndEndsWithASummary() async throws {
        let payload = [UInt8](repeating: 0x41, count: 600_000)
        let server = try await TestServer.start { _ in .ok(payload).trickled(bytesPerWrite: 60_000, every: .milliseconds(100)) }
        let dir = try makeTemporaryDirectory()
        let command = "stty cols 72; exec '\(SwgetProcess.binaryPath)' \(server.baseURL)/slow-file.bin"
        let result = try await SwgetProcess.run(executable: "/usr/bin/script", ["-qec", command, "/dev/null"], in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let screen = result.stdoutText
        let redraws = screen.split(separator: "\r").map {
            $0.replacingOccurrences(of: "\u{1B}\\[[0-9]*[A-Za-z]", with: "", options: .regularExpression)
        }
        let bars = redraws.filter { $0.contains("%") && $0.contains("[") }
        #expect(bars.count >= 3, "\(screen.debugDescription)")
        #expect(bars.count <= 30, "at most ~10 redraws a second")
        for bar in bars {
            let line = bar.split(separator: "\n").first.map(String.init) ?? ""
            #expect(line.count <= 72, "\(line)")
            #expect(line.hasPrefix("slow-file.bin"))
        }
        #expect(screen.contains("'slow-file.bin' saved"))
        #expect(FileManager.default.contents(atPath: dir + "/slow-file.bin")?.count == payload.count)
    }

    @Test func noBarWhenStderrIsNotATerminal() async throws {
        let server = try await TestServer.start { _ in .ok([UInt8](repeating: 1, count: 300_000)).trickled(bytesPerWrite: 100_000, every: .milliseconds(100)) }
        let result = try await SwgetProcess.run([server.baseURL + "/f.bin"], in: try makeTemporaryDirectory())
        try await server.stop()
        #expect(result.status == 0)
        #expect(!result.stderr.contains("\r"))
        #expect(!result.stderr.contains("%"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
