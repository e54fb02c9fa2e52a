import Foundation
import Testing
import SwgetTestSupport

/// `--restrict-file-names` with the binary: the names SwgetKit chooses (from the URL, from
/// Content-Disposition, the default page) and the `-x` directories are escaped as wget does
/// (wget's Test-Restrict-Lowercase, Test-Restrict-Uppercase and Test-restrict-ascii).
@Suite("swget --restrict-file-names, end to end")
struct RestrictFileNamesCommandTests {
    static let page = "<html><body>Some text...</body></html>\n"

    static func files(_ dir: String) -> [String] {
        DirectoryLayoutCommandTests.files(dir)
    }

    struct NameCase: CustomTestStringConvertible, Sendable {
        let label: String
        let modes: String
        /// The path as sent (percent-encoded).
        let path: String
        let expected: String
        var testDescription: String { label }
    }

    static let gnosis = "%CE%B3%CE%BD%CF%89%CF%83%CE%B9%CF%82"

    static let names: [NameCase] = [
        NameCase(label: "Test-Restrict-Lowercase", modes: "lowercase", path: "/SomePage.html", expected: "somepage.html"),
        NameCase(label: "Test-Restrict-Uppercase", modes: "uppercase", path: "/SomePage.html", expected: "SOMEPAGE.HTML"),
        NameCase(label: "Test-restrict-ascii", modes: "ascii", path: "/\(gnosis).html", expected: "\(gnosis).html"),
        NameCase(label: "UTF-8 kept by unix", modes: "unix", path: "/\(gnosis).html", expected: "γνωσις.html"),
        NameCase(label: "windows escapes its characters", modes: "windows", path: "/a%3Fb%3Ac%2A%22%7C%3C%3E%5C.txt",
                 expected: "a%3Fb%3Ac%2A%22%7C%3C%3E%5C.txt"),
        NameCase(label: "unix keeps them", modes: "unix", path: "/a%3Fb%3Ac%2A%7C%5C.txt", expected: #"a?b:c*|\.txt"#),
        NameCase(label: "unix escapes control characters", modes: "unix", path: "/a%01b%7F.txt", expected: "a%01b%7F.txt"),
        NameCase(label: "nocontrol keeps them", modes: "nocontrol", path: "/a%01b.txt", expected: "a\u{01}b.txt"),
        NameCase(label: "an encoded slash stays in the name", modes: "unix", path: "/x%2F..%2Fy.txt", expected: "x%2F..%2Fy.txt"),
        NameCase(label: "modes combine", modes: "windows,uppercase", path: "/a%3Fb.txt", expected: "A%3FB.TXT"),
        NameCase(label: "the default page too", modes: "uppercase", path: "/dir/", expected: "INDEX.HTML"),
    ]

    @Test(arguments: names)
    func urlNames(_ c: NameCase) async throws {
        let server = try await TestServer.start { _ in .ok(Array(Self.page.utf8), headers: [("Content-Type", "text/html")]) }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--restrict-file-names=\(c.modes)", server.baseURL + c.path], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir) == [c.expected])
        #expect(FileManager.default.contents(atPath: dir + "/" + c.expected) == Data(Self.page.utf8))
    }

    /// Without the option, swget's own naming stays: control characters removed, `\` a separator.
    @Test func withoutTheOptionNamesAreSanitised() async throws {
        let server = try await TestServer.start { _ in .text("plain") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", server.baseURL + "/SomePage%01.html"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir) == ["SomePage.html"])
    }

    @Test func contentDispositionNamesAreEscapedToo() async throws {
        let server = try await TestServer.start { _ in
            .ok(Array("cd".utf8), headers: [("Content-Disposition", #"attachment; filename="Report: Q1?.TXT""#)])
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--restrict-file-names=windows,lowercase", server.baseURL + "/get?id=1"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir) == ["report%3a q1%3f.txt"])
    }

    /// A transformed name is still one component inside the directory: a leading dot goes,
    /// swget's own suffixes are neutralised, and a `..` from the server is escaped (as wget does).
    @Test func transformedNamesStayHarmless() async throws {
        let server = try await TestServer.start { request in
            request.path == "/cd" ? .ok(Array("x".utf8), headers: [("Content-Disposition", #"attachment; filename="..""#)]) : .text("x")
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "--restrict-file-names=nocontrol", server.baseURL + "/.profile",
                                                 server.baseURL + "/x.PART", server.baseURL + "/cd"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir) == ["%2E%2E", "profile.txt", "x_PART.txt"], "text/plain names without a dot get .txt")
    }

    @Test func directoriesFollowTheModes() async throws {
        let server = try await TestServer.start { _ in .text("deep") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "-x", "-nH", "--restrict-file-names=uppercase,windows",
                                                 server.baseURL + "/Docs/a%3Ab/Read.me"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.files(dir) == ["DOCS/A%3AB/READ.ME"])
    }

    /// `-N` looks for the file under the restricted name it was saved as.
    @Test func timestampingFindsTheRestrictedName() async throws {
        let server = try await TestServer.start { request in
            request.header("If-Modified-Since") != nil ? .status(304)
                : .ok(Array("v1".utf8), headers: [("Last-Modified", "Mon, 02 Jan 2023 03:04:05 GMT")])
        }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.baseURL + "/SomePage.html"
        #expect(try await SwgetProcess.run(["-q", "-N", "--restrict-file-names=lowercase", url], in: dir).status == 0)
        let again = try await SwgetProcess.run(["-N", "--restrict-file-names=lowercase", url], in: dir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("not retrieving"), "\(again.stderr)")
        #expect(server.requests.map { $0.header("If-Modified-Since") != nil } == [false, true])
        #expect(Self.files(dir) == ["somepage.html"])
    }

    @Test(arguments: ["vms", "unix,,ascii", ""])
    func unknownModesAreUsageErrors(_ modes: String) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["--restrict-file-names=\(modes)", "http://127.0.0.1:9/f"], in: dir)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--restrict-file-names"), "\(result.stderr)")
        #expect(Self.files(dir).isEmpty)
    }
}
