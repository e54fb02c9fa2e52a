#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

/// ``DownloadDestination/fileNameTransform``: which candidates the transform sees (raw bytes),
/// and the limits its results are still held to.
@Suite("File name transforms (pure)")
struct FileNameTransformTests {
    /// Shows the bytes it was given, `%XX` for everything outside printable ASCII and for `/`.
    static let hex = FileNameTransform(identifier: "hex") { bytes in
        bytes.map { $0 > 0x20 && $0 < 0x7F && $0 != 0x2F ? String(UnicodeScalar($0)) : "%" + String($0, radix: 16, uppercase: true) }.joined()
    }
    /// Returns whatever it is told to.
    static func constant(_ name: String) -> FileNameTransform { FileNameTransform(identifier: "constant " + name) { _ in name } }

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let url: String
        var disposition: String?
        var transform: FileNameTransform = FileNameTransformTests.hex
        let expected: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "percent-decoded URL bytes", url: "http://h/a%01b%5Cc%FF.txt", expected: "a%1b\\c%FF.txt"),
        Case(label: "an encoded slash reaches the transform", url: "http://h/a%2Fb", expected: "a%2Fb"),
        Case(label: "Content-Disposition, as decoded", url: "http://h/x", disposition: "attachment; filename*=UTF-8''%C3%A9.txt",
             expected: "%C3%A9.txt"),
        Case(label: "the default page", url: "http://h/dir/", expected: "index.html"),
        Case(label: "data: URLs", url: "data:text/plain,hi", expected: "data"),
        Case(label: "a slash from the transform falls through to the default page", url: "http://h/x",
             transform: constant("a/b"), expected: "index.html"),
        Case(label: "NUL falls through", url: "http://h/x", transform: constant("a\u{0}b"), expected: "index.html"),
        Case(label: "dot names fall through", url: "http://h/x", transform: constant(".."), expected: "index.html"),
        Case(label: "a leading dot goes", url: "http://h/x", transform: constant(".bashrc"), expected: "bashrc"),
        Case(label: "reserved suffixes are neutralised", url: "http://h/x", transform: constant("y.swget"), expected: "y_swget"),
        Case(label: "control characters the transform keeps stay", url: "http://h/x", transform: constant("a\u{1}b"), expected: "a\u{1}b"),
        Case(label: "at most 255 bytes", url: "http://h/x", transform: constant(String(repeating: "é", count: 200) + ".txt"),
             expected: String(repeating: "é", count: 125) + ".txt"),
    ]

    @Test(arguments: cases)
    func names(_ c: Case) throws {
        let url = try #require(URL(string: c.url))
        let name = SuggestedFilename.make(contentDisposition: c.disposition, requestURL: url, finalURL: url, mimeType: nil,
                                          transform: c.transform)
        #expect(name == c.expected)
    }

    @Test func fromURLUsesTheSameRules() throws {
        let url = try #require(URL(string: "http://h/A%3Fb"))
        #expect(SuggestedFilename.fromURL(url, transform: Self.hex) == "A?b")
        #expect(SuggestedFilename.fromURL(url, transform: Self.constant("lower")) == "lower")
        #expect(SuggestedFilename.fromURL(url) == "A?b")
    }

    @Test func transformsAreEqualByIdentifier() {
        var a = DownloadDestination.directory("/tmp")
        var b = a
        a.fileNameTransform = FileNameTransform(identifier: "same") { _ in "a" }
        b.fileNameTransform = FileNameTransform(identifier: "same") { _ in "b" }
        #expect(a == b)
        b.fileNameTransform = Self.hex
        #expect(a != b)
    }

    @Test(arguments: [
        (206, "bytes 4-9/10", nil),
        (206, "bytes 3-9/10", "the server's partial answer starts at byte 3, not at byte 4"),
        (206, nil, "the server's partial answer has no usable Content-Range"),
        (200, nil, "the server ignored the range from byte 4 and answered 200"),
        (416, "bytes */3", nil),
        (404, nil, nil),
    ] as [(Int, String?, String?)])
    func startOffsetAnswers(_ status: Int, _ contentRange: String?, _ problem: String?) {
        #expect(StartOffset.problem(status: status, contentRange: contentRange, offset: 4) == problem)
    }

    @Test(arguments: [
        (412, nil, true),
        (200, "Tue, 03 Jan 2023 03:04:05 GMT", true),
        (200, "Mon, 02 Jan 2023 03:04:05 GMT", false),
        (200, "Sun, 01 Jan 2023 03:04:05 GMT", false),
        (200, nil, false),
        (304, nil, false),
        (500, nil, false),
    ] as [(Int, String?, Bool)])
    func unmodifiedSince(_ status: Int, _ lastModified: String?, _ skipped: Bool) throws {
        let date = Date(timeIntervalSince1970: 1_672_628_645)  // Mon, 02 Jan 2023 03:04:05 GMT
        let policy = CachePolicy.reloadIfUnmodifiedSince(date)
        #expect(policy.fields.map { "\($0.name): \($0.value)" } == ["If-Unmodified-Since: Mon, 02 Jan 2023 03:04:05 GMT"])
        var headers = HeaderFields()
        if let lastModified { headers.add("Last-Modified", lastModified) }
        let response = Response(url: try #require(URL(string: "http://h/f")), statusCode: status, reasonPhrase: "",
                                httpVersion: "HTTP/1.1", headers: headers, expectedContentLength: nil)
        #expect(policy.isNotModified(response) == skipped)
    }
}
