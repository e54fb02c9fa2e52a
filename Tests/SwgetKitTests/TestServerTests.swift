import Foundation
import SwgetTestSupport
import Testing

/// Self-tests of the scriptable test server, driven by curl and by a raw client.
@Suite struct TestServerTests {
    private static let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    @Test func contentLengthBodyAndRecordedRequest() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body) }
        let result = try await curl(["-sS", "-H", "X-Test: one", "\(server.baseURL)/file.bin?x=1"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == Self.body)
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.uri == "/file.bin?x=1")
        #expect(request.path == "/file.bin")
        #expect(request.header("x-test") == "one")
        #expect(request.connectionID == 0)
        try await server.stop()
    }

    @Test func postBodyIsRecorded() async throws {
        let server = try await TestServer.start { _ in .status(204) }
        let result = try await curl(["-sS", "--data-binary", "hello", "\(server.baseURL)/upload"])
        #expect(result.exitCode == 0)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.body == Array("hello".utf8))
        try await server.stop()
    }

    @Test func chunkedBody() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body).chunked(333) }
        let result = try await curl(["-sS", "-D", "-", "\(server.baseURL)/"])
        #expect(result.exitCode == 0)
        let (head, body) = split(result.stdout)
        #expect(head.lowercased().contains("transfer-encoding: chunked"))
        #expect(!head.lowercased().contains("content-length"))
        #expect(body == Self.body)
        try await server.stop()
    }

    @Test func closeDelimitedBody() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body).closeDelimited() }
        let result = try await curl(["-sS", "\(server.baseURL)/"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == Self.body)
        try await server.stop()
    }

    @Test func redirectHeader() async throws {
        let server = try await TestServer.start { request in
            request.path == "/old" ? .redirect(301, to: "/new") : .text("arrived")
        }
        let plain = try await curl(["-sS", "-D", "-", "\(server.baseURL)/old"])
        #expect(split(plain.stdout).head.hasPrefix("HTTP/1.1 301 Moved Permanently\r\n"))
        #expect(split(plain.stdout).head.contains("Location: /new\r\n"))
        let followed = try await curl(["-sS", "-L", "\(server.baseURL)/old"])
        #expect(String(decoding: followed.stdout, as: UTF8.self) == "arrived")
        #expect(server.requests.map(\.path) == ["/old", "/old", "/new"])
        try await server.stop()
    }

    @Test func headGetsHeadersOnlyAndKeepsConnection() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body) }
        // -I then a GET on the same connection: a stray HEAD body would corrupt the second response.
        let result = try await curl(["-sS", "-I", "\(server.baseURL)/a", "--next", "-sS", "-i", "\(server.baseURL)/b"])
        #expect(result.exitCode == 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\nHTTP/1.1 200 OK"))
        #expect(server.requests.map(\.method) == ["HEAD", "GET"])
        #expect(server.connectionCount == 1)
        try await server.stop()
    }

    @Test func keepAliveReusesOneConnection() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body) }
        let result = try await curl(["-sS", "\(server.baseURL)/1", "\(server.baseURL)/2"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == Self.body + Self.body)
        #expect(server.connectionCount == 1)
        #expect(server.requests.map(\.connectionID) == [0, 0])
        try await server.stop()
    }

    @Test func connectionCloseForcesNewConnection() async throws {
        let server = try await TestServer.start { _ in .text("x").closingConnection() }
        let result = try await curl(["-sS", "-i", "\(server.baseURL)/1", "\(server.baseURL)/2"])
        #expect(result.exitCode == 0)
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("Connection: close\r\n"))
        #expect(server.connectionCount == 2)
        #expect(server.requests.map(\.connectionID) == [0, 1])
        try await server.stop()
    }

    @Test func abruptCloseIsPartialFile() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body).closing(afterBodyBytes: 1000) }
        let result = try await curl(["-sS", "\(server.baseURL)/"])
        #expect(result.exitCode == 18)
        #expect(result.stdout == Array(Self.body.prefix(1000)))
        try await server.stop()
    }

    @Test func wrongContentLengthIsSentAsIs() async throws {
        let server = try await TestServer.start { _ in .ok(Array("12345".utf8), headers: [("Content-Length", "3")]) }
        let result = try await curl(["-sS", "\(server.baseURL)/"])
        #expect(result.stdout == Array("123".utf8))
        #expect(server.requests.count == 1)
        try await server.stop()
    }

    @Test func stallKeepsConnectionOpenUntilStop() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body).stalling(afterBodyBytes: 100) }
        // The stall never ends, so the exchange ends by its own timeout, never sooner by a close
        // (a loaded machine can only make it later).
        let started = ContinuousClock.now
        let bytes = try await TestServer.rawExchange(
            port: server.port,
            sending: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
            timeout: .seconds(1)
        )
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(bytes.suffix(100) == Self.body.prefix(100))
        try await server.stop()
    }

    @Test func stopClosesStalledConnections() async throws {
        let server = try await TestServer.start { _ in .ok(Self.body).stalling(afterBodyBytes: 10) }
        async let received = TestServer.rawExchange(
            port: server.port,
            sending: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        )
        try await waitUntil { server.requests.count == 1 }
        try await server.stop()
        let bytes = try await received
        #expect(bytes.suffix(10) == Self.body.prefix(10))
    }

    @Test func trickleSendsSlowly() async throws {
        let server = try await TestServer.start { _ in
            .ok(Array(Self.body.prefix(300))).trickled(bytesPerWrite: 100, every: .milliseconds(40))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await curl(["-sS", "\(server.baseURL)/"])
        #expect(clock.now - start >= .milliseconds(120))
        #expect(result.stdout == Array(Self.body.prefix(300)))
        try await server.stop()
    }

    @Test func rawBytesAreSentVerbatim() async throws {
        let server = try await TestServer.start { _ in
            .rawText("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nnot hex\r\n")
        }
        let result = try await curl(["-sS", "\(server.baseURL)/"])
        #expect(result.exitCode != 0)
        let bytes = try await TestServer.rawExchange(port: server.port, sending: Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("\r\n\r\nzz\r\nnot hex\r\n"))
        try await server.stop()
    }

    @Test func oversizedHeadersHaveRequestedSize() async throws {
        let server = try await TestServer.start { _ in .oversizedHeaders(bytes: 4000) }
        let result = try await curl(["-sS", "-D", "-", "\(server.baseURL)/"])
        #expect(result.exitCode == 0)
        #expect(result.stdout.count == 4000)
        try await server.stop()
    }

    @Test func chunkedCloseCutsMidChunk() async throws {
        let body = Array(Self.body.prefix(250))
        let server = try await TestServer.start { _ in .ok(body).chunked(100).closing(afterBodyBytes: 150) }
        let bytes = try await TestServer.rawExchange(port: server.port, sending: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let wire = Array("64\r\n".utf8) + body[0..<100] + Array("\r\n64\r\n".utf8) + body[100..<150]
        #expect(split(bytes).body == wire)
        try await server.stop()
    }

    @Test func pipelinedRequestsAnswerInOrder() async throws {
        let server = try await TestServer.start { request in
            let response = TestResponse.text(request.path)
            return request.path == "/slow" ? response.trickled(bytesPerWrite: 1, every: .milliseconds(5)) : response
        }
        let requests = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let bytes = try await TestServer.rawExchange(port: server.port, sending: Array(requests.utf8))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\r\n\r\n/slowHTTP/1.1 200 OK\r\n"))
        #expect(text.hasSuffix("Connection: close\r\n\r\n/fast"))
        #expect(server.connectionCount == 1)
        try await server.stop()
    }

    @Test func servingHonoursRanges() async throws {
        let server = try await TestServer.start { .serving(Self.body, to: $0, etag: "\"v1\"") }
        let middle = try await curl(["-sS", "-D", "-", "-r", "10-19", "\(server.baseURL)/"])
        #expect(split(middle.stdout).head.hasPrefix("HTTP/1.1 206 Partial Content\r\n"))
        #expect(split(middle.stdout).head.contains("Content-Range: bytes 10-19/5000\r\n"))
        #expect(split(middle.stdout).body == Array(Self.body[10..<20]))
        let suffix = try await curl(["-sS", "-r", "-100", "\(server.baseURL)/"])
        #expect(suffix.stdout == Array(Self.body.suffix(100)))
        let beyond = try await curl(["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-r", "5000-", "\(server.baseURL)/"])
        #expect(String(decoding: beyond.stdout, as: UTF8.self) == "416")
        let stale = try await curl(["-sS", "-r", "10-19", "-H", "If-Range: \"v0\"", "\(server.baseURL)/"])
        #expect(stale.stdout == Self.body)
        try await server.stop()
    }

    @Test func expectContinueIsAnsweredAtOnce() async throws {
        let server = try await TestServer.start { .ok($0.body) }
        let upload = String(repeating: "u", count: 2000)
        let result = try await curl(["-sS", "-v", "-H", "Expect: 100-continue", "--data-binary", upload, "\(server.baseURL)/"])
        // The interim answer is on the wire (curl would otherwise wait and send anyway).
        #expect(result.stderr.contains("< HTTP/1.1 100 Continue"))
        #expect(result.stdout == Array(upload.utf8))
        try await server.stop()
    }

    @Test func tlsWithTestCA() async throws {
        let pki = try TestCertificates.make()
        let server = try await TestServer.start(tls: try pki.serverIdentity()) { _ in .ok(Self.body) }
        #expect(server.baseURL == "https://localhost:\(server.port)")
        let directory = try temporaryDirectory()
        let caPath = try pki.writeCA(to: directory)
        let byName = try await curl(["-sS", "--cacert", caPath, "\(server.baseURL)/"])
        #expect(byName.exitCode == 0)
        #expect(byName.stdout == Self.body)
        let byAddress = try await curl(["-sS", "--cacert", caPath, "https://127.0.0.1:\(server.port)/"])
        #expect(byAddress.exitCode == 0)
        let nio = try await TestServer.rawExchange(
            port: server.port,
            sending: Array("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8),
            tls: try pki.clientConfiguration()
        )
        #expect(split(nio).body == Self.body)
        try await server.stop()
    }

    @Test func untrustedCertificatesAreRejected() async throws {
        let pki = try TestCertificates.make()
        let caPath = try pki.writeCA(to: try temporaryDirectory())
        let selfSigned = try await TestServer.start(tls: try TestCertificates.selfSigned()) { _ in .text("no") }
        let expired = try await TestServer.start(tls: try pki.serverIdentity(expired: true)) { _ in .text("no") }
        let wrongName = try await TestServer.start(tls: try pki.serverIdentity(dnsNames: ["example.test"], ipAddresses: [])) { _ in
            .text("no")
        }
        for server in [selfSigned, expired, wrongName] {
            let result = try await curl(["-sS", "--cacert", caPath, "\(server.baseURL)/"])
            #expect(result.exitCode == 60, "\(result.stderr)")
            #expect(server.requests.isEmpty)
            try await server.stop()
        }
    }

    @Test func identityFilesForNginx() async throws {
        let pki = try TestCertificates.make()
        let directory = try temporaryDirectory()
        let caPath = try pki.writeCA(to: directory)
        let (certPath, keyPath) = try pki.serverIdentity().write(to: directory, name: "server")
        let verify = try await run("/usr/bin/env", ["openssl", "verify", "-CAfile", caPath, certPath])
        #expect(verify.exitCode == 0, "\(verify.stderr)")
        let key = try String(contentsOfFile: keyPath, encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }
}

// MARK: Helpers

private struct ProcessResult {
    var exitCode: Int32
    var stdout: [UInt8]
    var stderr: String
}

private func curl(_ arguments: [String]) async throws -> ProcessResult {
    try await run("/usr/bin/env", ["curl", "--noproxy", "*", "--max-time", "10"] + arguments)
}

/// Runs a program without blocking a Swift concurrency thread; output goes through temporary files.
private func run(_ executable: String, _ arguments: [String]) async throws -> ProcessResult {
    // posix_spawn, not Foundation's Process (see OpenSSLPKI.openssl).
    let result = try await SwgetProcess.run(executable: executable, arguments, in: NSTemporaryDirectory(), timeout: .seconds(120))
    return ProcessResult(exitCode: result.status, stdout: result.stdout, stderr: result.stderr)
}

private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "swget-testserver-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Splits an HTTP response at the first blank line: the head as text (blank line included), the rest as bytes.
private func split(_ bytes: [UInt8]) -> (head: String, body: [UInt8]) {
    let marker: [UInt8] = [13, 10, 13, 10]
    guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == marker }) else {
        return (String(decoding: bytes, as: UTF8.self), [])
    }
    return (String(decoding: bytes[..<(end + 4)], as: UTF8.self), Array(bytes[(end + 4)...]))
}

private func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<200 where !condition() {
        try await Task.sleep(for: .milliseconds(5))
    }
}
