import Foundation
import NIOHTTP1
import Testing
import SwgetTestSupport

/// The built binary sending bodies to the in-process upload server, as users type them: what
/// arrives (method, fields, body hash), where the answer goes, 100-continue refused with 401
/// and the body sent once, 307 replaying a file and refusing standard input, a server closing
/// mid-upload, files that cannot be read, and JSON upload events.
@Suite("swget uploads (in-process server)")
struct UploadCommandTests {
    static func withServer(plan: @escaping @Sendable (String, String, HTTPHeaders) -> UploadServer.BodyPlan = { _, _, _ in .read(sendContinue: true) },
                           reply: @escaping @Sendable (UploadServer.Received) -> UploadServer.Reply = UploadServer.Reply.echo,
                           _ body: (UploadServer, String) async throws -> Void) async throws {
        let server = try await UploadServer.start(plan: plan, reply: reply)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try await body(server, directory)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    /// `count` bytes that do not repeat for a while.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("wget's --post-data: POST, form type, the answer saved like any download")
    func postData() async throws {
        try await Self.withServer { server, dir in
            let result = try await SwgetProcess.run(["-q", "--post-data", "a=1&b=2", server.baseURL + "/submit"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let request = try #require(server.requests.first)
            #expect(request.method == "POST")
            #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(request.header("Content-Length") == "7")
            #expect(request.body == Array("a=1&b=2".utf8))
            // Named as any download: the URL's last segment, with the extension of its text/plain type.
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["submit.txt"])
            let saved = try String(contentsOfFile: dir + "/submit.txt", encoding: .utf8)
            #expect(saved == "POST 7 \(UploadServer.sha256(Array("a=1&b=2".utf8)))")
        }
    }

    @Test("curl's --data family joins in command-line order; --json sets JSON fields; -H wins; -O - prints the answer")
    func dataFamily() async throws {
        try await Self.withServer { server, dir in
            try Self.write(Array("x\ny\n".utf8), to: dir + "/f.txt")
            let result = try await SwgetProcess.run(
                ["-q", "-O", "-", "--data-urlencode", "q=a b&c", "--data", "@f.txt", "--json", #"{"k":1}"#,
                 "-H", "Accept: text/plain", server.baseURL + "/api"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let body = Array(#"q=a+b%26c&xy{"k":1}"#.utf8)
            let request = try #require(server.requests.first)
            #expect(request.body == body)
            #expect(request.header("Content-Type") == "application/json")
            #expect(request.header("Accept") == "text/plain")
            #expect(result.stdoutText == "POST \(body.count) \(UploadServer.sha256(body))")
        }
    }

    @Test("--form sends multipart/form-data with the file's bytes, name and type")
    func form() async throws {
        try await Self.withServer { server, dir in
            let file = Self.bytes(100_000, seed: 3)
            try Self.write(file, to: dir + "/photo.jpg")
            let result = try await SwgetProcess.run(
                ["-q", "-O", "-", "--form", "title=Hi, ü \"q\"", "--form", "upload=@photo.jpg", "--form", "note=<photo.jpg;type=text/x",
                 server.baseURL + "/form"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let request = try #require(server.requests.first)
            let type = try #require(request.header("Content-Type"))
            #expect(type.hasPrefix("multipart/form-data; boundary="))
            let boundary = String(type.dropFirst("multipart/form-data; boundary=".count))
            let body = try #require(request.body)
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.hasPrefix("--\(boundary)\r\n"))
            #expect(text.hasSuffix("\r\n--\(boundary)--\r\n"))
            #expect(text.contains("Content-Disposition: form-data; name=\"title\"\r\n\r\nHi, ü \"q\"\r\n"))
            #expect(text.contains("Content-Disposition: form-data; name=\"upload\"; filename=\"photo.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"))
            #expect(text.contains("Content-Disposition: form-data; name=\"note\"\r\nContent-Type: text/x\r\n\r\n"))
            #expect(request.header("Content-Length") == String(body.count))
            #expect(body.count > 2 * file.count)
        }
    }

    @Test("--upload-file: PUT to the URL completed by the file's name, Content-Length, Expect and 100 Continue, byte for byte")
    func uploadFile() async throws {
        try await Self.withServer { server, dir in
            let file = Self.bytes(3 << 20, seed: 5)
            try Self.write(file, to: dir + "/big.bin")
            let result = try await SwgetProcess.run(["-q", "-O", "-", "--upload-file", "big.bin", server.baseURL + "/dav/"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let request = try #require(server.requests.first)
            #expect(request.method == "PUT")
            #expect(request.uri == "/dav/big.bin")
            #expect(request.header("Content-Length") == String(file.count))
            #expect(request.header("Expect") == "100-continue")
            #expect(request.header("Content-Type") == nil)
            #expect(request.sha256 == UploadServer.sha256(file))
        }
    }

    @Test("--upload-file - streams standard input chunked; --method and --body-file; --request DELETE without a body")
    func standardInputAndMethods() async throws {
        try await Self.withServer { server, dir in
            let input = Self.bytes(2 << 20, seed: 7)
            let put = try await SwgetProcess.run(["-q", "-O", "-", "--upload-file", "-", server.baseURL + "/in"], in: dir, stdin: input)
            #expect(put.status == 0, "\(put.stderr)")
            try Self.write(Array("{}".utf8), to: dir + "/patch.json")
            let patch = try await SwgetProcess.run(["-q", "-O", "-", "--method", "patch", "--body-file", "patch.json",
                                                    "-H", "Content-Type: application/json", server.baseURL + "/p"], in: dir)
            #expect(patch.status == 0, "\(patch.stderr)")
            let delete = try await SwgetProcess.run(["-q", "-O", "-", "--request", "DELETE", server.baseURL + "/d"], in: dir)
            #expect(delete.status == 0, "\(delete.stderr)")
            let requests = server.requests
            try #require(requests.count == 3)
            #expect(requests[0].method == "PUT")
            #expect(requests[0].header("Transfer-Encoding") == "chunked")
            #expect(requests[0].sha256 == UploadServer.sha256(input))
            #expect(requests[1].method == "PATCH")
            #expect(requests[1].header("Content-Type") == "application/json")
            #expect(requests[1].body == Array("{}".utf8))
            #expect(requests[2].method == "DELETE")
            #expect(requests[2].header("Content-Length") == nil && requests[2].bodyLength == 0)
        }
    }

    @Test("Expect refused with 401: the body is withheld, then sent once with the credential — even from standard input")
    func refusedWith401() async throws {
        let input = Self.bytes(2 << 20, seed: 9)
        try await Self.withServer(plan: { _, _, headers in
            headers["authorization"].isEmpty ? .answerBeforeBody : .read(sendContinue: true)
        }, reply: { received in
            received.header("Authorization") == nil
                ? UploadServer.Reply(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"up\"")]) : .echo(received)
        }) { server, dir in
            let result = try await SwgetProcess.run(["-q", "-O", "-", "--user", "u", "--password", "p", "--upload-file", "-",
                                                     server.baseURL + "/secret"], in: dir, stdin: input)
            #expect(result.status == 0, "\(result.stderr)")
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[0].bodyLength == 0 && !requests[0].complete)
            #expect(requests[1].sha256 == UploadServer.sha256(input))
            #expect(result.stdoutText == "PUT \(input.count) \(UploadServer.sha256(input))")
        }
    }

    /// 307 from /a to /b after reading the whole body.
    static let redirecting: @Sendable (UploadServer.Received) -> UploadServer.Reply = { received in
        received.uri == "/a" ? UploadServer.Reply(status: 307, headers: [("Location", "/b")]) : .echo(received)
    }

    @Test("307 after the body: a file is sent again byte for byte; standard input fails with a clear error and exit 1")
    func redirect307() async throws {
        try await Self.withServer(reply: Self.redirecting) { server, dir in
            let file = Self.bytes(300_000, seed: 11)
            try Self.write(file, to: dir + "/f.bin")
            let replayed = try await SwgetProcess.run(["-q", "-O", "-", "--post-file", "f.bin", server.baseURL + "/a"], in: dir)
            #expect(replayed.status == 0, "\(replayed.stderr)")
            #expect(server.requests.map(\.uri) == ["/a", "/b"])
            #expect(server.requests.allSatisfy { $0.method == "POST" && $0.sha256 == UploadServer.sha256(file) })

            let refused = try await SwgetProcess.run(["-q", "-O", "-", "--data-binary", "@-", server.baseURL + "/a"],
                                                     in: dir, stdin: Array(file.prefix(1000)))
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("cannot be read twice"), "\(refused.stderr)")
            #expect(refused.stderr.contains("307"), "\(refused.stderr)")
            #expect(server.requests.count == 3)
        }
    }

    @Test("303 after a POST: the redirect is fetched with GET and no body")
    func redirect303() async throws {
        try await Self.withServer(reply: { received in
            received.uri == "/a" ? UploadServer.Reply(status: 303, headers: [("Location", "/b")]) : .echo(received)
        }) { server, dir in
            let result = try await SwgetProcess.run(["-q", "-O", "-", "--data", "x=1", server.baseURL + "/a"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let requests = server.requests
            try #require(requests.count == 2)
            #expect(requests[1].method == "GET")
            #expect(requests[1].header("Content-Type") == nil && requests[1].bodyLength == 0)
        }
    }

    @Test("a server that closes during the upload: a network error (exit 4) naming the body, sent once even with --tries")
    func closedMidUpload() async throws {
        try await Self.withServer(plan: { _, _, _ in .closeAfter(bytes: 200_000) }) { server, dir in
            try Self.write(Self.bytes(4 << 20, seed: 13), to: dir + "/f.bin")
            let result = try await SwgetProcess.run(["-q", "-O", "-", "--tries", "3", "--waitretry", "0",
                                                     "--post-file", "f.bin", server.baseURL + "/x"], in: dir)
            #expect(result.status == 4, "\(result.stderr)")
            #expect(result.stderr.contains("request body"), "\(result.stderr)")
            #expect(server.requests.count == 1)
        }
    }

    @Test("files that cannot be read stop the run before any connection (exit 3); conflicting options exit 2")
    func refusedBeforeConnecting() async throws {
        try await Self.withServer { server, dir in
            try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
            for arguments in [["--upload-file", "missing.bin"], ["--post-file", "folder"], ["--form", "f=@missing.bin"],
                              ["--data", "@missing.bin"]] {
                let result = try await SwgetProcess.run(arguments + [server.baseURL + "/x"], in: dir)
                #expect(result.status == 3, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(arguments[1].replacingOccurrences(of: "f=@", with: "").replacingOccurrences(of: "@", with: "")),
                        "\(result.stderr)")
            }
            for arguments in [["--data", "x", "--form", "a=b"], ["--post-data", "x", "--upload-file", "f"],
                              ["--body-data", "x"], ["--spider", "--post-data", "x"], ["--request", "GET /x"],
                              ["-i", "-", "--data-binary", "@-"]] {
                let result = try await SwgetProcess.run(arguments + [server.baseURL + "/x"], in: dir)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
            }
            let twice = try await SwgetProcess.run(["--upload-file", "-", server.baseURL + "/a", server.baseURL + "/b"],
                                                   in: dir, stdin: [1, 2, 3])
            #expect(twice.status == 2, "\(twice.stderr)")
            #expect(server.connectionCount == 0)
        }
    }

    @Test("JSON progress has upload events that end at the body's length, then the download's events")
    func jsonUploadEvents() async throws {
        try await Self.withServer { server, dir in
            let file = Self.bytes(2 << 20, seed: 15)
            try Self.write(file, to: dir + "/f.bin")
            let result = try await SwgetProcess.run(["--progress=json", "--upload-file", "f.bin", server.baseURL + "/up/"], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            let uploads = lines.filter { $0.hasPrefix(#"{"event":"upload""#) }
            #expect(!uploads.isEmpty, "\(result.stderr)")
            #expect(uploads.last?.contains(#""sent":\#(file.count),"expected":\#(file.count)"#) == true, "\(uploads)")
            let start = try #require(lines.firstIndex { $0.hasPrefix(#"{"event":"start""#) })
            let lastUpload = try #require(lines.lastIndex { $0.hasPrefix(#"{"event":"upload""#) })
            #expect(lastUpload < start)
            // The download's finish, then the batch summary that ends every JSON run.
            #expect(lines.dropLast().last?.hasPrefix(#"{"event":"finish""#) == true, "\(lines.suffix(2))")
            #expect(lines.last?.hasPrefix(#"{"event":"summary""#) == true, "\(lines.suffix(2))")
            #expect(FileManager.default.fileExists(atPath: dir + "/f.bin-1") || FileManager.default.fileExists(atPath: dir + "/f-1.bin"))
        }
    }
}
