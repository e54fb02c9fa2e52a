#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetCLI

@Suite("Directory layout (-nd, -x, -nH, --protocol-directories, --cut-dirs, --default-page)")
struct DirectoryLayoutTests {
    /// Builds a layout from wget-style option letters.
    static func layout(_ options: String, restrict: String = "unix") -> DirectoryLayout {
        var layout = DirectoryLayout()
        for option in options.split(separator: " ") {
            switch option {
            case "-x": layout.forcesDirectories = true
            case "-nd": layout.forcesDirectories = false
            case "-nH": layout.hostDirectories = false
            case "-P": layout.protocolDirectories = true
            case let o where o.hasPrefix("--cut-dirs="): layout.cutDirectories = Int(o.dropFirst(11)) ?? 0
            case let o where o.hasPrefix("--default-page="): layout.defaultPage = String(o.dropFirst(15))
            default: break
            }
        }
        layout.restriction = (try? FileNameRestriction(modes: restrict)) ?? FileNameRestriction()
        return layout
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let options: String
        let url: String
        let expected: String
        var restrict = "unix"
        var testDescription: String { "\(options) \(url) [\(restrict)]" }
    }

    static let url = "http://Example.com/a/b/c/file.txt"
    static let cases: [Case] = [
        // Every combination of the options on one URL.
        Case(options: "", url: url, expected: "file.txt"),
        Case(options: "-nd", url: url, expected: "file.txt"),
        Case(options: "-nH", url: url, expected: "file.txt"),
        Case(options: "-P", url: url, expected: "file.txt"),
        Case(options: "--cut-dirs=2", url: url, expected: "file.txt"),
        Case(options: "-x", url: url, expected: "example.com/a/b/c/file.txt"),
        Case(options: "-x -nH", url: url, expected: "a/b/c/file.txt"),
        Case(options: "-x -P", url: url, expected: "http/example.com/a/b/c/file.txt"),
        Case(options: "-x -P -nH", url: url, expected: "http/a/b/c/file.txt"),
        Case(options: "-x --cut-dirs=1", url: url, expected: "example.com/b/c/file.txt"),
        Case(options: "-x --cut-dirs=3", url: url, expected: "example.com/file.txt"),
        Case(options: "-x --cut-dirs=9", url: url, expected: "example.com/file.txt"),
        Case(options: "-x --cut-dirs=-1", url: url, expected: "example.com/a/b/c/file.txt"),
        Case(options: "-x -nH --cut-dirs=2", url: url, expected: "c/file.txt"),
        Case(options: "-x -nH --cut-dirs=3", url: url, expected: "file.txt"),
        Case(options: "-x -P -nH --cut-dirs=1", url: url, expected: "http/b/c/file.txt"),
        Case(options: "-x -nd", url: url, expected: "file.txt"),
        // Ports: the scheme's default is left out; windows mode writes host+port.
        Case(options: "-x", url: "http://h:8080/f", expected: "h:8080/f"),
        Case(options: "-x", url: "http://h:80/f", expected: "h/f"),
        Case(options: "-x", url: "https://h:443/f", expected: "h/f"),
        Case(options: "-x", url: "https://h:80/f", expected: "h:80/f"),
        Case(options: "-x", url: "ftp://h:21/f", expected: "h/f"),
        Case(options: "-x", url: "http://h:8080/f", expected: "h+8080/f", restrict: "windows"),
        Case(options: "-x -P", url: "https://h:8443/d/f", expected: "https/h:8443/d/f"),
        Case(options: "-x", url: "http://[::1]:8080/f", expected: "::1:8080/f"),
        Case(options: "-x", url: "http://[::1]:8080/f", expected: "%3A%3A1+8080/f", restrict: "windows"),
        Case(options: "-x", url: "http://xn--bcher-kva.example/f", expected: "xn--bcher-kva.example/f"),
        // Default page and queries.
        Case(options: "", url: "http://h/", expected: "index.html"),
        Case(options: "", url: "http://h", expected: "index.html"),
        Case(options: "-x", url: "http://h/dir/", expected: "h/dir/index.html"),
        Case(options: "--default-page=home.htm", url: "http://h/dir/", expected: "home.htm"),
        Case(options: "--default-page=../../etc/passwd", url: "http://h/", expected: "..%2F..%2Fetc%2Fpasswd"),
        Case(options: "--default-page=..", url: "http://h/", expected: "%2E%2E"),
        Case(options: "", url: "http://h/f?a=1&b=2", expected: "f?a=1&b=2"),
        Case(options: "", url: "http://h/f?a=1", expected: "f@a=1", restrict: "windows"),
        Case(options: "", url: "http://h/f?", expected: "f?"),
        Case(options: "", url: "http://h/?q", expected: "index.html?q"),
        Case(options: "", url: "http://h/f?u=/x", expected: "f?u=%2Fx"),
        Case(options: "", url: "http://h/f?u=%2F", expected: "f?u=%2F"),
        // Percent-decoding of segments, then the restriction.
        Case(options: "-x -nH", url: "http://h/My%20Dir/%C3%A9t%C3%A9.txt", expected: "My Dir/été.txt"),
        Case(options: "-x -nH", url: "http://h/My%20Dir/%C3%A9t%C3%A9.txt", expected: "My Dir/%C3%A9t%C3%A9.txt", restrict: "ascii"),
        Case(options: "-x -nH", url: "http://h/Dir/File.TXT", expected: "dir/file.txt", restrict: "lowercase"),
        Case(options: "-x", url: "http://h/Dir/File.TXT", expected: "h/DIR/FILE.TXT", restrict: "uppercase"),
        Case(options: "", url: "http://h/a%2541", expected: "a%41"),
        Case(options: "", url: "http://h/bad%zz", expected: "bad%zz"),
        Case(options: "", url: "http://h/x%3F%3Ay", expected: "x%3F%3Ay", restrict: "windows"),
        Case(options: "", url: "http://h/x%3F%3Ay", expected: "x?:y"),
        // Hostile paths: nothing climbs out, nothing is absolute.
        Case(options: "-x -nH", url: "http://h/a/%2e%2e/%2E%2E/b", expected: "a/%2E%2E/%2E%2E/b"),
        Case(options: "-x -nH", url: "http://h/%2e%2e", expected: "%2E%2E"),
        Case(options: "-x -nH", url: "http://h/a/%2e/b", expected: "a/%2E/b"),
        Case(options: "-x -nH", url: "http://h/a%2f..%2f..%2fetc%2fpasswd", expected: "a%2F..%2F..%2Fetc%2Fpasswd"),
        Case(options: "-x -nH", url: "http://h/%2Fetc/passwd", expected: "%2Fetc/passwd"),
        Case(options: "-x -nH", url: "http://h/a%00b/c%00", expected: "a%00b/c%00"),
        Case(options: "-x -nH", url: "http://h/a%0Ab/c%1B%5B31m", expected: "a%0Ab/c%1B[31m"),
        Case(options: "-x -nH", url: "http://h//a//b", expected: "a/b"),
        Case(options: "-x -nH --cut-dirs=2", url: "http://h/a//b/f", expected: "b/f"),
    ]

