import Foundation
import Testing
import SwgetTestSupport

/// `swget ftp://…`, `file://…` and `data:…` run as a user would: files byte for byte, `-c`,
/// kill -9 then the same command again, globbing, `--spider`, exit codes.
@Suite("swget with ftp, file and data URLs, end to end", .serialized)
struct FTPCommandTests {
    static let payload: [UInt8] = randomBytes(1_500_000, seed: 23)
    static let files: [String: FTPTestFile] = [
        "/pub/data.bin": FTPTestFile(payload, modified: "20200101120000"),
        "/pub/a.txt": FTPTestFile(Array("alpha\n".utf8)),
        "/pub/b.txt": FTPTestFile(Array("beta\n".utf8)),
        "/pub/c.iso": FTPTestFile(Array("iso\n".utf8)),
    ]

    func list(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }
    func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    static func withServer(_ configure: (inout FTPTestServerOptions) -> Void = { _ in },
                           _ body: (FTPTestServer) async throws -> Void) async throws {
        var options = FTPTestServerOptions(files: files)
        configure(&options)
        let server = try await FTPTestServer.start(options)
        do {
            try await body(server)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func downloadsAFileByteForByte() async throws {
        try await Self.withServer { server in
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["-q", "-j", "1", server.url("/pub/data.bin"), server.url("/pub/a.txt")], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(list(dir) == ["a.txt", "data.bin"])
            #expect(read(dir + "/data.bin") == Self.payload)
            #expect(server.sessionCount == 1)  // one login for both files
        }
    }

    @Test func continuesWithDashC() async throws {
        try await Self.withServer { server in
            let dir = try makeTemporaryDirectory()
            try Data(Self.payload.prefix(600_000)).write(to: URL(filePath: dir + "/data.bin"))
            let result = try await SwgetProcess.run(["-q", "-c", server.url("/pub/data.bin")], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(read(dir + "/data.bin") == Self.payload)
            #expect(server.commands.contains { $0.verb == "REST" && $0.argument == "600000" })
        }
    }

    @Test func killNineThenRerunContinues() async throws {
        try await Self.withServer({ $0.throttle = (bytesPerWrite: 30_000, interval: .milliseconds(20)) }) { server in
            let dir = try makeTemporaryDirectory()
            let url = server.url("/pub/data.bin")
            let script = """
            '\(SwgetProcess.binaryPath)' -q '\(url)' & pid=$!
            n=0
            while [ $n -lt 3000 ]; do
              size=$(stat -c %s data.bin.part 2>/dev/null || echo 0)
              if [ "$size" -ge 400000 ] && [ data.bin.swget -nt data.bin.part -o "$size" -ge 700000 ]; then break; fi
              sleep 0.01; n=$((n+1))
            done
            kill -9 $pid; wait $pid; echo "killed"
            """
            let killed = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
            #expect(list(dir) == ["data.bin.part", "data.bin.swget"], "\(killed.stderr)")
            server.update { $0.throttle = nil }
            let rerun = try await SwgetProcess.run(["-q", url], in: dir)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(list(dir) == ["data.bin"])
            #expect(read(dir + "/data.bin") == Self.payload)
            let rests = server.commands.filter { $0.verb == "REST" }
            // The rerun continued from the last checkpoint (REST), never from zero.
            #expect(rests.count == 1 && (Int(rests.first?.argument ?? "") ?? 0) > 0, "\(rests)")
        }
    }

    @Test func globsExpandToTheMatchingFiles() async throws {
        try await Self.withServer { server in
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["-q", "-j", "2", server.url("/pub/*.txt")], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(list(dir) == ["a.txt", "b.txt"])
            let none = try await SwgetProcess.run(["-q", server.url("/pub/*.zip")], in: dir)
            #expect(none.status == 8, "\(none.stderr)")
            #expect(none.stderr.contains("no file matches"))
            let literal = try await SwgetProcess.run(["-q", "--no-glob", server.url("/pub/*.txt")], in: dir)
            #expect(literal.status == 8, "\(literal.stderr)")
            #expect(server.commands.contains { $0.verb == "RETR" && $0.argument == "pub/*.txt" })
        }
    }

    @Test func spiderChecksExistence() async throws {
        try await Self.withServer { server in
            let dir = try makeTemporaryDirectory()
            let found = try await SwgetProcess.run(["--spider", server.url("/pub/data.bin")], in: dir)
            #expect(found.status == 0, "\(found.stderr)")
            let missing = try await SwgetProcess.run(["--spider", server.url("/pub/none.bin")], in: dir)
            #expect(missing.status == 8, "\(missing.stderr)")
            #expect(list(dir).isEmpty)
            #expect(!server.commands.map(\.verb).contains("RETR"))
        }
    }

    @Test func exitCodesForRefusals() async throws {
        try await Self.withServer({ $0.users = ["alice": "right"] }) { server in
            let dir = try makeTemporaryDirectory()
            let notFound = try await SwgetProcess.run(["-q", server.url("/pub/none.bin")], in: dir)
            #expect(notFound.status == 8, "\(notFound.stderr)")
            #expect(notFound.stderr.contains("550"))
            let login = try await SwgetProcess.run(["-q", "--ftp-user", "alice", "--ftp-password", "wrong", server.url("/pub/a.txt")], in: dir)
            #expect(login.status == 6, "\(login.stderr)")
            let good = try await SwgetProcess.run(["-q", "--ftp-user", "alice", "--ftp-password", "right", server.url("/pub/a.txt")], in: dir)
            #expect(good.status == 0, "\(good.stderr)")
            #expect(list(dir) == ["a.txt"])
        }
    }

    @Test func netrcLogins() async throws {
        try await Self.withServer({
            $0.users = ["bob": "pw"]
            $0.allowsAnonymous = false
        }) { server in
            let dir = try makeTemporaryDirectory()
            let home = try makeTemporaryDirectory()
            try "machine 127.0.0.1 login bob password pw\n".write(toFile: home + "/.netrc", atomically: true, encoding: .utf8)
            chmod(home + "/.netrc", 0o600)
            let result = try await SwgetProcess.run(["-q", server.url("/pub/a.txt")], in: dir, environment: ["HOME": home])
            #expect(result.status == 0, "\(result.stderr)")
            let ignored = try await SwgetProcess.run(["-q", "--no-netrc", "-O", "x", server.url("/pub/a.txt")], in: dir,
                                                     environment: ["HOME": home])
            #expect(ignored.status == 6, "\(ignored.stderr)")
            let named = try await SwgetProcess.run(["-q", "--netrc-file", home + "/.netrc", "-O", "y", server.url("/pub/a.txt")], in: dir)
            #expect(named.status == 0, "\(named.stderr)")
            #expect(read(dir + "/y") == Array("alpha\n".utf8))
        }
    }

    @Test func activeModeAndStandardOutput() async throws {
        try await Self.withServer { server in
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["-q", "--no-passive-ftp", "-O", "-", server.url("/pub/a.txt")], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == Array("alpha\n".utf8))
            #expect(server.commands.map(\.verb).contains("EPRT"))
        }
    }

    @Test func directoriesBecomeAnIndex() async throws {
        try await Self.withServer { server in
            let dir = try makeTemporaryDirectory()
            let result = try await SwgetProcess.run(["-q", server.url("/pub/")], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(list(dir) == ["index.html"])
            #expect(String(decoding: read(dir + "/index.html") ?? [], as: UTF8.self).contains(">data.bin</a>"))
        }
    }

    @Test func fileAndDataURLs() async throws {
        let dir = try makeTemporaryDirectory()
        let source = try makeTemporaryDirectory()
        try Data(Self.payload).write(to: URL(filePath: source + "/local.bin"))
        let copied = try await SwgetProcess.run(["-q", "file://" + source + "/local.bin"], in: dir)
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(read(dir + "/local.bin") == Self.payload)
        try Data(Self.payload.prefix(1000)).write(to: URL(filePath: dir + "/again.bin"))
        let continued = try await SwgetProcess.run(["-q", "-c", "-O", "again.bin", "file://" + source + "/local.bin"], in: dir)
        #expect(continued.status == 0, "\(continued.stderr)")
        #expect(read(dir + "/again.bin") == Self.payload)
        let directory = try await SwgetProcess.run(["-q", "file://" + source], in: dir)
        #expect(directory.status == 3, "\(directory.stderr)")
        #expect(directory.stderr.contains("is a directory"))
        let data = try await SwgetProcess.run(["-q", "data:text/plain;base64,aGk="], in: dir)
        #expect(data.status == 0, "\(data.stderr)")
        #expect(read(dir + "/data.txt") == Array("hi".utf8))
        let named = try await SwgetProcess.run(["-q", "-O", "note.md", "data:,%23%20Title"], in: dir)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(read(dir + "/note.md") == Array("# Title".utf8))
    }
}
