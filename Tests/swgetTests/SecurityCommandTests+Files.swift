import Foundation
import Synchronization
import Testing
import SwgetTestSupport

/// Issue 10 §2 (resume state cannot be planted) and §3 (`-c` never destroys user data).
extension SecurityCommandTests {
    /// A state file as swget writes it, for `url`, with `fields` replaced (raw JSON values).
    static func state(url: String, partPath: String, finalPath: String, length: Int, bytesOnDisk: Int,
                      etag: String = "\"e\"", _ fields: [String: String] = [:]) -> Data {
        var values: [String: String] = [
            "version": "1", "originalURL": "\"\(url)\"", "finalURL": "\"\(url)\"", "etag": "\"\\\"\(etag.dropFirst().dropLast())\\\"\"",
            "expectedLength": "\(length)", "bytesOnDisk": "\(bytesOnDisk)", "partPath": "\"\(partPath)\"",
            "finalPath": "\"\(finalPath)\"", "sessionIdentifier": "\"swget\"", "acceptsUnvalidatedRange": "false",
        ]
        values.merge(fields) { $1 }
        return Data(("{" + values.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}").utf8)
    }

    static func hasReservedSuffix(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".part") || lower.hasSuffix(".swget")
    }

    // MARK: §2 planted state

    /// Plain runs of `swget URL/feed` against a server that names its answers like swget's own
    /// files: a state claiming `important.txt`, then its part, then more. Before the fix the
    /// third run adopted the planted state and renamed the planted part over `important.txt`.
    /// Now the user's file never changes and no name ends in `.part` or `.swget`.
    @Test func aServerCannotPlantStateThroughContentDisposition() async throws {
        let dir = try makeTemporaryDirectory()
        let mine = Array("the user's important notes\n".utf8)
        try Data(mine).write(to: URL(fileURLWithPath: dir + "/important.txt"))
        let evil = Array("server bytes replacing the user's file\n".utf8)
        let runs = Mutex(0)
        let server = try await TestServer.start { request in
            if request.header("Range") != nil { return TestResponse.serving(evil, to: request, etag: "\"e\"") }
            let run = runs.withLock { $0 += 1; return $0 }
            let url = "http://127.0.0.1:\(request.header("Host")?.split(separator: ":").last ?? "")/feed"
            let names = ["important.txt.swget", "important.txt.part", "y.part", "x.swget"]
            let name = names[min(run, names.count) - 1]
            let body = run == 1
                // "./." is not the download directory "." as spelled: swget 9062cfa then published with .overwrite.
                ? [UInt8](Self.state(url: url, partPath: "important.txt.part", finalPath: "././important.txt",
                                     length: evil.count, bytesOnDisk: evil.count))
                : evil
            return TestResponse.ok(body, headers: [("ETag", "\"e\""), ("Accept-Ranges", "bytes"),
                                                   ("Content-Disposition", "attachment; filename=\"\(name)\"")])
        }
        var results: [SwgetResult] = []
        for _ in 0..<4 {
            results.append(try await SwgetProcess.run([server.baseURL + "/feed"], in: dir))
            #expect(read(dir + "/important.txt") == mine, "\(results.last?.stderr ?? "")")
            #expect(!list(dir).contains(where: Self.hasReservedSuffix), "\(list(dir))")
        }
        try await server.stop()
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(list(dir) == ["important.txt", "important.txt_part", "important.txt_swget", "x_swget", "y_part"])
    }

