import Foundation
import Testing
import SwgetTestSupport

/// Hostile servers that try to make swget hold without bound: 100,000 cookies, a 1 MiB header
/// line, 10,000 redirects, an endless body of 1-byte chunks, a million-line FTP listing. Each
/// must end with its documented one-line error and exit status (or, for the cookies, with a
/// jar kept to its limits), and swget's peak memory must not follow the input: it is measured
/// (VmHWM, through the allocation probe, which is the swget command itself) and compared with
/// the peak of a plain 10 KiB download by the same build. README "Hardening" states the limits.
@Suite("Bounded resources under hostile input", .serialized)
struct HostileBoundsTests {
    /// The most any of these may add to a plain download's peak (debug build, 40 MB; the
    /// release figures are in the README). Measured 2026-11-27: header −0.6 MB, redirects
    /// +0.5, cookies +1.0, chunks +2.3. An FTP listing is held whole up to its bounds (32 MiB,
    /// 100,000 entries): +47 MB at the byte bound, +65 MB at the entry bound.
    static let extraPeakKiB = 8 * 1024
    static let extraPeakForListingKiB = 80 * 1024

    struct Run {
        let status: Int32
        let stderr: String
        let peakKiB: Int
    }

    /// Runs the swget command (as the probe) with `arguments` in `directory`.
    static func run(_ arguments: [String], in directory: String) async throws -> Run {
        let (result, report) = try await ProbeRun.run(arguments, in: directory, timeout: .seconds(300))
        let peak = report["peak_kb"]
        print("hostile bounds: swget \(arguments.last ?? ""): exit \(result.status), peak \(peak ?? 0) KiB")
        return Run(status: result.status, stderr: result.stderr, peakKiB: peak ?? 0)
    }

    static let page = [UInt8](repeating: 0x61, count: 10 * 1024)

    /// 1 MiB of 1-byte chunks and no last chunk: the client's 512 KiB limit comes first.
    static let endlessChunks: [UInt8] = {
        var wire = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = Array("1\r\na\r\n".utf8)
        wire.reserveCapacity(wire.count + chunk.count << 20)
        for _ in 0..<(1 << 20) { wire.append(contentsOf: chunk) }
        return wire
    }()

    /// The hostile HTTP server: /plain, /r/N (a redirect to N+1 until 10,000), /c/N (100
    /// Set-Cookie fields and a redirect to N+1 until 1,000), /header (one 1 MiB header line),
    /// /chunks (1-byte chunks that do not end before the client gives up).
    static func server() async throws -> TestServer {
        try await TestServer.start { request in
            let path = request.path
            if path.hasPrefix("/r/"), let n = Int(path.dropFirst(3)) {
                return n < 10_000 ? .redirect(302, to: "/r/\(n + 1)") : .ok(Array("end\n".utf8))
            }
            if path.hasPrefix("/c/"), let n = Int(path.dropFirst(3)) {
                var response: TestResponse = n < 1_000 ? .redirect(302, to: "/c/\(n + 1)") : .ok(Array("end\n".utf8))
                for index in 0..<100 { response = response.withHeader("Set-Cookie", "c\(n)_\(index)=v; Max-Age=3600") }
                return response
            }
            if path == "/header" {
                return .rawBytes(Array("HTTP/1.1 200 OK\r\nX-Big: ".utf8) + [UInt8](repeating: 0x61, count: 1 << 20)
                                 + Array("\r\nContent-Length: 2\r\n\r\nok".utf8))
            }
            if path == "/chunks" { return .rawBytes(endlessChunks) }
            return .ok(page)
        }
    }

