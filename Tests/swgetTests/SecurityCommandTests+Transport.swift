import Foundation
import Testing
import SwgetTestSupport

/// Issue 10 §4 (a TLS 1.2 floor) and §6 (ports, bytes after a body, 204, invisible characters
/// in names, https → http redirects).
extension SecurityCommandTests {
    // MARK: §4 TLS 1.0 and 1.1

    /// `openssl s_server` offering only TLS 1.0 (or 1.1) on a free port, with a certificate
    /// the client trusts, started and stopped by the script around one swget run. The URL names
    /// 127.0.0.1 (an IP SAN of the certificate), not localhost: s_server listens on IPv4 only,
    /// and ::1 on the same port may be another test's server.
    /// Observed: the handshake always fails, with or without certificate checks, and nothing is
    /// saved (9062cfa: exit 0, page saved). swget offers TLS 1.2 and later only (the session's
    /// `minimumTLSVersion`); s_server answers with a protocol_version alert and closes. Usually
    /// the alert is read: `SessionError.tlsHandshake`, category `.tls`, exit 5. Sometimes (about
    /// one run in ten on a loaded machine) s_server's close resets the connection before the
    /// alert is read (Linux drops unread data on a reset): "connection closed during setup",
    /// a network failure, exit 4. Both are refusals; the TLS 1.2 control below passes.
    @Test(arguments: ["-tls1", "-tls1_1"], [false, true])
    func oldTLSVersionsAreRefused(_ version: String, insecure: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let openssl = try #require(SwgetProcess.findExecutable("openssl"), "openssl is installed by scripts/install-deps")
        let pki = try TestCertificates.make()
        let identity = try pki.serverIdentity()
        try identity.certificateChainPEM.write(toFile: dir + "/cert.pem", atomically: true, encoding: .utf8)
        try identity.privateKeyPEM.write(toFile: dir + "/key.pem", atomically: true, encoding: .utf8)
        _ = try pki.writeCA(to: dir)
        let trust = insecure ? "--no-check-certificate" : "--ca-certificate ca.pem"
        // SECLEVEL=0: OpenSSL 3 refuses TLS < 1.2 itself unless told otherwise.
        let script = """
        '\(openssl)' s_server -accept 127.0.0.1:0 \(version) -cert cert.pem -key key.pem -cipher 'DEFAULT:@SECLEVEL=0' -www -naccept 4 >server.log 2>&1 & server=$!
        n=0; while ! grep -q '^ACCEPT' server.log && [ $n -lt 1000 ]; do sleep 0.01; n=$((n+1)); done
        port=$(sed -n 's/^ACCEPT .*:\\([0-9]*\\)$/\\1/p' server.log)
        '\(SwgetProcess.binaryPath)' -t 1 \(trust) -O out.html "https://127.0.0.1:$port/"; code=$?
        kill $server 2>/dev/null; wait $server 2>/dev/null
        echo "port $port"; exit $code
        """
        let result = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
        #expect(result.stdoutText.hasPrefix("port ") && !result.stdoutText.hasPrefix("port \n"), "the server started: \(result.stdoutText)")
        #expect(result.status == 5 || result.status == 4, "\(version) \(insecure): \(result.stderr)")
        #expect(result.stderr.contains(result.status == 5 ? "TLS handshake failed" : "connection closed"), "\(result.stderr)")
        #expect(!list(dir).contains("out.html"))
    }