    /// A hand-written state whose paths lead elsewhere: outside the directory, or to another
    /// name beside it. Ignored with a warning; the files it names stay as they are.
    @Test(arguments: [true, false])
    func aStateCannotChooseWhereBytesGo(outside: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let elsewhere = outside ? try makeTemporaryDirectory() : dir
        let victim = elsewhere + (outside ? "/victim" : "/other.txt")
        let precious = Array("precious, not to be replaced".utf8)
        try Data(precious).write(to: URL(fileURLWithPath: victim))
        try Data(Self.source.prefix(1000)).write(to: URL(fileURLWithPath: victim + ".part"))
        let server = try await TestServer.start { request in TestResponse.serving(Self.source, to: request, etag: "\"e\"") }
        let url = server.baseURL + "/data.bin"
        try Self.state(url: url, partPath: victim + ".part", finalPath: victim, length: Self.source.count, bytesOnDisk: 1000)
            .write(to: URL(fileURLWithPath: dir + "/data.bin.swget"))
        let result = try await SwgetProcess.run([url], in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("ignoring"), "\(result.stderr)")
        #expect(read(victim) == precious)
        #expect(read(victim + ".part") == Array(Self.source.prefix(1000)))
        #expect(read(dir + "/data.bin") == Self.source)
        #expect(server.requests.allSatisfy { $0.header("Range") == nil })
        if outside { #expect(list(elsewhere) == ["victim", "victim.part"]) }
    }

    /// States that cannot be true of the part beside them: never fatal, never continued.
    @Test(arguments: [
        ["segments": "[{\"start\":10,\"end\":5}]"],
        ["segments": "[{\"start\":0,\"end\":400000}]"],
        ["bytesOnDisk": "400000"],
        ["bytesOnDisk": "-7"],
    ])
    func anInvalidStateIsIgnoredNeverFatal(_ fields: [String: String]) async throws {
        let dir = try makeTemporaryDirectory()
        let server = try await TestServer.start { request in TestResponse.serving(Self.source, to: request, etag: "\"e\"") }
        let url = server.baseURL + "/data.bin"
        try Self.state(url: url, partPath: dir + "/data.bin.part", finalPath: dir + "/data.bin",
                       length: Self.source.count, bytesOnDisk: 1000, fields)
            .write(to: URL(fileURLWithPath: dir + "/data.bin.swget"))
        try Data(Self.source.prefix(1000)).write(to: URL(fileURLWithPath: dir + "/data.bin.part"))
        let first = try await SwgetProcess.run([url], in: dir)
        let second = try await SwgetProcess.run([url], in: dir)
        try await server.stop()
        for result in [first, second] {
            #expect(result.status == 0, "\(fields): \(result.stderr)")
            #expect(result.stderr.contains("ignoring '\(dir)/data.bin.swget'"), "\(fields): \(result.stderr)")
        }
        #expect(server.requests.allSatisfy { $0.header("Range") == nil }, "\(server.requests.map { $0.header("Range") })")
        let saved = list(dir).filter { !Self.hasReservedSuffix($0) }
        #expect(saved.count == 2, "\(list(dir))")
        for name in saved { #expect(read(dir + "/" + name) == Self.source, "\(name)") }
    }

    // MARK: §3 -c

    /// What the server says about a file shorter than the local one.
    enum Shorter: String, CaseIterable, Sendable {
        case rangeNotSatisfiableWithItsLength, rangeNotSatisfiableBare, wholeShorterFile, emptyFile
    }

    @Test(arguments: Shorter.allCases)
    func continueKeepsALocalFileLongerThanTheRemoteOne(_ shorter: Shorter) async throws {
        let dir = try makeTemporaryDirectory()
        let local = Array(Self.source.prefix(1000))
        try Data(local).write(to: URL(fileURLWithPath: dir + "/data.bin"))
        let remote = Array(Self.source.prefix(10))
        let server = try await TestServer.start { _ in
            switch shorter {
            case .rangeNotSatisfiableWithItsLength: .status(416, headers: [("Content-Range", "bytes */10")])
            case .rangeNotSatisfiableBare: .status(416)
            case .wholeShorterFile: .ok(remote)
            case .emptyFile: .ok([])
            }
        }
        let result = try await SwgetProcess.run(["-c", server.baseURL + "/data.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(shorter): \(result.stderr)")
        #expect(read(dir + "/data.bin") == local)
        #expect(list(dir) == ["data.bin"])
        #expect(result.stderr.contains("data.bin"), "says which file: \(result.stderr)")
        #expect(server.requests.first?.header("Range") == "bytes=1000-")
    }

    /// `-c` through a symlink: refused, nothing renamed, the link and its target unchanged.
    @Test(arguments: [true, false])
    func continueRefusesASymlink(targetOutside: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let target = (targetOutside ? try makeTemporaryDirectory() : dir) + "/target.bin"
        let held = Array(Self.source.prefix(1000))
        try Data(held).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: dir + "/data.bin", withDestinationPath: target)
        let server = try await TestServer.start { request in TestResponse.serving(Self.source, to: request, etag: "\"e\"") }
        let result = try await SwgetProcess.run(["-c", server.baseURL + "/data.bin"], in: dir)
        try await server.stop()
        #expect(result.status == 3, "\(result.stderr)")  // a file I/O refusal
        #expect(result.stderr.contains("is a symbolic link; refusing to continue through it"), "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/data.bin") == target)
        #expect(read(target) == held)
        #expect(list(dir) == (targetOutside ? ["data.bin"] : ["data.bin", "target.bin"]))
        #expect(server.requests.isEmpty)
    }
}