    /// The peak of a plain 10 KiB download: what every case is measured against.
    static func baseline(_ server: TestServer, in directory: String) async throws -> Int {
        let plain = try await run(["-q", "-O", "plain.bin", server.baseURL + "/plain"], in: directory)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.peakKiB > 0, "the probe reported no peak")
        return plain.peakKiB
    }

    @Test func aMegabyteHeaderLineEndsWithAProtocolError() async throws {
        let directory = try makeTemporaryDirectory(prefix: "swget-hostile")
        let server = try await Self.server()
        let base = try await Self.baseline(server, in: directory)
        let run = try await Self.run(["-q", server.baseURL + "/header"], in: directory)
        try await server.stop()
        #expect(run.status == 7, "\(run.stderr)")
        #expect(run.stderr.contains("response headers too large"), "\(run.stderr)")
        #expect(run.peakKiB - base <= Self.extraPeakKiB, "peak \(run.peakKiB) KiB against \(base) KiB")
        #expect(!FileManager.default.fileExists(atPath: directory + "/header"))
    }

    @Test func tenThousandRedirectsStopAtTheLimitOrRunInFlatMemory() async throws {
        let directory = try makeTemporaryDirectory(prefix: "swget-hostile")
        let server = try await Self.server()
        let base = try await Self.baseline(server, in: directory)
        let limited = try await Self.run(["-q", server.baseURL + "/r/0"], in: directory)
        #expect(limited.status == 7, "\(limited.stderr)")
        #expect(limited.stderr.contains("too many redirects (more than 20)"), "\(limited.stderr)")
        // Allowed all the way: 10,000 hops on one connection, memory as for one.
        let followed = try await Self.run(["-q", "--max-redirect", "10000", "-O", "end.txt", server.baseURL + "/r/0"], in: directory)
        let requests = server.requests.count
        try await server.stop()
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(requests >= 10_000 + 21)
        #expect(followed.peakKiB - base <= Self.extraPeakKiB, "peak \(followed.peakKiB) KiB against \(base) KiB")
    }

    @Test func aHundredThousandCookiesLeaveAJarWithinItsLimits() async throws {
        let directory = try makeTemporaryDirectory(prefix: "swget-hostile")
        let server = try await Self.server()
        let base = try await Self.baseline(server, in: directory)
        let run = try await Self.run(["-q", "--max-redirect", "1000", "--save-cookies", "jar.txt", "-O", "end.txt",
                                      server.baseURL + "/c/0"], in: directory)
        try await server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        let jar = (try? String(contentsOfFile: directory + "/jar.txt", encoding: .utf8)) ?? ""
        let cookies = jar.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        // CookieStorage.Limits: 180 per domain, kept to that (plus the fifth a purge waits for).
        #expect(cookies.count > 0 && cookies.count <= 180 + 36, "\(cookies.count) cookies kept")
        // The newest survive: the last answer's cookies are all in the jar.
        #expect(cookies.filter { $0.contains("\tc1000_") }.count == 100)
        #expect(run.peakKiB - base <= Self.extraPeakKiB, "peak \(run.peakKiB) KiB against \(base) KiB")
    }

    @Test func anEndlessBodyOfOneByteChunksStopsAtTheSizeLimit() async throws {
        let directory = try makeTemporaryDirectory(prefix: "swget-hostile")
        let server = try await Self.server()
        let base = try await Self.baseline(server, in: directory)
        let run = try await Self.run(["-q", "--max-filesize", "512K", server.baseURL + "/chunks"], in: directory)
        try await server.stop()
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("the body exceeds the limit of 524288 bytes"), "\(run.stderr)")
        #expect(run.peakKiB - base <= Self.extraPeakKiB, "peak \(run.peakKiB) KiB against \(base) KiB")
        #expect(!FileManager.default.fileExists(atPath: directory + "/chunks"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/chunks.part"))
    }

    @Test func aMillionLineListingEndsAtTheListingBound() async throws {
        let directory = try makeTemporaryDirectory(prefix: "swget-hostile")
        var options = FTPTestServerOptions(files: ["/small/a.bin": FTPTestFile(Self.page)])
        options.directories = ["/big", "/many"]
        options.generatedListingLines = ["/big": 1_000_000, "/many": 150_000]
        let ftp = try await FTPTestServer.start(options)
        let plain = try await Self.run(["-q", "-O", "a.bin", ftp.url("/small/a.bin")], in: directory)
        #expect(plain.status == 0, "\(plain.stderr)")
        // 72 MB of listing: reading stops at 32 MiB, at once and without a retry.
        let huge = try await Self.run(["-q", ftp.url("/big/")], in: directory)
        #expect(huge.status == 7, "\(huge.stderr)")
        #expect(huge.stderr.contains("the directory listing is larger than 32 MiB"), "\(huge.stderr)")
        // 150,000 entries in 11 MB: read, and refused at the 100,001st entry, for a glob too.
        let many = try await Self.run(["-q", ftp.url("/many/*.zip")], in: directory)
        let listings = ftp.commands.filter { $0.verb == "LIST" || $0.verb == "MLSD" }.count
        try await ftp.stop()
        #expect(many.status == 7, "\(many.stderr)")
        #expect(many.stderr.contains("more than 100000 entries"), "\(many.stderr)")
        #expect(listings <= 4, "\(listings) listings asked for: a refused listing must not be retried")
        for run in [huge, many] {
            #expect(run.peakKiB - plain.peakKiB <= Self.extraPeakForListingKiB, "peak \(run.peakKiB) KiB against \(plain.peakKiB) KiB")
        }
    }
}