    @Test(arguments: cases)
    func layout(_ c: Case) throws {
        let url = try #require(URL(string: c.url))
        let path = try Self.layout(c.options, restrict: c.restrict).relativePath(for: .init(url: url))
        #expect(path == c.expected)
    }

    /// Literal dot segments, given as parts (a URL parser may resolve them first).
    @Test(arguments: [
        ("/a/b/../c/f", "h/a/c/f"), ("/../../etc/passwd", "h/etc/passwd"), ("/a/./b/f", "h/a/b/f"),
        ("/a/..", "h/index.html"), ("/a/.", "h/a/index.html"), ("/..", "h/index.html"), ("..", "h/index.html"),
        ("", "h/index.html"), ("/", "h/index.html"),
    ])
    func dotSegmentsResolve(_ path: String, _ expected: String) throws {
        let location = DirectoryLayout.Location(scheme: "http", host: "h", path: path)
        #expect(try Self.layout("-x").relativePath(for: location) == expected)
    }

    @Test(arguments: ["..", ".", "", "a/b", "a\u{0}b"])
    func hostileHostNames(_ host: String) throws {
        let location = DirectoryLayout.Location(scheme: "http", host: host, path: "/f")
        let path = try Self.layout("-x").relativePath(for: location)
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        #expect(components.count == (host.isEmpty ? 1 : 2), "\(path)")
        #expect(!components.contains { $0 == ".." || $0 == "." || $0.isEmpty })
        #expect(!path.utf8.contains(0))
    }

