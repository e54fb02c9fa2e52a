import Foundation
import Testing
import SwgetKit
import SwgetTestSupport

/// Non-ASCII URLs typed on the command line: UTF-8 percent-encoded paths and punycode hosts
/// on the wire, the file named after the decoded path.
@Suite("swget international URLs, end to end")
struct InternationalURLCommandTests {
    @Test func aNonASCIIPathIsSentPercentEncoded() async throws {
        let server = try await TestServer.start { _ in .text("unicode") }
        defer { Task { try? await server.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["-q", "http://127.0.0.1:\(server.port)/bücher/straße.txt"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.uri) == ["/b%C3%BCcher/stra%C3%9Fe.txt"])
        #expect(FileManager.default.contents(atPath: dir + "/straße.txt") == Data("unicode".utf8))
    }

    /// The wire carries punycode (seen here by a proxy: the request target and Host); people
    /// are shown the Unicode name, in the error line and in the library's own messages.
    @Test func anInternationalHostGoesOutAsPunycodeAndIsShownInUnicode() async throws {
        let proxy = try await TestServer.start { _ in .status(404) }
        defer { Task { try? await proxy.stop() } }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["--proxy", proxy.baseURL, "http://bücher.example/f.txt"], in: dir)
        #expect(result.status == 8, "\(result.stderr)")
        #expect(proxy.requests.first?.uri == "http://xn--bcher-kva.example:80/f.txt")
        #expect(proxy.requests.first?.header("Host") == "xn--bcher-kva.example")
        #expect(result.stderr.contains("http://bücher.example/f.txt"), "\(result.stderr)")
        #expect(!result.stderr.contains("xn--"), "\(result.stderr)")
        // A terminal whose locale is not UTF-8 gets the punycode, which it can show.
        let ascii = try await SwgetProcess.run(["--proxy", proxy.baseURL, "http://bücher.example/g.txt"], in: dir,
                                               environment: ["LANG": "C"])
        #expect(ascii.status == 8, "\(ascii.stderr)")
        #expect(ascii.stderr.contains("http://xn--bcher-kva.example/g.txt"), "\(ascii.stderr)")
        let unresolved = try await SwgetProcess.run(["-t", "1", "--spider", "http://bücher.invalid:9/"], in: dir)
        #expect(unresolved.status == 4, "\(unresolved.stderr)")
        #expect(unresolved.stderr.contains("unable to resolve host address 'bücher.invalid'"), "\(unresolved.stderr)")
        #expect(!unresolved.stderr.contains("xn--"), "\(unresolved.stderr)")
    }

    /// Only names that convert back to the same punycode are shown decoded.
    @Test(arguments: [
        ("http://xn--bcher-kva.example/a", "http://bücher.example/a"),
        ("https://u:p@xn--bcher-kva.example:8443/?q", "https://u:p@bücher.example:8443/?q"),
        ("http://xn--a.example/", "http://xn--a.example/"),
        ("http://[::1]:8080/xn--bcher-kva", "http://[::1]:8080/xn--bcher-kva"),
        ("http://plain.example/", "http://plain.example/"),
        ("not a url", "not a url"),
    ])
    func unicodeHosts(_ wire: String, _ shown: String) {
        #expect(URLDisplay.unicodeHost(wire) == shown)
    }

    @Test func aHostIDNARefusesIsAnInvalidURL() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await SwgetProcess.run(["http://a\u{2488}b.example/"], in: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("invalid URL"), "\(result.stderr)")
    }
}
