#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit

/// Which bodies are decoded and under which name: the pure rules.
@Suite("Body decoding rules (pure)")
struct BodyDecodingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let url: String
        let headers: [(String, String)]
        var decodeContent = true
        let codings: [ContentCoding]
        let payloadIsGzip: Bool
        var unsupported: String? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "identity text", url: "http://h/a.txt", headers: [("Content-Type", "text/plain")], codings: [], payloadIsGzip: false),
        Case(name: "gzip-encoded text", url: "http://h/a.txt", headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
             codings: [.gzip], payloadIsGzip: false),
        Case(name: "stacked codings in applied order", url: "http://h/a", headers: [("Content-Encoding", "deflate, gzip")],
             codings: [.deflate, .gzip], payloadIsGzip: false),
        Case(name: "decoding switched off", url: "http://h/a.txt", headers: [("Content-Encoding", "br")], decodeContent: false,
             codings: [], payloadIsGzip: false),
        Case(name: "unknown coding is stored as sent", url: "http://h/a", headers: [("Content-Encoding", "compress")],
             codings: [], payloadIsGzip: false, unsupported: "compress"),
        Case(name: "application/gzip payload", url: "http://h/download", headers: [("Content-Type", "application/gzip")],
             codings: [], payloadIsGzip: true),
        Case(name: ".gz served as octet-stream", url: "http://h/data.csv.gz", headers: [("Content-Type", "application/octet-stream")],
             codings: [], payloadIsGzip: true),
        Case(name: ".gz without a type", url: "http://h/data.csv.gz", headers: [], codings: [], payloadIsGzip: true),
        Case(name: ".gz served as text is not trusted", url: "http://h/data.csv.gz", headers: [("Content-Type", "text/html")],
             codings: [], payloadIsGzip: false),
        Case(name: "Apache's .gz with Content-Encoding gzip is a payload", url: "http://h/data.tar.gz",
             headers: [("Content-Type", "application/x-tar"), ("Content-Encoding", "gzip")], codings: [], payloadIsGzip: true),
        Case(name: "x-gzip payload labelled x-gzip", url: "http://h/f", headers: [("Content-Type", "application/x-gzip"), ("Content-Encoding", "x-gzip")],
             codings: [], payloadIsGzip: true),
        Case(name: "a br-encoded .gz file is decoded once", url: "http://h/f.gz", headers: [("Content-Encoding", "br")],
             codings: [.br], payloadIsGzip: false),
    ]

    @Test(arguments: cases)
    func judge(_ c: Case) throws {
        let url = try #require(URL(string: c.url))
        let response = Response(url: url, statusCode: 200, headers: HeaderFields(c.headers), expectedContentLength: nil)
        let name = response.suggestedFilename(useContentDisposition: true, trustServerNames: false)
        let judged = BodyDecoding.judge(response, decodeContent: c.decodeContent, name: name)
        #expect(judged.contentCodings == c.codings)
        #expect(judged.payloadIsGzip == c.payloadIsGzip)
        #expect(judged.unsupportedEncoding == c.unsupported)
    }

    @Test(arguments: [
        ("data.csv.gz", "data.csv"), ("backup.tgz", "backup.tar"), ("BACKUP.TGZ", "BACKUP.tar"), ("x.GZ", "x"),
        ("report.pdf", "report.pdf"), (".gz", ".gz"), ("a.gz.gz", "a.gz"),
    ])
    func decodedName(_ name: String, _ expected: String) {
        #expect(BodyDecoding.decodedName(name) == expected)
    }

    @Test(arguments: [("a.gz", true), ("A.GZ", true), ("x.tGz", true), (".gz", true), ("gz", false), ("a.gzip", false),
                      ("a.g", false), ("", false), ("a.gz\u{301}", false), ("ü.tgz", true), ("a.tar.gz/", false)])
    func gzipSuffix(_ name: String, _ expected: Bool) {
        #expect(BodyDecoding.hasGzipSuffix(name) == expected)
    }

    /// The last path segment read from the path answers as URL's own `lastPathComponent`.
    @Test(arguments: ["http://h/a/b.gz", "http://h/a/b.gz/", "http://h/a/b.gz//", "http://h/", "http://h", "http://h/x%2Fy.gz",
                      "http://h/d/%C3%BC.tgz?q=1#f", "http://h//", "http://h/a;p.gz", "http://h/%2E%2E", "http://h/a/%ZZ.gz", "http://h/a%2F"])
    func lastSegmentIsTheLastPathComponent(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(BodyDecoding.lastSegment(ofEncodedPath: url.path(percentEncoded: true)) == url.lastPathComponent)
    }

    @Test(arguments: [
        (String?.none, String?.none), ("identity", nil), ("", nil), ("gzip", "gzip"), ("X-GZIP", "gzip"),
        (" deflate ,gzip", "deflate, gzip"), ("gzip, identity", "gzip"),
    ] as [(String?, String?)])
    func normalizedEncoding(_ header: String?, _ expected: String?) {
        #expect(BodyDecoding.normalizedEncoding(header) == expected)
    }
}
