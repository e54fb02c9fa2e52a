import Foundation
import Testing
import SwgetTestSupport

/// A batch against a real nginx: 200 files from an `-i` list, 8 at a time.
@Suite("swget batches against nginx", .serialized)
struct NginxBatchTests {
    @Test func twoHundredFilesFromAListEightAtATime() async throws {
        let root = try makeTemporaryDirectory(prefix: "swget-nginx-batch")
        defer { try? FileManager.default.removeItem(atPath: root) }
        var expected: [String: [UInt8]] = [:]
        for index in 0..<200 {
            let body = Array("file \(index)\n".utf8) + [UInt8](repeating: UInt8(index % 251), count: 1000 + index * 37)
            let name = String(format: "f%03d.bin", index)
            expected[name] = body
            try Data(body).write(to: URL(fileURLWithPath: root + "/" + name))
        }
        let nginx = try await Nginx.start(root: root)
        defer { nginx.stop() }
        let dir = try makeTemporaryDirectory()
        let list = "# generated\n" + expected.keys.sorted().map { nginx.httpURL + "/" + $0 }.joined(separator: "\n") + "\n"
        try Data(list.utf8).write(to: URL(fileURLWithPath: dir + "/urls.txt"))
        let result = try await SwgetProcess.run(["-nv", "--parallel", "8", "-i", "urls.txt", "-P", "out"], in: dir)
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        let saved = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").sorted()
        #expect(saved == expected.keys.sorted())
        for (name, body) in expected {
            #expect(FileManager.default.contents(atPath: dir + "/out/" + name).map { [UInt8]($0) } == body, "\(name)")
        }
        #expect(result.stderr.contains("Downloaded 200 of 200 files"))
    }
}
