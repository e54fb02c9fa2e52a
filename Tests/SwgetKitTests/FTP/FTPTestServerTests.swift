import Foundation
import Testing
import SwgetTestSupport

/// The scripted FTP server checked with real clients: curl and wget (Debian's packages) must
/// download, resume, list and fail exactly as they do against a real server.
@Suite("FTP test server against curl and wget", .enabled(if: FTPClientTool.available("curl") && FTPClientTool.available("wget")))
struct FTPTestServerTests {
    static let payload = randomBytes(200_000, seed: 19)
    static let options: FTPTestServerOptions = {
        var options = FTPTestServerOptions(files: [
            "/pub/file.bin": FTPTestFile(payload, modified: "20200101120000"),
            "/pub/a.txt": FTPTestFile(Array("alpha\n".utf8)),
            "/pub/b.txt": FTPTestFile(Array("beta\n".utf8)),
            "/pub/c.dat": FTPTestFile(Array("gamma\n".utf8)),
            "/top.txt": FTPTestFile(Array("top\n".utf8)),
        ])
        options.users = ["alice": "wonderland"]
        return options
    }()

    static func withServer(_ change: @Sendable (inout FTPTestServerOptions) -> Void = { _ in },
                           _ body: (FTPTestServer, String) async throws -> Void) async throws {
        var options = Self.options
        change(&options)
        let server = try await FTPTestServer.start(options)
        let directory = try FTPClientTool.temporaryDirectory()
        do {
            try await body(server, directory)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func verbs(_ server: FTPTestServer) -> [String] { server.commands.map(\.verb) }

    @Test func curlPassiveDownload() async throws {
        try await Self.withServer { server, dir in
            let result = try await FTPClientTool.run("curl", ["-sS", "-o", dir + "/out", server.url("/pub/file.bin")])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FTPClientTool.holds(dir + "/out", Self.payload))
            let verbs = Self.verbs(server)
            #expect(verbs.contains("EPSV") && verbs.contains("RETR") && verbs.contains("USER"))
            #expect(server.commands.contains(FTPTestCommand(session: 0, verb: "RETR", argument: "file.bin")))
        }
    }

    @Test func curlFallsBackToPASVAndIgnoresItsAddress() async throws {
        try await Self.withServer({
            $0.refusals["EPSV"] = "500 Unknown command."
            $0.passiveAddress = "10.255.255.1"
        }) { server, dir in
            let result = try await FTPClientTool.run("curl", ["-sS", "-o", dir + "/out", server.url("/pub/file.bin")])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FTPClientTool.holds(dir + "/out", Self.payload))
            #expect(Self.verbs(server).contains("PASV"))
        }
    }

    @Test func curlActiveModeWithEPRTAndPORT() async throws {
        try await Self.withServer { server, dir in
            let eprt = try await FTPClientTool.run("curl", ["-sS", "-P", "127.0.0.1", "-o", dir + "/one", server.url("/pub/file.bin")])
            #expect(eprt.status == 0, "\(eprt.stderr)")
            #expect(FTPClientTool.holds(dir + "/one", Self.payload))
            let port = try await FTPClientTool.run("curl", ["-sS", "-P", "127.0.0.1", "--disable-eprt", "-o", dir + "/two", server.url("/pub/a.txt")])
            #expect(port.status == 0, "\(port.stderr)")
            #expect(FTPClientTool.holds(dir + "/two", Array("alpha\n".utf8)))
            #expect(Self.verbs(server).contains("EPRT") && Self.verbs(server).contains("PORT"))
        }
    }