    /// The control: the same server offering TLS 1.2 is accepted (the test above can pass
    /// only because of the version).
    @Test func tls12IsAccepted() async throws {
        let dir = try makeTemporaryDirectory()
        let openssl = try #require(SwgetProcess.findExecutable("openssl"))
        let pki = try TestCertificates.make()
        let identity = try pki.serverIdentity()
        try identity.certificateChainPEM.write(toFile: dir + "/cert.pem", atomically: true, encoding: .utf8)
        try identity.privateKeyPEM.write(toFile: dir + "/key.pem", atomically: true, encoding: .utf8)
        _ = try pki.writeCA(to: dir)
        let script = """
        '\(openssl)' s_server -accept 127.0.0.1:0 -tls1_2 -cert cert.pem -key key.pem -www -naccept 4 >server.log 2>&1 & server=$!
        n=0; while ! grep -q '^ACCEPT' server.log && [ $n -lt 1000 ]; do sleep 0.01; n=$((n+1)); done
        port=$(sed -n 's/^ACCEPT .*:\\([0-9]*\\)$/\\1/p' server.log)
        '\(SwgetProcess.binaryPath)' -q -t 1 --ca-certificate ca.pem -O out.html "https://127.0.0.1:$port/"; code=$?
        kill $server 2>/dev/null; wait $server 2>/dev/null
        exit $code
        """
        let result = try await SwgetProcess.run(executable: "/bin/sh", ["-c", script], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: read(dir + "/out.html") ?? [], as: UTF8.self).contains("<HTML>"))
    }

    // MARK: §6 the wire

    /// Ports outside 1–65535 are an invalid URL (exit 1, as documented) and nothing is sent,
    /// even where the port modulo 65536 is a listening server.
    @Test func portsOutsideTheRangeAreInvalidAndNothingIsSent() async throws {
        let dir = try makeTemporaryDirectory()
        let server = try await TestServer.start { _ in .text("reached") }
        for port in [server.port + 65_536, 0] {
            let result = try await SwgetProcess.run(["-t", "1", "http://127.0.0.1:\(port)/x.txt"], in: dir)
            #expect(result.status == 1, "\(port): \(result.stderr)")
            #expect(result.stderr.contains("invalid URL"), "\(result.stderr)")
        }
        try await server.stop()
        #expect(server.connectionCount == 0)
        #expect(list(dir) == [])
    }

    /// A complete body followed by extra bytes (`Content-Length: 5` carrying more, a 204 with
    /// a body): one attempt, the body kept, one warning, the connection not reused.
    @Test(arguments: [false, true])
    func extraBytesAfterACompleteBodyAreKeptOnceWithAWarning(noContent: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        let server = try await TestServer.start { request in
            if request.path == "/next.txt" { return .text("next") }
            return noContent
                ? TestResponse(status: 204, body: Array("a body a 204 cannot have".utf8))
                : TestResponse.ok(Array("hello, and ten more".utf8)).withHeader("Content-Length", "5")
        }
        // One after another (-j 1), so that the second could reuse the first one's connection.
        let result = try await SwgetProcess.run(["-j", "1", "--waitretry", "0.05", server.baseURL + "/a.txt", server.baseURL + "/next.txt"],
                                                in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let requests = server.requests
        #expect(requests.map(\.path) == ["/a.txt", "/next.txt"], "one attempt each")
        #expect(requests.count == 2 && requests[0].connectionID != requests[1].connectionID, "not reused")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("after the end of the response") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(list(dir) == (noContent ? ["next.txt"] : ["a.txt", "next.txt"]))
        if !noContent { #expect(read(dir + "/a.txt") == Array("hello".utf8)) }
    }

    /// wget's Test-204: no file, exit 0.
    @Test func aNoContentAnswerCreatesNoFile() async throws {
        let dir = try makeTemporaryDirectory()
        let server = try await TestServer.start { _ in .status(204) }
        let result = try await SwgetProcess.run([server.baseURL + "/empty.txt"], in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(list(dir) == [])
    }

    /// Zero-width characters and the BOM are stripped from names, from Content-Disposition
    /// (RFC 8187 and plain) and from the URL.
    @Test(arguments: [
        ("/x", "attachment; filename*=UTF-8''%EF%BB%BFre%E2%80%8Bport%E2%81%A0.txt"),
        ("/x", "attachment; filename=\"\u{FEFF}re\u{200C}port\u{200D}.txt\""),
        ("/re%E2%80%8Bport%EF%BB%BF.txt", ""),
    ])
    func invisibleCharactersAreStrippedFromNames(_ path: String, _ disposition: String) async throws {
        let dir = try makeTemporaryDirectory()
        let server = try await TestServer.start { _ in
            disposition.isEmpty ? .text("r") : TestResponse.text("r").withHeader("Content-Disposition", disposition)
        }
        let result = try await SwgetProcess.run(["-q", server.baseURL + path], in: dir)
        try await server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(list(dir) == ["report.txt"])
    }

    /// An https → http redirect is followed (as wget and curl do) with one warning line.
    @Test func aRedirectFromHTTPSToHTTPIsFollowedWithOneWarning() async throws {
        let dir = try makeTemporaryDirectory()
        let pki = try TestCertificates.make()
        let ca = try pki.writeCA(to: dir)
        let plain = try await TestServer.start { _ in .text("plain") }
        let plainBase = plain.baseURL
        let secure = try await TestServer.start(tls: try pki.serverIdentity()) { _ in .redirect(302, to: plainBase + "/f.txt") }
        let result = try await SwgetProcess.run(["--ca-certificate", ca, secure.baseURL + "/f.txt"], in: dir)
        let quiet = try await SwgetProcess.run(["-q", "-O", "q.txt", "--ca-certificate", ca, secure.baseURL + "/f.txt"], in: dir)
        try await secure.stop()
        try await plain.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(read(dir + "/f.txt") == Array("plain".utf8))
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("https to http") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.contains("warning") == true, "\(result.stderr)")
        #expect(quiet.status == 0 && read(dir + "/q.txt") == Array("plain".utf8), "\(quiet.stderr)")
    }
}
