import Foundation
import SwgetTestSupport
import Testing

/// Self-tests of the end-to-end fixtures: the real nginx and the subprocess runner.
@Suite struct NginxFixtureTests {
    /// 100 KiB of bytes that are not all the same.
    static let payload: [UInt8] = (0..<102_400).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }

    /// A temporary root holding `file.bin` (the payload) and `hello.txt`.
    static func makeRoot() throws -> String {
        let root = try makeTemporaryDirectory(prefix: "swget-nginx-root")
        try Data(payload).write(to: URL(fileURLWithPath: root + "/file.bin"))
        try "hello, nginx\n".write(toFile: root + "/hello.txt", atomically: true, encoding: .utf8)
        return root
    }

    static func curl(_ arguments: [String], in directory: String) async throws -> SwgetResult {
        let curl = try #require(SwgetProcess.findExecutable("curl"), "curl is needed for the fixture self-tests")
        return try await SwgetProcess.run(executable: curl, ["-sS"] + arguments, in: directory, timeout: .seconds(30))
    }

    @Test func servesFilesRangesAndTheExtraLocations() async throws {
        let root = try Self.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let nginx = try await Nginx.start(root: root)
        let port = nginx.httpPort
        #expect(nginx.httpURL == "http://127.0.0.1:\(port)")
        #expect(nginx.httpsPort == nil && nginx.httpsURL == nil)
        #expect(Nginx.accepts(port: port))

        // The whole file.
        let whole = try await Self.curl(["-o", "out.bin", nginx.httpURL + "/file.bin"], in: root)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: root + "/out.bin"))) == Self.payload)

        // A range.
        let range = try await Self.curl(["-r", "0-9", nginx.httpURL + "/file.bin"], in: root)
        #expect(range.status == 0, "\(range.stderr)")
        #expect(range.stdout == Array(Self.payload[0..<10]))
        let tail = try await Self.curl(["-r", "102000-", nginx.httpURL + "/file.bin"], in: root)
        #expect(tail.stdout == Array(Self.payload[102_000...]))

        // /redirect/NAME -> 302 to /NAME.
        let redirect = try await Self.curl(
            ["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", nginx.httpURL + "/redirect/hello.txt?x=1"], in: root)
        #expect(redirect.stdoutText == "302 \(nginx.httpURL)/hello.txt?x=1")
        let followed = try await Self.curl(["-L", nginx.httpURL + "/redirect/hello.txt"], in: root)
        #expect(followed.stdoutText == "hello, nginx\n")

        // /cd/NAME -> the file with a Content-Disposition.
        let disposition = try await Self.curl(["-D", "-", "-o", "/dev/null", nginx.httpURL + "/cd/hello.txt"], in: root)
        #expect(disposition.stdoutText.contains("Content-Disposition: attachment; filename=\"cd-hello.txt\""),
                "\(disposition.stdoutText)")

        // /gzip/NAME -> compressed when asked; --compressed gives back the original.
        let gzip = try await Self.curl(
            ["-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip", nginx.httpURL + "/gzip/file.bin"], in: root)
        #expect(gzip.stdoutText.contains("Content-Encoding: gzip"), "\(gzip.stdoutText)")
        let decoded = try await Self.curl(["--compressed", nginx.httpURL + "/gzip/file.bin"], in: root)
        #expect(decoded.stdout == Self.payload)

        // /slow/NAME -> the same bytes (rate-limited).
        let slow = try await Self.curl([nginx.httpURL + "/slow/hello.txt"], in: root)
        #expect(slow.stdoutText == "hello, nginx\n")

        #expect(nginx.accessLog().contains("GET /file.bin 206 10 range=\"bytes=0-9\""), "\(nginx.accessLog())")

        let directory = nginx.directory
        nginx.stop()
        #expect(!Nginx.accepts(port: port), "port \(port) still open after stop()")
        #expect(!FileManager.default.fileExists(atPath: directory))
        nginx.stop()  // idempotent
    }

    @Test func servesHTTPSWithAGeneratedCertificate() async throws {
        let root = try Self.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let openssl = try #require(SwgetProcess.findExecutable("openssl"), "openssl is needed for the HTTPS self-test")
        // A CA and a localhost leaf signed by it, with the openssl command line.
        let script = """
            set -e
            O=\(openssl)
            $O req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj '/CN=test CA' \
              -keyout ca.key -out ca.pem -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
            $O req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost -keyout leaf.key -out leaf.csr
            printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > leaf.ext
            $O x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile leaf.ext -out leaf.pem
            """
        let generated = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: root)
        try #require(generated.status == 0, "openssl failed: \(generated.stderr)")

        let nginx = try await Nginx.start(root: root, tlsCertificatePath: root + "/leaf.pem", tlsKeyPath: root + "/leaf.key")
        defer { nginx.stop() }
        let httpsPort = try #require(nginx.httpsPort)
        #expect(nginx.httpsURL == "https://localhost:\(httpsPort)")

        let fetched = try await Self.curl(["--cacert", root + "/ca.pem", try #require(nginx.httpsURL) + "/file.bin"], in: root)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout == Self.payload)
        let ranged = try await Self.curl(
            ["--cacert", root + "/ca.pem", "-r", "10-19", try #require(nginx.httpsURL) + "/file.bin"], in: root)
        #expect(ranged.stdout == Array(Self.payload[10..<20]))
        // Plain HTTP still works beside it, and the certificate is really checked.
        let plain = try await Self.curl([nginx.httpURL + "/hello.txt"], in: root)
        #expect(plain.stdoutText == "hello, nginx\n")
        let untrusted = try await Self.curl([try #require(nginx.httpsURL) + "/hello.txt"], in: root)
        #expect(untrusted.status == 60)

        nginx.stop()
        #expect(!Nginx.accepts(port: httpsPort))
        #expect(!Nginx.accepts(port: nginx.httpPort))
    }

    @Test func droppingTheLastReferenceStopsNginx() async throws {
        let root = try Self.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var nginx: Nginx? = try await Nginx.start(root: root)
        let port = try #require(nginx?.httpPort)
        let directory = try #require(nginx?.directory)
        #expect(Nginx.accepts(port: port))
        nginx = nil
        #expect(!Nginx.accepts(port: port), "deinit must stop nginx")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func nginxStartsTwiceSideBySide() async throws {
        let root = try Self.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try await Nginx.start(root: root)
        defer { first.stop() }
        let second = try await Nginx.start(root: root)
        defer { second.stop() }
        #expect(first.httpPort != second.httpPort)
        #expect(Nginx.accepts(port: first.httpPort) && Nginx.accepts(port: second.httpPort))
    }
}

/// Self-tests of the subprocess runner on ordinary programs (so it is tested before swget works).
@Suite struct SwgetProcessRunnerTests {
    @Test func runsAProgramAndCapturesItsOutput() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await SwgetProcess.run(executable: "/bin/echo", ["hello", "world"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdoutText == "hello world\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func runsInTheDirectoryWithACleanEnvironment() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pwd = try await SwgetProcess.run(executable: "/bin/sh", ["-c", "pwd -P"], in: directory)
        #expect(pwd.stdoutText == directory + "\n")

        let env = try await SwgetProcess.run(executable: "/usr/bin/env", [], in: directory, environment: ["EXTRA": "1"])
        let names = Set(env.stdoutText.split(separator: "\n").map { String($0.prefix { $0 != "=" }) })
        #expect(names == ["PATH", "HOME", "LANG", "EXTRA"])
        #expect(env.stdoutText.contains("LANG=C.UTF-8\n"))
        let home = try #require(env.stdoutText.split(separator: "\n").first { $0.hasPrefix("HOME=") }).dropFirst(5)
        #expect(home.hasPrefix("/tmp/"))
        #expect(!FileManager.default.fileExists(atPath: String(home)), "the temporary HOME is removed afterwards")
    }

    @Test func feedsStandardInputAndReportsTheExitStatus() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = (0..<300_000).map { UInt8(truncatingIfNeeded: $0) }
        let cat = try await SwgetProcess.run(executable: "/bin/cat", [], in: directory, stdin: input)
        #expect(cat.stdout == input)

        let empty = try await SwgetProcess.run(executable: "/bin/cat", [], in: directory)
        #expect(empty.stdout.isEmpty && empty.status == 0)

        let failing = try await SwgetProcess.run(executable: "/bin/sh", ["-c", "echo oops >&2; exit 3"], in: directory)
        #expect(failing.status == 3)
        #expect(failing.stderr == "oops\n")

        // A child that ignores its input must not hurt the runner (EPIPE, no SIGPIPE).
        let ignoring = try await SwgetProcess.run(executable: "/bin/true", [], in: directory, stdin: input + input + input)
        #expect(ignoring.status == 0)
    }

    @Test func readsLargeStdoutAndStderrTogether() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Both far larger than a pipe buffer, interleaved: a runner reading one after the other would deadlock.
        let script = "for i in 1 2 3 4; do head -c 1000000 /dev/zero; head -c 500000 /dev/zero >&2; done"
        let result = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout.count == 4_000_000)
        #expect(result.stderr.utf8.count == 2_000_000)
    }

    @Test func killsAProcessThatRunsTooLong() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The shell's child prints its own pid: it must die with the shell (the whole process group).
        let error = await #expect(throws: SwgetProcessError.self) {
            try await SwgetProcess.run(executable: "/bin/sh", ["-c", "sh -c 'echo $$; exec sleep 30' & wait"], in: directory,
                                       timeout: .milliseconds(500))
        }
        guard case .timedOut(_, let after, let stdout, _) = error else {
            Issue.record("expected .timedOut, got \(String(describing: error))")
            return
        }
        #expect(after == .milliseconds(500))
        let child = pid_t(String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(child != nil, "output before the kill is kept: \(stdout)")
        if let child {
            // Gone, or a zombie waiting for a reaper (PID 1 of a container may never reap it);
            // SIGKILL takes effect when the process is next scheduled, so allow it a moment.
            func dead() -> Bool {
                guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8) else { return true }
                return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
            }
            var waited = 0
            while !dead() && waited < 100 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            #expect(dead(), "the sleeping grandchild \(child) was killed with the shell")
        }
    }

    @Test func reportsAMissingExecutable() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = await #expect(throws: SwgetProcessError.self) {
            try await SwgetProcess.run(executable: directory + "/no-such-program", [], in: directory)
        }
        #expect(error.map { "\($0)" }?.contains("No such file or directory") == true, "\(String(describing: error))")
    }

    @Test func findsTheSwgetBinaryBesideTheTests() {
        #expect(SwgetProcess.binaryPath.hasSuffix("/swget"))
    }
}
