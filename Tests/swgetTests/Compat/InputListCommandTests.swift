import Foundation
import Testing
import SwgetTestSupport
@testable import SwgetCLI

/// wget's `-i URL` (a list fetched from a server) and `--base`/`-B` (relative lines resolved
/// against a URL), with the binary; and the pure rules behind them.
@Suite("swget -i URL and --base, end to end")
struct InputListCommandTests {
    static func files(_ dir: String) -> [String] { DirectoryLayoutCommandTests.files(dir) }

    @Test(arguments: [
        ("  http://a/x  ", "http://a/x"), ("\thttp://a/x\t ", "http://a/x"), ("http://a/x", "http://a/x"),
        ("   ", ""), ("", ""), (" \t", ""), (" é ", "é"), ("  🇫🇷 x 🇫🇷\t", "🇫🇷 x 🇫🇷"), ("a b", "a b"),
        (" \u{3000}x\u{3000} ", "\u{3000}x\u{3000}"),
    ])
    func linesAreTrimmedOfSpacesAndTabsOnly(line: String, expected: String) {
        #expect(Substring(line).trimmingSpaces == expected)
        #expect(InputList.entries(line + "\r\n# comment\n").map(\.text) == (expected.isEmpty ? [] : [expected]))
    }

    /// A carriage return among a line's blanks is a blank too (FuzzInputList: `url\r\t` kept its
    /// CR, which `--base` then percent-encoded into the URL).
    /// A ':' in a relative line's first segment is kept a path with RFC 3986's "./", not taken
    /// for a scheme (FuzzInputList: ":x" came back as ":x", not a URL).
    @Test func colonsInARelativeFirstSegmentStayPath() throws {
        let base = try #require(InputList.baseURL("http://example.com/dir/list.txt"))
        #expect(InputList.resolve(":x", base: base) == "http://example.com/dir/:x")
        #expect(InputList.resolve("1:x/y", base: base) == "http://example.com/dir/1:x/y")
        #expect(InputList.resolve("a/b:c", base: base) == "http://example.com/dir/a/b:c")
        #expect(InputList.resolve("ftp://h/f", base: base) == "ftp://h/f")
    }

    @Test func carriageReturnsAmongTheBlanksAreTrimmed() {
        #expect(InputList.entries("a/x\r\t\n\r b \r\r\n\r\n").map(\.text) == ["a/x", "b"])
        #expect(InputList.entries("a/x\r\t\n").map(\.line) == [1])
    }

    @Test func linesKeepTheirNumbersAndTheirBytes() {
        let entries = InputList.entries("\n\n  # comment\nhttp://ü.example/ä x\n\tb\t\n#\n \nlast")
        #expect(entries.map(\.line) == [4, 5, 8])
        #expect(entries.map(\.text) == ["http://ü.example/ä x", "b", "last"])
        #expect(InputList.entries("").isEmpty)
        #expect(InputList.entries("\n \n\t").isEmpty)
    }

    @Test func aListFetchedOverHTTP() async throws {
        let server = try await TestServer.start { request in
            switch request.path {
            case "/list.txt": .text("# files\n\(request.header("Host").map { "http://\($0)" } ?? "")/a.txt\n\nhttp://\(request.header("Host") ?? "")/b.txt\n")
            default: .text("file \(request.path)")
            }
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "-j", "1", "-i", server.baseURL + "/list.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir) == ["a.txt", "b.txt"])
        #expect(server.requests.map(\.path) == ["/list.txt", "/a.txt", "/b.txt"])
    }

    @Test func relativeLinesAreResolvedAgainstTheBase() async throws {
        let server = try await TestServer.start { request in .text("at \(request.path)") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("a.txt\n../up.txt\n/root.txt\nsub/d%20e.txt\n\(server.baseURL)/abs.txt\n".utf8).write(to: URL(filePath: dir + "/list"))
        let result = try await SwgetProcess.run(["-q", "-j", "1", "-P", "out", "-i", "list", "--base", server.baseURL + "/dir/page.html"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/dir/a.txt", "/up.txt", "/root.txt", "/dir/sub/d%20e.txt", "/abs.txt"])
        #expect(Self.files(dir + "/out") == ["a.txt", "abs.txt", "d e.txt", "root.txt", "up.txt"])
        // wget's short form, and a remote list with a base.
        let short = try await SwgetProcess.run(["-q", "-j", "1", "-O", "-", "-B", server.baseURL + "/x/", "-i", "list"], in: dir)
        #expect(short.status == 0, "\(short.stderr)")
        #expect(server.requests.dropFirst(5).first?.path == "/x/a.txt")
    }

    @Test func aListThatCannotBeFetchedIsReported() async throws {
        let server = try await TestServer.start { request in request.path == "/ok" ? .text("ok") : .status(404) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-i", server.baseURL + "/missing", server.baseURL + "/ok"], in: dir)
        #expect(result.status == 8, "\(result.stderr)")
        #expect(result.stderr.contains("cannot fetch the input list: server answered 404"), "\(result.stderr)")
        #expect(Self.files(dir) == ["ok.txt"])
        let unreachable = try await SwgetProcess.run(["-q", "-t", "1", "-i", "http://127.0.0.1:9/list"], in: dir)
        #expect(unreachable.status == 4, "\(unreachable.stderr)")
        // --https-only refuses an http:// list before asking for it.
        let requestsBefore = server.requests.count
        let refused = try await SwgetProcess.run(["--https-only", "-i", server.baseURL + "/ok"], in: dir)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("--https-only"), "\(refused.stderr)")
        #expect(server.requests.count == requestsBefore)
    }

    @Test(arguments: ["not a url", "/relative/path", "mailto:someone@example.com", "http://"])
    func aBadBaseIsAUsageError(_ base: String) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["--base", base, "-i", "list"], in: dir)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--base"), "\(result.stderr)")
    }

    @Test(arguments: [
        ("http://h/l", true), ("HTTPS://h/l", true), ("ftp://h/l", true), ("ftps://h/l", true),
        ("list.txt", false), ("-", false), ("file:///tmp/l", false), ("./http://x", false), ("data:,x", false),
    ])
    func remoteArguments(_ argument: String, _ remote: Bool) {
        #expect(InputList.isRemote(argument) == remote)
    }

    @Test(arguments: [
        ("a.txt", "http://h/d/p.html", "http://h/d/a.txt"),
        ("../b", "http://h/d/e/", "http://h/d/b"),
        ("/c", "http://h/d/", "http://h/c"),
        ("?q=1", "http://h/d/p", "http://h/d/p?q=1"),
        ("ftp://o/x", "http://h/", "ftp://o/x"),
        ("data:,hi", "http://h/", "data:,hi"),
        ("über.txt", "http://h/d/", "http://h/d/%C3%BCber.txt"),
        ("example.com/x", nil, "example.com/x"),
    ] as [(String, String?, String)])
    func linesAgainstABase(_ line: String, _ base: String?, _ expected: String) {
        #expect(InputList.resolve(line, base: base.flatMap(InputList.baseURL)) == expected)
    }
}
