#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// Resume data read from a state file or handed in by a caller is hostile input: every claim it
/// makes is checked against the part file, and decoding it never traps.
@Suite("Resume data validation (pure)")
struct ResumeDataValidationTests {
    static func data(bytes: Int64 = 1000, length: Int64? = 5000, segments: [ByteRange]? = nil,
                     version: Int = ResumeData.currentVersion, original: String = "http://h.example/f",
                     final: String = "https://cdn.example/f?x=1") -> ResumeData {
        var data = ResumeData(originalURL: original, finalURL: final, etag: "\"v\"", lastModified: nil, expectedLength: length,
                              bytesOnDisk: bytes, partPath: "/d/f.part", finalPath: "/d/f")
        data.version = version
        data.segments = segments
        return data
    }

    static func r(_ start: Int64, _ end: Int64) -> ByteRange {
        var range = ByteRange(start: start, end: start)
        range.end = end  // as a decoder that skipped checks could leave it
        return range
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let data: ResumeData
        var partLength: Int64 = 1000
        /// The start of the refusal's description; nil: valid.
        let refusal: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "valid", data: data(), refusal: nil),
        Case(name: "valid: all bytes held", data: data(bytes: 5000), partLength: 5000, refusal: nil),
        Case(name: "valid: unknown length", data: data(length: nil), refusal: nil),
        Case(name: "valid: nothing held yet", data: data(bytes: 0), partLength: 0, refusal: nil),
        Case(name: "valid: a part longer than the claim", data: data(), partLength: 9000, refusal: nil),
        Case(name: "valid: segments", data: data(bytes: 1000, segments: [r(0, 1000), r(2000, 3000), r(4000, 5000)]), partLength: 5000,
             refusal: nil),
        Case(name: "valid: a segment up to the length", data: data(bytes: 0, segments: [r(4999, 5000)]), partLength: 5000, refusal: nil),
        Case(name: "unknown version", data: data(version: 2), refusal: "unknown version 2"),
        Case(name: "version zero", data: data(version: 0), refusal: "unknown version 0"),
        Case(name: "negative version", data: data(version: -1), refusal: "unknown version -1"),
        Case(name: "empty original URL", data: data(original: ""), refusal: "unparseable URL"),
        Case(name: "empty final URL", data: data(final: ""), refusal: "unparseable URL"),
        Case(name: "negative byte count", data: data(bytes: -1), refusal: "negative byte count"),
        Case(name: "negative length", data: data(length: -5), refusal: "negative length"),
        Case(name: "more bytes than the length", data: data(bytes: 5001), partLength: 9000, refusal: "more bytes than the file's length"),
        Case(name: "more bytes than the part holds", data: data(bytes: 1001), refusal: "claims 1001 bytes; the part holds 1000"),
        Case(name: "bytes but no part", data: data(bytes: 1), partLength: 0, refusal: "claims 1 bytes; the part holds 0"),
        Case(name: "Int64.max bytes", data: data(bytes: .max, length: nil), refusal: "claims"),
        Case(name: "segments without a length", data: data(bytes: 0, length: nil, segments: [r(0, 10)]), refusal: "segments without a length"),
        Case(name: "inverted segment", data: data(bytes: 0, segments: [r(20, 10)]), partLength: 5000, refusal: "segment 20-10"),
        Case(name: "empty segment", data: data(bytes: 0, segments: [r(10, 10)]), partLength: 5000, refusal: "segment 10-10"),
        Case(name: "overlapping segments", data: data(bytes: 0, segments: [r(0, 10), r(5, 15)]), partLength: 5000, refusal: "segment 5-15"),
        Case(name: "adjacent segments (must be merged)", data: data(bytes: 0, segments: [r(0, 10), r(10, 20)]), partLength: 5000,
             refusal: "segment 10-20"),
        Case(name: "segments out of order", data: data(bytes: 0, segments: [r(100, 200), r(0, 50)]), partLength: 5000,
             refusal: "segment 0-50"),
        Case(name: "duplicate segments", data: data(bytes: 0, segments: [r(0, 10), r(0, 10)]), partLength: 5000, refusal: "segment 0-10"),
        Case(name: "negative segment start", data: data(bytes: 0, segments: [r(-10, 10)]), partLength: 5000, refusal: "segment -10-10"),
        Case(name: "segment beyond the length", data: data(bytes: 0, segments: [r(4000, 5001)]), partLength: 9000,
             refusal: "segment 4000-5001"),
        Case(name: "segment beyond the part", data: data(bytes: 0, segments: [r(0, 1001)]), partLength: 1000, refusal: "segment 0-1001"),
        Case(name: "segment at Int64.max", data: data(bytes: 0, segments: [r(.max - 1, .max)]), partLength: .max, refusal: "segment"),
        Case(name: "too many segments", data: data(bytes: 0, length: 10_000_000,
                                                   segments: (0..<Int64(ResumeData.maxSegments + 1)).map { r($0 * 2, $0 * 2 + 1) }),
             partLength: 10_000_000, refusal: "too many segments"),
    ]

    @Test(arguments: cases)
    func validation(_ c: Case) {
        switch c.data.validated(partLength: c.partLength) {
        case .success(let valid):
            #expect(c.refusal == nil, "accepted")
            #expect(valid == c.data)
        case .failure(let invalid):
            #expect(c.refusal.map { invalid.description.hasPrefix($0) } == true, "refused: \(invalid.description)")
        }
    }

    @Test("the most segments allowed is accepted")
    func segmentLimit() {
        let segments = (0..<Int64(ResumeData.maxSegments)).map { Self.r($0 * 2, $0 * 2 + 1) }
        let data = Self.data(bytes: 1, length: 10_000_000, segments: segments)
        #expect((try? data.validated(partLength: 10_000_000).get()) != nil)
    }

    // MARK: - decoding hostile JSON

    @Test("a state survives its JSON form")
    func roundTrip() throws {
        var data = Self.data(segments: [Self.r(0, 1000), Self.r(2000, 2500)])
        data.contentEncoding = "gzip"
        data.acceptsUnvalidatedRange = true
        data.sessionIdentifier = "bg"
        let decoded = try #require(ResumeData(serialized: data.serialized()))
        #expect(decoded == data)
    }

    static let valid = String(decoding: data().serialized(), as: UTF8.self)

    /// `valid` with one field's JSON value replaced.
    static func replacing(_ key: String, with value: String) -> String {
        guard let range = valid.firstRange(of: "\"\(key)\":") else { return valid }
        let rest = valid[range.upperBound...]
        var depth = 0, inString = false, escaped = false
        var end = rest.startIndex
        for index in rest.indices {
            let character = rest[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "[" || character == "{" {
                depth += 1
            } else if character == "]" || character == "}" {
                if depth == 0 { end = index; break }
                depth -= 1
            } else if character == ",", depth == 0 {
                end = index
                break
            }
            end = rest.index(after: index)
        }
        return String(valid[..<range.upperBound]) + value + String(rest[end...])
    }

    struct HostileCase: CustomTestStringConvertible, Sendable {
        let name: String
        let json: String
        var testDescription: String { name }
    }

    static let hostile: [HostileCase] = [
        HostileCase(name: "empty", json: ""),
        HostileCase(name: "null", json: "null"),
        HostileCase(name: "an array", json: "[]"),
        HostileCase(name: "an empty object", json: "{}"),
        HostileCase(name: "truncated", json: String(valid.dropLast(5))),
        HostileCase(name: "version as a string", json: replacing("version", with: "\"1\"")),
        HostileCase(name: "version too large for Int", json: replacing("version", with: "99999999999999999999999999")),
        HostileCase(name: "version 1e400", json: replacing("version", with: "1e400")),
        HostileCase(name: "version 1.5", json: replacing("version", with: "1.5")),
        HostileCase(name: "version 2", json: replacing("version", with: "2")),
        HostileCase(name: "bytes beyond Int64", json: replacing("bytesOnDisk", with: "9223372036854775808")),
        HostileCase(name: "bytes 1e30", json: replacing("bytesOnDisk", with: "1e30")),
        HostileCase(name: "bytes -1e30", json: replacing("bytesOnDisk", with: "-1e30")),
        HostileCase(name: "bytes NaN", json: replacing("bytesOnDisk", with: "NaN")),
        HostileCase(name: "length as an object", json: replacing("expectedLength", with: "{\"a\":1}")),
        HostileCase(name: "segments as a number", json: replacing("version", with: "1,\"segments\":5")),
        HostileCase(name: "inverted segment", json: replacing("version", with: "1,\"segments\":[{\"start\":10,\"end\":5}]")),
        HostileCase(name: "segment start beyond Int64",
                    json: replacing("version", with: "1,\"segments\":[{\"start\":9223372036854775808,\"end\":1}]")),
        HostileCase(name: "negative segment", json: replacing("version", with: "1,\"segments\":[{\"start\":-1,\"end\":1}]")),
        HostileCase(name: "URL as null", json: replacing("originalURL", with: "null")),
        HostileCase(name: "a missing field", json: valid.replacing("\"finalPath\"", with: "\"finalPathX\"")),
        HostileCase(name: "deep arrays in a field", json: replacing("etag", with: String(repeating: "[", count: 100_000))),
        HostileCase(name: "deep objects in a field", json: replacing("etag", with: String(repeating: "{\"a\":", count: 100_000))),
        HostileCase(name: "a state file's worth of nesting", json: String(repeating: "[", count: 1 << 20)),
        HostileCase(name: "an unterminated string", json: replacing("etag", with: "\"abc")),
    ]

    @Test(arguments: hostile)
    func hostileJSON(_ c: HostileCase) {
        #expect(ResumeData(serialized: Array(c.json.utf8)) == nil)
    }

    @Test("the substitution helper changes what it says", arguments: ["version", "bytesOnDisk", "etag", "finalPath"])
    func helperWorks(_ key: String) {
        let changed = Self.replacing(key, with: "\"MARK\"")
        #expect(changed != Self.valid && changed.contains("\"\(key)\":\"MARK\""))
        #expect(changed.filter { $0 == "," }.count == Self.valid.filter { $0 == "," }.count)
    }

    @Test("extra fields, duplicate keys and lone surrogates do not trap", arguments: [
        "{\"x\":1,", "{\"etag\":\"\\udfff\",", "{\"etag\":\"\\ud800\",", "{\"etag\":\"\\ud800\\u0041\",",
    ])
    func tolerated(_ prefix: String) {
        let json = prefix + Self.valid.dropFirst()
        _ = ResumeData(serialized: Array(json.utf8))
    }

    @Test("random bytes never decode and never trap", arguments: 0..<8)
    func randomInput(seed: UInt64) {
        var random = SplitMix64(seed: 0xDA7A + seed)
        for round in 0..<250 {
            let count = Int(random.next() % 512)
            var bytes = SwgetTestSupport.randomBytes(count, seed: random.next())
            if round % 2 == 0, !bytes.isEmpty { bytes[0] = UInt8(ascii: "{") }
            #expect(ResumeData(serialized: bytes) == nil)
        }
    }

    @Test("random cuts and flips of a valid state never trap", arguments: 0..<8)
    func mutations(seed: UInt64) {
        var random = SplitMix64(seed: 0xF11F + seed)
        let valid = Array(Self.valid.utf8)
        for _ in 0..<250 {
            var bytes = valid
            switch random.next() % 3 {
            case 0: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 1: bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: Int(random.next() % UInt64(bytes.count)))
            }
            if let decoded = ResumeData(serialized: bytes) {
                // Whatever decodes is still checked before use.
                _ = decoded.validated(partLength: Int64(random.next() % 10_000))
            }
        }
    }
}