    @Test func contentDispositionNameReplacesTheURLName() throws {
        let location = DirectoryLayout.Location(scheme: "https", host: "h", path: "/d/download.php", query: "id=1")
        #expect(try Self.layout("-x").relativePath(for: location, fileName: "report.pdf") == "h/d/report.pdf")
        #expect(try Self.layout("").relativePath(for: location, fileName: "../report.pdf") == "..%2Freport.pdf")
        #expect(try Self.layout("-x").relativePath(for: location, fileName: "") == "h/d/index.html")
        #expect(try Self.layout("-x").relativePath(for: location, fileName: "A.PDF") == "h/d/A.PDF")
        #expect(try Self.layout("-x", restrict: "lowercase").relativePath(for: location, fileName: "A.PDF") == "h/d/a.pdf")
    }

    @Test func longNamesAreCutOnBoundaries() throws {
        let long = String(repeating: "é", count: 300)
        let location = DirectoryLayout.Location(scheme: "http", host: "h", path: "/\(long)/\(long)")
        let path = try Self.layout("-x -nH").relativePath(for: location)
        let parts = path.split(separator: "/")
        #expect(parts.count == 2)
        #expect(parts[0].utf8.count == 254)  // 127 two-byte characters
        #expect(parts[1].utf8.count == 236)
        let escaped = String(repeating: "%2F", count: 200)
        let name = try Self.layout("").relativePath(for: .init(scheme: "http", host: "h", path: "/" + escaped))
        #expect(name.utf8.count == 234 && name.hasSuffix("%2F"))  // 78 whole escapes
    }

    @Test func deepPathsThrowInsteadOfOverflowing() throws {
        let deep = "/" + String(repeating: "abcdefgh/", count: 400) + "f"
        let location = DirectoryLayout.Location(scheme: "http", host: "h", path: deep)
        #expect(throws: DirectoryLayout.LayoutError.self) { try Self.layout("-x").relativePath(for: location) }
        #expect(try Self.layout("").relativePath(for: location) == "f")
        #expect(try Self.layout("-x --cut-dirs=399").relativePath(for: location) == "h/abcdefgh/f")
    }

    @Test func randomPathsNeverEscape() throws {
        let alphabet = Array("ab./%2eE5cfF0\u{0}\\:?é".unicodeScalars)
        var state: UInt64 = 42
        for _ in 0..<3_000 {
            var path = "/"
            for _ in 0..<Int(state % 30) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                path.unicodeScalars.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for options in ["-x", "-x -nH", "", "-x -nH --cut-dirs=1"] {
                let result = try Self.layout(options).relativePath(for: .init(scheme: "http", host: "h", path: path, query: "q/.."))
                let components = result.split(separator: "/", omittingEmptySubsequences: false)
                #expect(!result.hasPrefix("/") && !result.utf8.contains(0), "\(path) -> \(result)")
                #expect(!components.contains { $0.isEmpty || $0 == "." || $0 == ".." }, "\(path) -> \(result)")
            }
        }
    }
}
