import Foundation
import NIOHTTP1
import Synchronization
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Bodies that must be sent again (307/308, retries) or cannot be (standard input), a server
/// that closes during the upload, forms end to end, and the body digest of Digest `auth-int`.
@Suite("Upload replays, failures and forms (in-process server)")
struct UploadReplayTests {
    typealias T = UploadTaskTests

    /// /a answers 307 (or `status`) to /b after reading the body; /b echoes.
    static func redirecting(_ status: Int = 307) -> @Sendable (UploadServer.Received) -> UploadServer.Reply {
        { received in
            received.uri == "/a" ? UploadServer.Reply(status: status, headers: [("Location", "/b")]) : .echo(received)
        }
    }

    @Test("307 and 308 send a file body again, reopened, byte for byte; 303 turns it into a GET", arguments: [307, 308, 303])
    func redirectReplaysFile(status: Int) async throws {
        let dir = try UploadScratchDirectory()
        let body = patternBytes(300_000, seed: 21)
        let path = try dir.write("f.bin", body)
        try await T.withUploadServer(reply: Self.redirecting(status)) { server in
            let (data, response) = try await Session().upload(for: try T.put(server.baseURL + "/a", method: "POST"),
                                                              fromFile: URL(filePath: path))
            #expect(response.statusCode == 200)
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[0].sha256 == UploadServer.sha256(body) && requests[0].complete)
            if status == 303 {
                #expect(requests[1].method == "GET" && requests[1].bodyLength == 0)
                #expect(requests[1].header("Content-Length") == nil)
            } else {
                #expect(requests[1].method == "POST")
                #expect(requests[1].sha256 == UploadServer.sha256(body) && requests[1].complete)
                #expect(String(decoding: data, as: UTF8.self) == "POST 300000 \(UploadServer.sha256(body))")
            }
        }
    }

    @Test("307 with a single-use stream that was sent: refused with a clear error, unless the delegate gives a new stream")
    func redirectWithStdin() async throws {
        let body = patternBytes(200_000, seed: 23)
        try await T.withUploadServer(reply: Self.redirecting()) { server in
            var request = try T.put(server.baseURL + "/a")
            request.body = .stream(T.once(body))
            let refusing = T.Recorder()
            let task = Session(delegate: refusing).dataTask(with: request)
            let error = await task.outcome()
            #expect(error == SessionError.bodyNotReplayable)
            #expect(error?.message.contains("cannot be read twice") == true)
            #expect(error?.message.contains("redirect (307)") == true)
            #expect(refusing.asked.withLock { $0 } == 1)
            #expect(server.requests.count == 1)

            request.body = .stream(T.once(body))
            let giving = T.Recorder(replay: { T.stream(body) })
            let (_, response) = try await Session(delegate: giving).data(for: request)
            #expect(response.statusCode == 200)
            #expect(server.requests.last?.sha256 == UploadServer.sha256(body))
            #expect(server.requests.last?.uri == "/b")
        }
    }

    @Test("a replayable stream is made again for the redirect")
    func redirectWithReplayableStream() async throws {
        let body = patternBytes(150_000, seed: 25)
        let made = Mutex(0)
        try await T.withUploadServer(reply: Self.redirecting(308)) { server in
            var request = try T.put(server.baseURL + "/a")
            request.body = .stream(BodyStream {
                made.withLock { $0 += 1 }
                return T.stream(body)
            })
            _ = try await Session().data(for: request)
            #expect(made.withLock { $0 } == 2)
            #expect(server.requests.map(\.sha256) == [UploadServer.sha256(body), UploadServer.sha256(body)])
        }
    }

    @Test("the server closes during the upload: a network error naming the body")
    func closedMidUpload() async throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("big.bin", patternBytes(8 << 20, seed: 27))
        try await T.withUploadServer(plan: { _, _, _ in .closeAfter(bytes: 256 * 1024) }) { server in
            let task = Session().uploadTask(with: try T.put(server.baseURL + "/x"), fromFile: URL(filePath: path))
            let error = await task.outcome()
            #expect(error?.category == .network)
            #expect(error?.message.contains("request body") == true, "\(error?.message ?? "")")
            #expect(server.requests.count == 1)
        }
    }

    @Test("retries: a PUT of a file is sent again after the connection closed; a POST, or a PUT from a single-use stream, is not")
    func retries() async throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("f.bin", patternBytes(500_000, seed: 29))
        var configuration = SessionConfiguration.default
        configuration.retryPolicy.maxAttempts = 3
        configuration.retryPolicy.initialDelay = .milliseconds(10)
        configuration.retryPolicy.maxDelay = .milliseconds(20)
        let cases: [(String, RequestBody, Int)] = [
            ("PUT", .file(path: path), 3),
            ("POST", .file(path: path), 1),
            ("PUT", .stream(T.once(patternBytes(500_000))), 1),
        ]
        for (method, body, attempts) in cases {
            try await T.withUploadServer(plan: { _, _, _ in .closeAfter(bytes: 1000) }) { server in
                var request = try T.put(server.baseURL + "/x", method: method)
                request.body = body
                let error = await Session(configuration: configuration).dataTask(with: request).outcome()
                #expect(error?.category == .network)
                #expect(server.requests.count == attempts, "\(method) \(body)")
            }
        }
    }

    @Test("an unreadable file fails with a file error before anything is sent")
    func unreadableFile() async throws {
        try await T.withUploadServer { server in
            let task = Session().uploadTask(with: try T.put(server.baseURL + "/x"), fromFile: URL(filePath: "/nonexistent/swget-file"))
            let error = await task.outcome()
            #expect(error?.category == .fileIO)
            #expect(error?.message.contains("/nonexistent/swget-file") == true)
            #expect(server.connectionCount == 0)
        }
    }

    @Test("a multipart form arrives as the form: boundary in the Content-Type, parts as built")
    func multipartEndToEnd() async throws {
        let dir = try UploadScratchDirectory()
        let fileBytes = patternBytes(200_000, seed: 31)
        let path = try dir.write("photo.jpg", fileBytes)
        let form = try MultipartFormData(parts: [
            .value(name: "ti\"tle", "Grüße, \"world\""),
            .file(name: "upload", path: path),
        ])
        try await T.withUploadServer { server in
            var request = try T.put(server.baseURL + "/form", method: "POST")
            request.body = .multipart(form)
            _ = try await Session().data(for: request)
            let received = try #require(server.requests.first)
            #expect(received.header("Content-Type") == form.contentType)
            let body = try #require(received.body)
            let parts = Self.parseMultipart(body, boundary: form.boundary)
            try #require(parts.count == 2)
            #expect(parts[0].headers == ["Content-Disposition: form-data; name=\"ti%22tle\""])
            #expect(parts[0].content == Array("Grüße, \"world\"".utf8))
            #expect(parts[1].headers == ["Content-Disposition: form-data; name=\"upload\"; filename=\"photo.jpg\"",
                                         "Content-Type: image/jpeg"])
            #expect(parts[1].content == fileBytes)
        }
    }

    /// Splits a multipart body at `--boundary` delimiters (RFC 2046 §5.1.1): each part's header
    /// lines and content. Checks the closing delimiter.
    static func parseMultipart(_ body: [UInt8], boundary: String) -> [(headers: [String], content: [UInt8])] {
        let delimiter = Array("--\(boundary)".utf8)
        var positions: [Int] = []
        var i = 0
        while i + delimiter.count <= body.count {
            if body[i..<(i + delimiter.count)].elementsEqual(delimiter), i == 0 || body[(i - 2)..<i].elementsEqual([13, 10]) {
                positions.append(i)
                i += delimiter.count
            } else {
                i += 1
            }
        }
        guard let last = positions.last, body[(last + delimiter.count)...].starts(with: Array("--\r\n".utf8)) else { return [] }
        var parts: [(headers: [String], content: [UInt8])] = []
        for (start, end) in zip(positions, positions.dropFirst()) {
            let part = Array(body[(start + delimiter.count + 2)..<(end - 2)])
            guard let split = (0..<max(0, part.count - 3)).first(where: { part[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else { continue }
            let headers = String(decoding: part[..<split], as: UTF8.self).components(separatedBy: "\r\n")
            parts.append((headers, Array(part[(split + 4)...])))
        }
        return parts
    }

    @Test("Digest auth-int: bytes as they are, a file hashed only when auth-int alone is offered, a stream never")
    func digestBody() throws {
        let dir = try UploadScratchDirectory()
        let bytes = patternBytes(700_000, seed: 33)
        let path = try dir.write("f.bin", bytes)
        let authInt = AuthChallenge.parse(fields: [#"Digest realm="r", nonce="n", qop="auth-int", algorithm=SHA-256"#])
        let both = AuthChallenge.parse(fields: [#"Digest realm="r", nonce="n", qop="auth,auth-int", algorithm=SHA-256"#])
        #expect(ExchangeRunner.digestBody(nil, for: authInt) == .empty)
        #expect(ExchangeRunner.digestBody(.data([1, 2]), for: authInt) == .bytes([1, 2]))
        #expect(ExchangeRunner.digestBody(.stream(UploadTaskTests.once([1])), for: authInt) == .unavailable)
        #expect(ExchangeRunner.digestBody(.file(path: path), for: both) == .unavailable)
        let hashed = ExchangeRunner.digestBody(.file(path: path), for: authInt)
        #expect(hashed.digest(.sha256) == DigestHash.sha256.hex(bytes))
        #expect(ExchangeRunner.digestBody(.file(path: dir.path + "/missing"), for: authInt) == .unavailable)
    }
}

/// A download task whose request carries a body: the answer is saved like any download, but
/// never continued, split or left behind as a part to resume.
@Suite("Download tasks with a request body")
struct UploadDownloadTests {
    typealias T = UploadTaskTests

    @Test("the answer is saved as a file; the body went once, whole")
    func saved() async throws {
        let dir = try UploadScratchDirectory()
        let body = patternBytes(300_000, seed: 51)
        try await T.withUploadServer { server in
            var request = try T.put(server.baseURL + "/answer.txt")
            request.body = .data(body)
            let task = Session().downloadTask(with: request, destination: .directory(dir.path))
            let error = await task.outcome()
            #expect(error == nil)
            let location = try #require(task.location)
            let saved = try String(contentsOf: location, encoding: .utf8)
            #expect(saved == "PUT \(body.count) \(UploadServer.sha256(body))")
            #expect(server.requests.count == 1)
        }
    }

    @Test("a failed upload in a background session leaves no part file and no state to continue")
    func nothingLeftBehind() async throws {
        let dir = try UploadScratchDirectory()
        let path = try dir.write("in.bin", patternBytes(4 << 20, seed: 53))
        try await T.withUploadServer(plan: { _, _, _ in .closeAfter(bytes: 100_000) }) { server in
            var request = try T.put(server.baseURL + "/out.bin", method: "POST")
            request.body = .file(path: path)
            let session = Session(configuration: .background(identifier: "upload-test"))
            defer { session.finishTasksAndInvalidate() }
            let task = session.downloadTask(with: request, destination: .directory(dir.path + "/"))
            let error = await task.outcome()
            #expect(error?.category == .network)
            #expect(task.partialFile == nil)
            #expect(error?.resumeData == nil)
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            #expect(left == ["in.bin"])
        }
    }
}
