import Foundation
import Testing
import SwgetTestSupport

/// Issue 18's output and configuration options, end to end with the binary: -o/-a, -d, -s,
/// --write-out, --progress=json's summary, --wait, the configuration file and -e.
@Suite("wget/curl output and configuration options, end to end")
struct OutputCompatCommandTests {
    static func server() async throws -> TestServer {
        try await TestServer.start { request in
            switch request.path {
            case "/missing": return .status(404)
            case "/moved": return .redirect(302, to: "/a.txt")
            case "/echo": return .text("ua=\(request.header("User-Agent") ?? "") tag=\(request.header("X-Tag") ?? "")\n")
            default: return .text("body of \(request.path)\n").withHeader("X-Served-By", "test")
            }
        }
    }

    func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: -o, -a, -d

    @Test func outputFileTakesTheMessagesAndAppendAddsToIt() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let first = try await SwgetProcess.run(["-o", "log.txt", server.baseURL + "/a.txt", server.baseURL + "/missing"], in: dir)
        #expect(first.status == 8)
        #expect(first.stderr.isEmpty, "\(first.stderr)")
        let log = try #require(read(dir + "/log.txt"))
        #expect(log.contains("'a.txt' saved"), "\(log)")
        #expect(log.contains("server answered 404"), "\(log)")
        let second = try await SwgetProcess.run(["-a", "log.txt", "-nc", server.baseURL + "/a.txt"], in: dir)
        #expect(second.status == 0)
        let appended = try #require(read(dir + "/log.txt"))
        #expect(appended.hasPrefix(log))
        #expect(appended.dropFirst(log.count).contains("already there"), "\(appended)")
        let third = try await SwgetProcess.run(["-o", "log.txt", "-O", "b.txt", server.baseURL + "/a.txt"], in: dir)
        #expect(third.status == 0)
        #expect(read(dir + "/log.txt")?.contains("already there") == false, "-o truncates")
    }

    @Test func outputFileThatCannotBeOpenedIsAFileError() async throws {
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-o", "no/such/dir/log", "http://127.0.0.1:9/"], in: dir)
        #expect(result.status == 3)
        #expect(result.stderr.contains("swget: no/such/dir/log: No such file or directory"), "\(result.stderr)")
    }

    @Test func debugShowsRequestsAndConnectionsWithCredentialsMasked() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let url = server.baseURL.replacingOccurrences(of: "http://", with: "http://alice:s3cret@")
        let result = try await SwgetProcess.run(["-d", "-j", "1", "--header", "Cookie: id=topsecret", "--auth-no-challenge",
                                                 url + "/moved", server.baseURL + "/b.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Connected to 127.0.0.1:\(server.port) (127.0.0.1)."), "\(result.stderr)")
        #expect(result.stderr.contains("---request begin---\nGET /moved HTTP/1.1\n"), "\(result.stderr)")
        #expect(result.stderr.contains("Authorization: ***"), "\(result.stderr)")
        #expect(result.stderr.contains("Cookie: ***"), "\(result.stderr)")
        #expect(result.stderr.contains("Reusing the connection to 127.0.0.1:\(server.port)."), "\(result.stderr)")
        #expect(result.stderr.contains("HTTP/1.1 302"), "response heads are shown as with -S: \(result.stderr)")
        #expect(!result.stderr.contains("s3cret") && !result.stderr.contains("topsecret"), "\(result.stderr)")
        #expect(!result.stderr.contains(Data("alice:s3cret".utf8).base64EncodedString()))
    }

    // MARK: -s, --write-out, json summary

    @Test func saveHeadersPutsTheHeadFirst() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["-s", "-q", server.baseURL + "/a.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try #require(read(dir + "/a.txt"))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(text)")
        #expect(text.contains("X-Served-By: test\r\n"))
        #expect(text.hasSuffix("\r\n\r\nbody of /a.txt\n"), "\(text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.txt"])
    }

    @Test func writeOutPrintsEachURLsValues() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let format = #"%{http_code} %{num_redirects} %{size_download} %{filename_effective} %{url_effective} %header{x-served-by} %{exitcode}\n"#
        let result = try await SwgetProcess.run(["-q", "-j", "1", "--write-out", format, server.baseURL + "/moved",
                                                 server.baseURL + "/missing"], in: dir)
        #expect(result.status == 8)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first)
        #expect(result.stdoutText == """
            200 1 15 \(name) \(server.baseURL)/a.txt test 0
            404 0 0  \(server.baseURL)/missing  8

            """, "\(result.stdoutText)")
    }

    @Test func writeOutTimesAreOrderedAndJSONIsOneObject() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        try Data("%{time_namelookup} %{time_connect} %{time_starttransfer} %{time_total}\\n%{json}\\n".utf8)
            .write(to: URL(fileURLWithPath: dir + "/fmt"))
        let result = try await SwgetProcess.run(["-q", "--write-out", "@fmt", server.baseURL + "/a.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        try #require(lines.count == 2, "\(result.stdoutText)")
        let times = lines[0].split(separator: " ").compactMap { Double($0) }
        #expect(times.count == 4)
        #expect(times == times.sorted(), "\(times)")
        #expect(times[3] > 0)
        let object = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect(object?["http_code"] as? Int == 200)
        #expect(object?["num_connects"] as? Int == 1)
        #expect(object?["remote_ip"] as? String == "127.0.0.1")
    }

    @Test func jsonProgressEndsWithASummary() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let result = try await SwgetProcess.run(["--progress=json", server.baseURL + "/a.txt", server.baseURL + "/missing"], in: dir)
        #expect(result.status == 8)
        let last = try #require(result.stderr.split(separator: "\n").last)
        #expect(last.hasPrefix(#"{"event":"summary","files":2,"succeeded":1,"failed":1,"skipped":0,"bytes":15,"seconds":"#), "\(last)")
        #expect(last.hasSuffix(#","exitCode":8}"#), "\(last)")
    }

    // MARK: --wait

    @Test func waitSpacesTheDownloadsOfAList() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let start = ContinuousClock.now
        let result = try await SwgetProcess.run(["-q", "-j", "1", "--wait", "0.4", server.baseURL + "/a.txt",
                                                 server.baseURL + "/b.txt", server.baseURL + "/c.txt"], in: dir)
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(800), "two waits of 0.4 s between three downloads: \(elapsed)")
        #expect(server.requests.map(\.path) == ["/a.txt", "/b.txt", "/c.txt"])
    }

    // MARK: configuration

    @Test func configurationFileAndExecute() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        let home = dir + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.config/swget", withIntermediateDirectories: true)
        try Data("# defaults\n\nuser_agent = FromConfig/1\nheader = X-Tag: from-file\nquiet = on\n".utf8)
            .write(to: URL(fileURLWithPath: home + "/.config/swget/config"))
        let environment = ["HOME": home]
        let plain = try await SwgetProcess.run(["-O", "-", server.baseURL + "/echo"], in: dir, environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdoutText == "ua=FromConfig/1 tag=from-file\n")
        #expect(plain.stderr.isEmpty, "quiet = on: \(plain.stderr)")
        let overridden = try await SwgetProcess.run(["-e", "user_agent=FromE", "-U", "FromCommandLine", "-O", "-", server.baseURL + "/echo"],
                                                    in: dir, environment: environment)
        #expect(overridden.stdoutText == "ua=FromCommandLine tag=from-file\n", "the command line wins")
        let fromE = try await SwgetProcess.run(["-e", "user_agent=FromE", "-O", "-", server.baseURL + "/echo"], in: dir, environment: environment)
        #expect(fromE.stdoutText == "ua=FromE tag=from-file\n", "-e wins over the file")
        let none = try await SwgetProcess.run(["--no-config", "-U", "X", "-O", "-", server.baseURL + "/echo"], in: dir, environment: environment)
        #expect(none.stdoutText == "ua=X tag=\n")
    }

    @Test func aBadConfigurationLineIsAUsageError() async throws {
        let dir = try makeTemporaryDirectory()
        try Data("tries = 2\n\nwhat is this\n".utf8).write(to: URL(fileURLWithPath: dir + "/rc"))
        let result = try await SwgetProcess.run(["--config", "rc", "http://127.0.0.1:9/"], in: dir)
        #expect(result.status == 2)
        #expect(result.stderr == "swget: rc:3: expected 'name = value', got 'what is this'\n", "\(result.stderr)")
        let missing = try await SwgetProcess.run(["--config", "nope", "http://127.0.0.1:9/"], in: dir)
        #expect(missing.status == 2)
        #expect(missing.stderr == "swget: nope: cannot read the configuration file\n")
        let badE = try await SwgetProcess.run(["-e", "tries", "http://127.0.0.1:9/"], in: dir)
        #expect(badE.status == 2)
        #expect(badE.stderr == "swget: -e 'tries': 'tries' needs a value ('tries = VALUE')\n", "\(badE.stderr)")
    }
}