    @Test func curlResumesWithREST() async throws {
        try await Self.withServer { server, dir in
            #expect(FileManager.default.createFile(atPath: dir + "/out", contents: Data(Self.payload.prefix(70_000))))
            let result = try await FTPClientTool.run("curl", ["-sS", "-C", "-", "-o", dir + "/out", server.url("/pub/file.bin")])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FTPClientTool.holds(dir + "/out", Self.payload))
            #expect(server.commands.contains { $0.verb == "REST" && $0.argument == "70000" })
        }
    }

    @Test func faultsAsCurlSeesThem() async throws {
        // REST refused: curl gives up (31, cannot use REST).
        try await Self.withServer({ $0.refusals["REST"] = "502 REST not implemented." }) { server, dir in
            #expect(FileManager.default.createFile(atPath: dir + "/out", contents: Data(Self.payload.prefix(10))))
            let result = try await FTPClientTool.run("curl", ["-sS", "-C", "-", "-o", dir + "/out", server.url("/pub/file.bin")])
            #expect(result.status == 31, "\(result.stderr)")
        }
        // 550: remote file not found (78), for a missing and for a denied path.
        try await Self.withServer({ $0.denied = ["/pub/a.txt"] }) { server, dir in
            for path in ["/pub/missing.bin", "/pub/a.txt"] {
                let result = try await FTPClientTool.run("curl", ["-sS", "-o", dir + "/out", server.url(path)])
                #expect(result.status == 78, "\(path): \(result.stderr)")
            }
        }
        // Data connection dropped after 1000 bytes: a partial file (18), then a whole one.
        try await Self.withServer({ $0.dataFaults = [.drop(afterBytes: 1000)] }) { server, dir in
            let first = try await FTPClientTool.run("curl", ["-sS", "-o", dir + "/out", server.url("/pub/file.bin")])
            #expect(first.status == 18, "\(first.stderr)")
            #expect(FTPClientTool.read(dir + "/out")?.count == 1000)
            let second = try await FTPClientTool.run("curl", ["-sS", "-C", "-", "-o", dir + "/out", server.url("/pub/file.bin")])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(FTPClientTool.holds(dir + "/out", Self.payload))
            #expect(server.transferCount == 2)
        }
        // A stalled data connection: curl's low-speed limit ends it (28).
        try await Self.withServer({ $0.dataFaults = [.stall(afterBytes: 5)] }) { server, dir in
            let result = try await FTPClientTool.run("curl", ["-sS", "--speed-limit", "1", "--speed-time", "1", "-o", dir + "/out",
                                                              server.url("/pub/file.bin")])
            #expect(result.status == 28, "\(result.stderr)")
        }
    }

    @Test func curlLogsInAndLists() async throws {
        try await Self.withServer { server, dir in
            let good = try await FTPClientTool.run("curl", ["-sS", "-u", "alice:wonderland", "-o", dir + "/out", server.url("/top.txt")])
            #expect(good.status == 0, "\(good.stderr)")
            #expect(server.commands.contains { $0.verb == "PASS" && $0.argument == "wonderland" })
            let bad = try await FTPClientTool.run("curl", ["-sS", "-u", "alice:nope", "-o", dir + "/out", server.url("/top.txt")])
            #expect(bad.status == 67, "\(bad.stderr)")
            // curl lists in ASCII mode and turns CRLF into LF.
            let list = try await FTPClientTool.run("curl", ["-sS", server.url("/pub/")])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains(" 200000 Jan 01  2020 file.bin\n") && list.stdout.contains("a.txt"))
            let mlsd = try await FTPClientTool.run("curl", ["-sS", "-X", "MLSD", server.url("/pub/")])
            #expect(mlsd.stdout.contains("type=file;size=200000;modify=20200101120000;perm=r; file.bin\n"), "\(mlsd.stderr)")
            let names = try await FTPClientTool.run("curl", ["-sS", "-l", server.url("/pub/")])
            #expect(names.stdout == "a.txt\nb.txt\nc.dat\nfile.bin\n")
        }
    }

    @Test func fileChangesBetweenSessions() async throws {
        try await Self.withServer({
            $0.versions["/pub/v.bin"] = [FTPTestFile(Array("one".utf8), modified: "20200101000000"),
                                         FTPTestFile(Array("second".utf8), modified: "20210101000000")]
        }) { server, dir in
            for (index, expected) in ["one", "second", "second"].enumerated() {
                let result = try await FTPClientTool.run("curl", ["-sS", "-o", dir + "/v\(index)", server.url("/pub/v.bin")])
                #expect(result.status == 0)
                #expect(FTPClientTool.holds(dir + "/v\(index)", Array(expected.utf8)))
            }
            #expect(server.sessionCount == 3)
            server.update { $0.versions["/pub/v.bin"] = [FTPTestFile(Array("third".utf8))] }
            _ = try await FTPClientTool.run("curl", ["-sS", "-o", dir + "/v3", server.url("/pub/v.bin")])
            #expect(FTPClientTool.holds(dir + "/v3", Array("third".utf8)))
        }
    }

    @Test func wgetDownloadsResumesAndGlobs() async throws {
        try await Self.withServer { server, dir in
            let plain = try await FTPClientTool.run("wget", ["-q", "-O", dir + "/out", server.url("/pub/file.bin")])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(FTPClientTool.holds(dir + "/out", Self.payload))
            #expect(server.commands.contains { $0.verb == "PASS" && $0.argument == "-wget@" })

            #expect(FileManager.default.createFile(atPath: dir + "/file.bin", contents: Data(Self.payload.prefix(12_345))))
            let resumed = try await FTPClientTool.run("wget", ["-q", "-c", "-P", dir, server.url("/pub/file.bin")])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(FTPClientTool.holds(dir + "/file.bin", Self.payload))
            #expect(server.commands.contains { $0.verb == "REST" && $0.argument == "12345" })

            let active = try await FTPClientTool.run("wget", ["-q", "--no-passive-ftp", "-O", dir + "/active", server.url("/top.txt")])
            #expect(active.status == 0, "\(active.stderr)")
            #expect(FTPClientTool.holds(dir + "/active", Array("top\n".utf8)))
            #expect(Self.verbs(server).contains("PORT") || Self.verbs(server).contains("EPRT"))

            let globbed = try await FTPClientTool.run("wget", ["-q", "-P", dir + "/glob", server.url("/pub/*.txt")])
            #expect(globbed.status == 0, "\(globbed.stderr)")
            #expect(FTPClientTool.holds(dir + "/glob/a.txt", Array("alpha\n".utf8)))
            #expect(FTPClientTool.holds(dir + "/glob/b.txt", Array("beta\n".utf8)))
            #expect(FTPClientTool.read(dir + "/glob/c.dat") == nil)

            let missing = try await FTPClientTool.run("wget", ["-q", "-O", dir + "/missing", server.url("/pub/missing.bin")])
            #expect(missing.status == 8)
        }
    }
}

/// Runs the command-line clients the server is checked with.
enum FTPClientTool {
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func available(_ tool: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/" + tool)
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "swget-ftp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// True when the file at `path` holds exactly `bytes` (a Bool, so a failure does not print
    /// megabytes).
    static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        read(path) == bytes
    }

    /// Runs `/usr/bin/tool arguments` with a clean environment (no proxies, no .netrc, no
    /// wgetrc/curlrc: `-q` and `--no-config`), and waits for it.
    static func run(_ tool: String, _ arguments: [String]) async throws -> Result {
        // posix_spawn, not Foundation's Process (see OpenSSLPKI.openssl).
        let result = try await SwgetProcess.run(executable: "/usr/bin/" + tool, (tool == "curl" ? ["-q"] : ["--no-config"]) + arguments,
                                                in: NSTemporaryDirectory(),
                                                environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C"],
                                                timeout: .seconds(120))
        return Result(status: result.status, stdout: result.stdoutText, stderr: result.stderr)
    }
}
