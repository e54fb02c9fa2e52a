import Foundation
import Testing
import SwgetTestSupport

/// swget against a real nginx (installed by the README's test command), over HTTP and HTTPS.
@Suite("swget against nginx", .serialized)
struct NginxTests {
    struct Fixture {
        let nginx: Nginx
        let root: String
        let caPath: String
        let payload: [UInt8]
    }

    static func withNginx(_ body: (Fixture) async throws -> Void) async throws {
        let root = try makeTemporaryDirectory(prefix: "swget-nginx-root")
        var generator = SystemRandomNumberGenerator()
        let payload = (0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(payload).write(to: URL(fileURLWithPath: root + "/data.bin"))
        try Data("<html>hello</html>".utf8).write(to: URL(fileURLWithPath: root + "/index.html"))
        try Data("name".utf8).write(to: URL(fileURLWithPath: root + "/named.txt"))
        let pki = try TestCertificates.make()
        let keys = try makeTemporaryDirectory(prefix: "swget-nginx-keys")
        let (cert, key) = try pki.serverIdentity().write(to: keys, name: "server")
        let caPath = try pki.writeCA(to: keys)
        let nginx = try await Nginx.start(root: root, tlsCertificatePath: cert, tlsKeyPath: key)
        defer {
            nginx.stop()
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: keys)
        }
        try await body(Fixture(nginx: nginx, root: root, caPath: caPath, payload: payload))
    }

    @Test func httpAndHttpsDownloadsMatchByteForByte() async throws {
        try await Self.withNginx { f in
            let dir = try makeTemporaryDirectory()
            let https = try #require(f.nginx.httpsURL)
            let result = try await SwgetProcess.run(
                ["-q", "--ca-certificate", f.caPath, "-P", "out", f.nginx.httpURL + "/data.bin", https + "/data.bin",
                 f.nginx.httpURL + "/"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").sorted()
            #expect(files == ["data-1.bin", "data.bin", "index.html"])
            for name in ["data.bin", "data-1.bin"] {
                let bytes = FileManager.default.contents(atPath: dir + "/out/" + name).map { [UInt8]($0) }
                #expect(bytes == f.payload, "\(name)")
            }
        }
    }

    @Test func stdoutOverHTTPS() async throws {
        try await Self.withNginx { f in
            let https = try #require(f.nginx.httpsURL)
            let result = try await SwgetProcess.run(["--cacert", f.caPath, "-O", "-", https + "/data.bin"],
                                                    in: try makeTemporaryDirectory())
            #expect(result.status == 0)
            #expect(result.stdout == f.payload)
            let untrusted = try await SwgetProcess.run(["-O", "-", https + "/data.bin"], in: try makeTemporaryDirectory())
            #expect(untrusted.status == 5)
            #expect(untrusted.stdout.isEmpty)
        }
    }

    @Test func continueFlagAgainstNginx() async throws {
        try await Self.withNginx { f in
            let dir = try makeTemporaryDirectory()
            try Data(f.payload.prefix(1_000_000)).write(to: URL(fileURLWithPath: dir + "/data.bin"))
            let result = try await SwgetProcess.run(["-c", f.nginx.httpURL + "/data.bin"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("kept from before"))
            #expect(FileManager.default.contents(atPath: dir + "/data.bin").map { [UInt8]($0) } == f.payload)
            #expect(f.nginx.accessLog().contains("range=\"bytes=1000000-\""))
        }
    }

    @Test func fileChangedOnTheServerBetweenAttemptsRestarts() async throws {
        try await Self.withNginx { f in
            let dir = try makeTemporaryDirectory()
            let url = f.nginx.httpURL + "/slow/data.bin"   // limit_rate 1m: about 3 s for 3 MB
            let script = """
            '\(SwgetProcess.binaryPath)' -q '\(url)' & pid=$!
            n=0
            while [ $n -lt 1000 ]; do
              # Wait for a checkpoint that claims some bytes, then kill: the rerun has a part to judge.
              b=$(grep -o '"bytesOnDisk":[0-9]*' data.bin.swget 2>/dev/null | cut -d: -f2)
              if [ "${b:-0}" -ge 500000 ]; then break; fi
              sleep 0.01; n=$((n+1))
            done
            kill -9 $pid; wait $pid; true
            """
            _ = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
            #expect(FileManager.default.fileExists(atPath: dir + "/data.bin.part"))
            // The file changes on the server: new content, new length, new ETag.
            let changed = [UInt8](repeating: 0x5A, count: 2_500_000)
            try await Task.sleep(for: .milliseconds(1100))  // a new mtime second, hence a new ETag
            try Data(changed).write(to: URL(fileURLWithPath: f.root + "/data.bin"))
            let rerun = try await SwgetProcess.run(["-q", url], in: dir)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(FileManager.default.contents(atPath: dir + "/data.bin").map { [UInt8]($0) } == changed)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["data.bin"])
            // The rerun asked for the rest with If-Range and got the whole new file instead.
            let log = f.nginx.accessLog().split(separator: "\n")
            #expect(log.contains { $0.hasPrefix("GET /slow/data.bin 200") && $0.contains("range=\"bytes=") && !$0.contains("if_range=\"\"") },
                    "\(log)")
        }
    }

    @Test func redirectsAndContentDispositionFromNginx() async throws {
        try await Self.withNginx { f in
            let dir = try makeTemporaryDirectory()
            let viaRedirect = try await SwgetProcess.run(["-q", f.nginx.httpURL + "/redirect/named.txt"], in: dir)
            let trusted = try await SwgetProcess.run(["-q", "--trust-server-names", f.nginx.httpURL + "/redirect/named.txt"], in: dir)
            let disposition = try await SwgetProcess.run(["-q", f.nginx.httpURL + "/cd/named.txt"], in: dir)
            #expect(viaRedirect.status == 0 && trusted.status == 0 && disposition.status == 0)
            let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
            // Without --trust-server-names the name comes from the URL asked for.
            #expect(files == ["cd-named.txt", "named-1.txt", "named.txt"])
            let missing = try await SwgetProcess.run([f.nginx.httpURL + "/nope.txt"], in: dir)
            #expect(missing.status == 8)
            #expect(missing.stderr.contains("404"))
        }
    }
}
