import Foundation
import Testing
import SwgetTestSupport

/// The example program (Examples/SwgetKitExample) does what the README says SwgetKit does, run
/// against the test server: if the documented API changes, this fails.
@Suite("The SwgetKit example program")
struct ExampleProgramTests {
    @Test func runsAsTheReadmeSays() async throws {
        let big = (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let gate = BodyGate()
        gate.open(to: 1_200_000)
        let http = try await TestServer.start { request in
            switch request.path {
            case "/big.bin":
                // The first answer pauses past half; the resumed one flows.
                let response = TestResponse.serving(big, to: request, etag: "\"e1\"")
                return request.header("Range") == nil ? response.trickled(bytesPerWrite: 100_000, every: .milliseconds(1), gate: gate) : response
            case "/hello.txt": return .text("hello")
            default: return .status(404, body: Array("no".utf8))
            }
        }
        let https = try await TestServer.start(tls: try TestCertificates.selfSigned()) { _ in .text("trusted") }
        defer { gate.openFully() }
        let dir = try makeTemporaryDirectory()
        let executable = (SwgetProcess.binaryPath as NSString).deletingLastPathComponent + "/SwgetKitExample"
        let result = try await SwgetProcess.run(executable: executable, [http.baseURL, https.baseURL, dir], in: dir,
                                                timeout: .seconds(120))
        gate.openFully()
        try await http.stop()
        try await https.stop()
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(lines.contains("half of big.bin is here"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("cancelled with ") && $0.hasSuffix(" bytes kept") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("resumed at ") }, "\(lines)")
        #expect(lines.contains("big.bin complete: big.bin"), "\(lines)")
        #expect(lines.contains("hello.txt: 200, hello"), "\(lines)")
        #expect(lines.contains("self-signed host: trusted"), "\(lines)")
        #expect(lines.contains("without the delegate: tls"), "\(lines)")
        #expect(lines.contains("missing: the server answered 404; nothing was saved"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("port 1: network, errno 111") }, "\(lines)")
        #expect(FileManager.default.contents(atPath: dir + "/big.bin").map { [UInt8]($0) } == big)
        #expect(!FileManager.default.fileExists(atPath: dir + "/missing"))
        print("example program output:\n" + result.stdoutText)
    }
}
