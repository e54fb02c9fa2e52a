#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

@Suite struct SuggestedFilenameTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        var disposition: String? = nil
        var request: String = "http://example.com/dir/file.bin"
        var final: String? = nil
        var mime: String? = nil
        var useContentDisposition = true
        var trustServerNames = false
        let expected: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "URL last segment", expected: "file.bin"),
        Case(label: "Content-Disposition wins", disposition: "attachment; filename=\"report.pdf\"", expected: "report.pdf"),
        Case(label: "Content-Disposition filename*", disposition: "attachment; filename*=UTF-8''na%C3%AFve%20file.txt",
             expected: "naïve file.txt"),
        Case(label: "Content-Disposition off", disposition: "attachment; filename=report.pdf",
             useContentDisposition: false, expected: "file.bin"),
        Case(label: "Content-Disposition sanitised", disposition: "attachment; filename=\"../../etc/passwd\"",
             expected: "passwd"),
        Case(label: "Content-Disposition hidden file", disposition: "attachment; filename=.bashrc", expected: "bashrc"),
        Case(label: "unusable Content-Disposition falls through", disposition: "attachment; filename=\"..\"",
             expected: "file.bin"),
        Case(label: "Content-Disposition without filename", disposition: "inline", expected: "file.bin"),
        Case(label: "garbage Content-Disposition", disposition: ";;;", expected: "file.bin"),
        Case(label: "request URL by default", final: "http://cdn.example.com/real-name.iso", expected: "file.bin"),
        Case(label: "trust-server-names", final: "http://cdn.example.com/real-name.iso", trustServerNames: true,
             expected: "real-name.iso"),
        Case(label: "query stripped", request: "http://example.com/get.php?id=3&name=x.zip", expected: "get.php"),
        Case(label: "fragment stripped", request: "http://example.com/page.html#top", expected: "page.html"),
        Case(label: "percent-decoded", request: "http://example.com/na%C3%AFve%20file.txt", expected: "naïve file.txt"),
        Case(label: "encoded slash", request: "http://example.com/a%2F..%2F..%2Fetc%2Fpasswd", expected: "passwd"),
        Case(label: "encoded backslash", request: "http://example.com/..%5C..%5Cboot.ini", expected: "boot.ini"),
        Case(label: "encoded NUL", request: "http://example.com/a%00b.txt", expected: "ab.txt"),
        Case(label: "encoded dot-dot", request: "http://example.com/dir/%2E%2E", expected: "index.html"),
        Case(label: "invalid UTF-8 kept encoded", request: "http://example.com/caf%E9.txt", expected: "caf%E9.txt"),
        // URL(string:) re-encodes every "%" of a string with a malformed escape, so one decoding gives it back as typed.
        Case(label: "malformed escape kept", request: "http://example.com/100%25%zz.txt", expected: "100%25%zz.txt"),
        Case(label: "trailing slash", request: "http://example.com/dir/", expected: "index.html"),
        Case(label: "root", request: "http://example.com/", expected: "index.html"),
        Case(label: "empty path", request: "http://example.com", expected: "index.html"),
        Case(label: "empty path with query", request: "http://example.com?q=1", expected: "index.html"),
        Case(label: "trailing slash with HTML", request: "http://example.com/dir/", mime: "text/html", expected: "index.html"),
        Case(label: "MIME extension appended", request: "http://example.com/download", mime: "text/html; charset=utf-8",
             expected: "download.html"),
        Case(label: "MIME JSON", request: "http://example.com/api/items", mime: "application/json", expected: "items.json"),
        Case(label: "MIME case and spaces", request: "http://example.com/doc", mime: " Application/PDF ;q=1",
             expected: "doc.pdf"),
        Case(label: "MIME plain", request: "http://example.com/README", mime: "text/plain", expected: "README.txt"),
        Case(label: "MIME jpeg", request: "http://example.com/pic", mime: "image/jpeg", expected: "pic.jpg"),
        Case(label: "MIME gzip", request: "http://example.com/dump", mime: "application/gzip", expected: "dump.gz"),
        Case(label: "MIME octet-stream adds nothing", request: "http://example.com/blob", mime: "application/octet-stream",
             expected: "blob"),
        Case(label: "MIME unknown", request: "http://example.com/blob", mime: "application/x-whatever", expected: "blob"),
        Case(label: "existing extension kept", request: "http://example.com/data.csv", mime: "text/html",
             expected: "data.csv"),
        Case(label: "MIME applies to CD names too", disposition: "attachment; filename=notes", mime: "text/plain",
             expected: "notes.txt"),
    ]

    @Test(arguments: cases)
    func suggests(_ c: Case) throws {
        let request = try #require(URL(string: c.request))
        let final = try #require(URL(string: c.final ?? c.request))
        let name = SuggestedFilename.make(
            contentDisposition: c.disposition, requestURL: request, finalURL: final, mimeType: c.mime,
            useContentDisposition: c.useContentDisposition, trustServerNames: c.trustServerNames)
        #expect(name == c.expected)
    }

    @Test(arguments: [
        ("100%25%zz", "100%%zz", false), ("%", "%", false), ("a%4", "a%4", false), ("%41%42", "AB", true),
        ("%e2%82%ac", "€", true),
    ])
    func percentDecoding(_ encoded: String, _ decoded: String, _ validWhenStrict: Bool) throws {
        let bytes = try #require(ContentDisposition.percentDecoded(encoded[...], strict: false))
        #expect(ContentDisposition.utf8String(bytes) == decoded)
        #expect((ContentDisposition.percentDecoded(encoded[...], strict: true) != nil) == validWhenStrict)
    }

    @Test func longNameWithMIMEExtensionStaysWithinLimit() throws {
        let url = try #require(URL(string: "http://example.com/" + String(repeating: "a", count: 255)))
        let name = SuggestedFilename.make(contentDisposition: nil, requestURL: url, finalURL: url, mimeType: "text/html")
        #expect(name.utf8.count == 255)
        #expect(name.hasSuffix(".html"))
    }
}
