#if canImport(Glibc)
import Glibc
#endif
import Testing
import SwgetTestSupport
@testable import SwgetKit

@Suite("multipart/form-data (RFC 7578)")
struct MultipartFormDataTests {
    typealias Part = MultipartFormData.Part

    static func encoded(_ form: MultipartFormData) throws -> [UInt8] {
        var reader = try BodyReader(multipart: form)
        let bytes = try drain(&reader, chunk: 7)
        #expect(Int64(bytes.count) == reader.contentLength)
        return bytes
    }

    static func text(_ form: MultipartFormData) throws -> String { String(decoding: try encoded(form), as: UTF8.self) }

    @Test func layoutMatchesCurl() throws {
        // curl 7.88.1 `-F a=b`, with its boundary replaced.
        let form = try MultipartFormData(parts: [.value(name: "a", "b")], boundary: "XyZ")
        let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--XyZ--\r\n"
        #expect(try Self.text(form) == expected)
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        #expect(form.inMemoryLength == Int64(expected.utf8.count))
    }

    @Test func severalPartsWithFilenamesAndTypes() throws {
        let form = try MultipartFormData(parts: [
            .value(name: "v", ""),
            .data(name: "f", Array("x\r\n--y".utf8), filename: "a.PNG"),
            .value(name: nil, "anon", contentType: "text/x-a; charset=utf-8"),
        ], boundary: "B")
        #expect(try Self.text(form) == """
            --B\r\nContent-Disposition: form-data; name="v"\r\n\r\n\r\n\
            --B\r\nContent-Disposition: form-data; name="f"; filename="a.PNG"\r\nContent-Type: image/png\r\n\r\nx\r\n--y\r\n\
            --B\r\nContent-Disposition: form-data\r\nContent-Type: text/x-a; charset=utf-8\r\n\r\nanon\r\n--B--\r\n
            """)
    }

    @Test(arguments: [
        // (name, percent escaping as curl 7.88.1 and WHATWG, curl --form-escape)
        ("na\"m\\e\nx", "na%22m\\e%0Ax", "na\\\"m\\\\e%0Ax"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("é 名前", "é 名前", "é 名前"),
        ("%22", "%22", "%22"),
        ("\"\"", "%22%22", "\\\"\\\""),
        ("", "", ""),
    ])
    func namesAndFilenamesAreEscaped(_ name: String, _ percent: String, _ backslash: String) throws {
        for (escaping, expected) in [(MultipartFormData.NameEscaping.percent, percent), (.backslash, backslash)] {
            let form = try MultipartFormData(parts: [.value(name: name, "v", filename: name)], boundary: "B", escaping: escaping)
            let head = "Content-Disposition: form-data; name=\"\(expected)\"; filename=\"\(expected)\"\r\n"
            let text = try Self.text(form)
            #expect(text.contains(head), "\(escaping): \(text.debugDescription)")
            // No raw CR or LF inside the disposition line, whatever the name holds.
            let line = text.split(separator: "\r\n", omittingEmptySubsequences: false)[1]
            #expect(!line.utf8.contains(0x0A) && !line.utf8.contains(0x0D))
        }
    }

    @Test(arguments: [
        ("photo.JPG", "image/jpeg"), ("a.jpeg", "image/jpeg"), ("x.gif", "image/gif"), ("x.png", "image/png"),
        ("x.svg", "image/svg+xml"), ("notes.txt", "text/plain"), ("i.htm", "text/html"), ("i.HTML", "text/html"),
        ("d.pdf", "application/pdf"), ("d.xml", "application/xml"), ("d.json", "application/json"),
        ("archive.tar.gz", "application/gzip"), ("noext", nil), ("trailing.", nil), (".txt", "text/plain"),
        ("a.txt.bin", nil), ("", nil),
    ] as [(String, String?)])
    func contentTypeGuess(_ name: String, _ type: String?) {
        #expect(MultipartFormData.guessContentType(forFilename: name) == type)
    }

    @Test func filePartDefaultsFollowCurl() throws {
        #expect(try Part.file(name: "x", path: "/d/a.bin") == Part(name: "x", filename: "a.bin", contentType: "application/octet-stream", content: .file(path: "/d/a.bin")))
        #expect(try Part.file(name: "x", path: "b.PNG").contentType == "image/png")
        // The filename is guessed first, then the path (curl 7.88.1: `@f.txt;filename=z.bin` → text/plain).
        #expect(try Part.file(name: "x", path: "f.txt", filename: "z.bin").contentType == "text/plain")
        #expect(try Part.file(name: "x", path: "f.bin", filename: "z.html").contentType == "text/html")
        #expect(try Part.file(name: "x", path: "f", contentType: "a/b").contentType == "a/b")
        #expect(try Part.file(name: "x", path: "dir/sub/").filename == "sub")
        #expect(try Part.fileContents(name: "x", path: "b.PNG") == Part(name: "x", filename: nil, contentType: "image/png", content: .file(path: "b.PNG")))
        #expect(try Part.fileContents(name: "x", path: "a.txt").contentType == nil)
        #expect(try Part.value(name: "x", "v", filename: "q.html").contentType == "text/html")
        #expect(try Part.data(name: "x", [1], filename: "-").contentType == nil)
    }

    @Test(arguments: ["text/plain\r\nX-Injected: 1", "", "a\u{0}b", "tëxt/plain", String(repeating: "a", count: 1025)])
    func hostileContentTypesAreRefused(_ type: String) {
        #expect(throws: MultipartError.invalidContentType(type)) { try Part.value(name: "a", "b", contentType: type) }
    }

    @Test func boundsAreEnforced() throws {
        let long = String(repeating: "n", count: MultipartFormData.maxFieldBytes + 1)
        #expect(throws: MultipartError.fieldTooLong) { try Part.value(name: long, "v") }
        #expect(throws: MultipartError.fieldTooLong) { try Part.value(name: "n", "v", filename: long) }
        #expect(throws: MultipartError.invalidPath("")) { try Part.file(name: "n", path: "") }
        #expect(throws: MultipartError.invalidPath("a\u{0}b")) { try Part.file(name: "n", path: "a\u{0}b") }
        #expect(throws: MultipartError.noParts) { try MultipartFormData(parts: []) }
        let part = try Part.value(name: "a", "b")
        let many = [Part](repeating: part, count: MultipartFormData.maxParts + 1)
        #expect(throws: MultipartError.tooManyParts(many.count)) { try MultipartFormData(parts: many) }
    }

    @Test(arguments: [("B", true), ("a'b+c-d.e_f09", true), (String(repeating: "x", count: 70), true),
                      (String(repeating: "x", count: 71), false), ("", false), ("a b", false), ("a/b", false),
                      ("a\"b", false), ("é", false), ("a\r\n", false), ("a;b", false)])
    func explicitBoundaries(_ boundary: String, _ valid: Bool) {
        #expect(MultipartFormData.isValidBoundary(boundary) == valid)
        let made = try? MultipartFormData(parts: [.value(name: "a", "b")], boundary: boundary)
        #expect((made != nil) == valid)
    }

    @Test func randomBoundariesHaveCurlsShapeAndDifferBySeed() {
        var a = SplitMix64(seed: 1), b = SplitMix64(seed: 1), c = SplitMix64(seed: 2)
        let boundary = MultipartFormData.randomBoundary(using: &a)
        #expect(boundary == MultipartFormData.randomBoundary(using: &b))
        #expect(boundary != MultipartFormData.randomBoundary(using: &c))
        #expect(boundary.utf8.count == 56 && boundary.hasPrefix(String(repeating: "-", count: 24)))
        #expect(boundary.utf8.dropFirst(24).allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) })
        #expect(MultipartFormData.isValidBoundary(boundary))
        var system = SystemRandomNumberGenerator()
        #expect(MultipartFormData.randomBoundary(using: &system) != MultipartFormData.randomBoundary(using: &system))
    }

    @Test func aBoundaryFoundInAPartIsDrawnAgain() throws {
        var probe = SplitMix64(seed: 7)
        let first = MultipartFormData.randomBoundary(using: &probe)
        let second = MultipartFormData.randomBoundary(using: &probe)
        let third = MultipartFormData.randomBoundary(using: &probe)
        let places: [[Part]] = [
            [try .value(name: "a", "xx\(first)yy"), try .data(name: "b", Array("--\(second)--".utf8))],
            [try .value(name: "\(first)", "v"), try .value(name: "n", "v", filename: "\(second).txt")],
            [try .value(name: "a", "v", contentType: "text/plain; b=\(first)"), try .value(name: "b", String(repeating: second, count: 3))],
        ]
        for parts in places {
            var generator = SplitMix64(seed: 7)
            let form = try MultipartFormData(parts: parts, using: &generator)
            #expect(form.boundary == third)
            let body = try Self.text(form)
            // The boundary appears only as delimiters: 2 parts + the close.
            #expect(body.split(separator: form.boundary, omittingEmptySubsequences: false).count == 4)
        }
    }

    /// A generator stuck on one value: every boundary is the same, so a part holding it can
    /// never be encoded and the attempts must stop.
    struct StuckGenerator: RandomNumberGenerator {
        mutating func next() -> UInt64 { 0x9E37_79B9_7F4A_7C15 }
    }

    @Test func collisionsStopAfterBoundedAttempts() throws {
        var stuck = StuckGenerator()
        let boundary = MultipartFormData.randomBoundary(using: &stuck)
        #expect(throws: MultipartError.boundaryCollision) {
            var generator = StuckGenerator()
            _ = try MultipartFormData(parts: [.value(name: "a", boundary)], using: &generator)
        }
        #expect(throws: MultipartError.boundaryCollision) { try MultipartFormData(parts: [.value(name: "a", "x-B-x")], boundary: "B") }
    }

    /// The boundary search against a naive one, over small alphabets where matches and
    /// near-matches (partial overlaps) are frequent.
    @Test func boundarySearchMatchesNaiveSearch() throws {
        var random = SplitMix64(seed: 42)
        let alphabet = Array("ab-".utf8)
        for _ in 0..<3000 {
            let needle = (0..<Int.random(in: 1...6, using: &random)).map { _ in alphabet[Int.random(in: 0..<3, using: &random)] }
            let hay = (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet[Int.random(in: 0..<3, using: &random)] }
            let naive = hay.count >= needle.count && (0...(hay.count - needle.count)).contains { hay[$0..<($0 + needle.count)].elementsEqual(needle) }
            let boundary = String(decoding: needle, as: UTF8.self)
            let made = try? MultipartFormData(parts: [.data(name: "n", hay)], boundary: boundary)
            #expect((made == nil) == naive, "\(boundary) in \(String(decoding: hay, as: UTF8.self))")
        }
    }

    @Test func exactLengthEqualsTheBytesProduced() throws {
        let dir = try UploadScratchDirectory()
        let small = try dir.write("small.txt", Array("hello\n".utf8))
        let empty = try dir.write("empty", [])
        let large = try dir.write("large.bin", patternBytes(300_001))
        let parts: [Part] = [
            try .value(name: "title", "名前 \"quoted\""),
            try .file(name: "a", path: small),
            try .data(name: "blob", patternBytes(10_000, seed: 3), filename: "blob.bin"),
            try .file(name: "e", path: empty),
            try .fileContents(name: "c", path: small),
            try .file(name: "big", path: large, filename: "renamed.png"),
        ]
        var generator = SplitMix64(seed: 9)
        let form = try MultipartFormData(parts: parts, using: &generator)
        #expect(form.inMemoryLength == nil)
        let bytes = try Self.encoded(form)
        let length = try RequestBody.multipart(form).contentLength
        #expect(length == Int64(bytes.count))
        #expect(form.encodedLength { (_: String) throws(Never) -> Int64? in nil } == nil)
        // Rebuild the expected body by hand from the segments' definition.
        var expected: [UInt8] = []
        let dash = "--" + form.boundary
        func head(_ disposition: String, _ type: String?) -> [UInt8] {
            Array("\(dash)\r\nContent-Disposition: form-data; \(disposition)\r\n\(type.map { "Content-Type: \($0)\r\n" } ?? "")\r\n".utf8)
        }
        expected += head("name=\"title\"", nil) + Array("名前 \"quoted\"\r\n".utf8)
        expected += head("name=\"a\"; filename=\"small.txt\"", "text/plain") + Array("hello\n\r\n".utf8)
        expected += head("name=\"blob\"; filename=\"blob.bin\"", nil) + patternBytes(10_000, seed: 3) + [13, 10]
        expected += head("name=\"e\"; filename=\"empty\"", "application/octet-stream") + [13, 10]
        expected += head("name=\"c\"", nil) + Array("hello\n\r\n".utf8)
        expected += head("name=\"big\"; filename=\"renamed.png\"", "image/png") + patternBytes(300_001) + [13, 10]
        expected += Array("\(dash)--\r\n".utf8)
        #expect(bytes == expected)
    }

    @Test func inMemoryLengthIsExactForEveryShape() throws {
        var random = SplitMix64(seed: 5)
        for round in 0..<50 {
            let parts = try (0..<Int.random(in: 1...6, using: &random)).map { i -> Part in
                let value = patternBytes(Int.random(in: 0...9000, using: &random), seed: UInt64(round * 10 + i))
                return try .data(name: "n\(i)\r\"", value, filename: i % 2 == 0 ? nil : "f\(i)")
            }
            let form = try MultipartFormData(parts: parts, using: &random)
            #expect(form.inMemoryLength == Int64(try Self.encoded(form).count))
        }
    }
}
