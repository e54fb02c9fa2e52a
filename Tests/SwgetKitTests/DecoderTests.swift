import Foundation
import Testing
@testable import SwgetKit
import SwgetTestSupport

/// The content decoders, verified the way NIO's `ByteToMessageDecoderVerifier` verifies a
/// decoder: every encoded body is fed all at once, one byte at a time and in seeded random
/// pieces (empty ones included), and must decode to the same bytes, or fail the same way,
/// whatever the cut.
@Suite("Content decoders")
struct DecoderTests {
    // MARK: round trips

    @Test(arguments: Coder.all, Payload.all)
    func roundTrip(_ coder: Coder, _ payload: Payload) {
        let encoded = coder.encode(payload.bytes)
        for feeding in Feeding.all {
            let decoded = feeding.decode(encoded, with: [coder.coding])
            decoded.expectBytes(payload.bytes, "\(feeding)")
        }
    }

    /// No body at all (a 204-like empty response with a Content-Encoding) is not an error.
    @Test(arguments: Coder.all)
    func emptyBody(_ coder: Coder) {
        for feeding in Feeding.all {
            let decoded = feeding.decode([], with: [coder.coding])
            decoded.expectBytes([], "\(feeding)")
            #expect(decoded.pieces == 0, "\(feeding)")
        }
    }

    /// A few kilobytes in, megabytes out: the output comes in pieces no larger than the
    /// decoder buffer, and many of them.
    @Test(arguments: Coder.all)
    func largeOutputFromSmallInput(_ coder: Coder) {
        let original = Payload.large
        let encoded = coder.encode(original)
        #expect(encoded.count < original.count / 8)
        for feeding in Feeding.coarse {
            let decoded = feeding.decode(encoded, with: [coder.coding])
            decoded.expectBytes(original, "\(feeding)")
            #expect(decoded.largestPiece <= DecoderChain.bufferSize, "\(feeding)")
            #expect(decoded.pieces >= original.count / DecoderChain.bufferSize, "\(feeding)")
        }
    }

    /// Output that ends exactly where a decoder buffer fills up (and one byte either side): the
    /// decoder is called once more with nothing left to read, and must still know it is done.
    @Test(arguments: Coder.all, [-1, 0, 1, DecoderChain.bufferSize])
    func outputEndingOnABufferBoundary(_ coder: Coder, _ extra: Int) {
        let count = 2 * DecoderChain.bufferSize + extra
        for original in [Payload.words(count, seed: 6), [UInt8](repeating: 0, count: count)] {
            let encoded = coder.encode(original)
            for feeding in Feeding.coarse + (encoded.count < 16 << 10 ? [.byteByByte] : []) {
                let decoded = feeding.decode(encoded, with: [coder.coding])
                decoded.expectBytes(original, "\(original.count) bytes, \(feeding)")
            }
        }
    }

    // MARK: truncation

    /// Every cut of a small stream, and the first byte, the first half and all but the last
    /// byte of larger ones, is an error: from `decode` or, at the latest, from `finish`.
    @Test(arguments: Coder.all, [Payload.empty, Payload.text, Payload.binary, Payload.mediumText])
    func truncated(_ coder: Coder, _ payload: Payload) {
        let encoded = coder.encode(payload.bytes)
        let small = encoded.count <= 1024
        let cuts = small ? Array(1..<max(1, encoded.count)) : [1, encoded.count / 2, encoded.count - 1]
        for cut in cuts {
            for feeding in small ? Feeding.all : Feeding.coarse {
                let decoded = feeding.decode(Array(encoded.prefix(cut)), with: [coder.coding])
                decoded.expectFailure("cut at \(cut) of \(encoded.count), \(feeding)")
            }
        }
    }

    // MARK: corruption

    @Test(arguments: Damage.all)
    func corrupt(_ damage: Damage) {
        let encoded = damage.encoded()
        for feeding in Feeding.all {
            let decoded = feeding.decode(encoded, with: damage.codings)
            decoded.expectFailure("\(feeding)", containing: damage.message)
        }
    }

    // MARK: what follows the end of a stream

    @Test(arguments: Case.all)
    func trailingData(_ c: Case) {
        let encoded = c.encoded()
        for feeding in Feeding.all {
            let decoded = feeding.decode(encoded, with: c.codings)
            if let expected = c.expected {
                decoded.expectBytes(expected, "\(feeding)")
            } else {
                decoded.expectFailure("\(feeding)")
            }
        }
    }

    // MARK: stacked codings

    @Test func stackedCodingsComeOffInReverseOrder() {
        let codings = ContentCoding.parse("deflate, gzip")
        #expect(codings == [.deflate, .gzip])
        let encoded = Compression.gzip(Compression.zlib(Payload.text.bytes))
        for feeding in Feeding.all {
            feeding.decode(encoded, with: codings ?? []).expectBytes(Payload.text.bytes, "\(feeding)")
        }
    }

    @Test(arguments: Case.stacked)
    func stacked(_ stack: Case) {
        let encoded = stack.encoded()
        for feeding in Feeding.all {
            let decoded = feeding.decode(encoded, with: stack.codings)
            if let expected = stack.expected {
                decoded.expectBytes(expected, "\(feeding)")
            } else {
                decoded.expectFailure("\(feeding)")
            }
        }
    }

    /// The inner decoder's output overflows its buffer many times over, inside the outer one.
    @Test func stackedLargeOutput() {
        let original = Payload.large
        let encoded = Compression.zstd(Compression.gzip(original))
        for feeding in Feeding.coarse {
            let decoded = feeding.decode(encoded, with: [.gzip, .zstd])
            decoded.expectBytes(original, "\(feeding)")
            #expect(decoded.largestPiece <= DecoderChain.bufferSize, "\(feeding)")
        }
    }

    // MARK: Content-Encoding

    @Test(arguments: [
        ("gzip", [.gzip]), ("x-gzip", [.gzip]), ("GZip", [.gzip]), ("X-GZIP", [.gzip]),
        ("identity", []), ("", []), ("gzip, identity", [.gzip]), ("br,zstd", [.br, .zstd]),
        (" deflate , gzip ", [.deflate, .gzip]), ("deflate,\tgzip", [.deflate, .gzip]), ("gzip,,br", [.gzip, .br]),
        ("gzip, gzip", [.gzip, .gzip]), ("compress", nil), ("x-compress", nil), ("gzip, foo", nil), ("gzip;q=1", nil),
    ] as [(String, [ContentCoding]?)])
    func parse(_ value: String, _ expected: [ContentCoding]?) {
        #expect(ContentCoding.parse(value) == expected)
    }

    @Test func acceptAllNamesEveryCoding() {
        #expect(ContentCoding.parse(ContentCoding.acceptAll) == ContentCoding.allCases)
    }

    // MARK: decodedBytes

    @Test(arguments: Coder.all)
    func decodedBytesCountsTheOutputAsItGoes(_ coder: Coder) {
        let encoded = coder.encode(Payload.mediumText.bytes)
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: encoded.count, alignment: 1)
        defer { input.deallocate() }
        input.copyBytes(from: encoded)
        let chain = DecoderChain([coder.coding])
        var total = 0
        var mismatches = 0
        do throws(SessionError) {
            for range in Feeding.random(seed: 9, maxPiece: 512).pieces(of: encoded.count) {
                try chain.decode(UnsafeRawBufferPointer(rebasing: input[range])) { output in total += output.count }
                if chain.decodedBytes != Int64(total) { mismatches += 1 }
            }
            try chain.finish { output in total += output.count }
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(mismatches == 0)
        #expect(chain.decodedBytes == Int64(total))
        #expect(total == Payload.mediumText.bytes.count)
    }

    /// No codings: the chain passes bytes through and still counts them.
    @Test func emptyChainPassesThrough() {
        let chain = DecoderChain([])
        #expect(chain.codings.isEmpty)
        for feeding in Feeding.all {
            feeding.decode(Payload.text.bytes, with: []).expectBytes(Payload.text.bytes, "\(feeding)")
        }
    }
}

// MARK: - Fixtures

extension DecoderTests {
    /// One way to encode a body, with the coding that undoes it.
    struct Coder: Sendable, CustomTestStringConvertible {
        let name: String
        let coding: ContentCoding
        let encode: @Sendable ([UInt8]) -> [UInt8]
        var testDescription: String { name }

        static let all = [
            Coder(name: "gzip", coding: .gzip) { Compression.gzip($0) },
            Coder(name: "deflate (zlib)", coding: .deflate) { Compression.zlib($0) },
            Coder(name: "deflate (raw)", coding: .deflate) { Compression.rawDeflate($0) },
            Coder(name: "br", coding: .br) { Compression.brotli($0) },
            Coder(name: "zstd", coding: .zstd) { Compression.zstd($0) },
        ]
    }

    /// Bodies to encode.
    struct Payload: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }

        static let empty = Payload(name: "empty", bytes: [])
        static let oneByte = Payload(name: "one byte", bytes: [0x2a])
        static let text = Payload(name: "text", bytes: Array("""
            It is a truth universally acknowledged, that a single download in possession of a good \
            connection, must be in want of a decoder. However little known the feelings or views of \
            such a stream may be on its first entering a socket, this truth is so well fixed in the \
            minds of the surrounding clients, that it is considered the rightful property of some one \
            or other of their buffers.\n
            """.utf8))
        /// Incompressible, and longer than a deflate stored block (65,535 bytes).
        static let binary = Payload(name: "random 70000", bytes: randomBytes(70_000, seed: 1))
        /// More than one decoder buffer of output.
        static let mediumText = Payload(name: "words 300 KiB", bytes: words(300 << 10, seed: 2))
        /// 1 MiB of compressible text, then 8 MiB of zeros: a tiny encoded body, a big output.
        static let large = words(1 << 20, seed: 3) + [UInt8](repeating: 0, count: 8 << 20)

        static let all = [empty, oneByte, text, binary, mediumText]

        static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
            var random = SplitMix64(seed: seed)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count + 8)
            while bytes.count < count {
                withUnsafeBytes(of: random.next().littleEndian) { bytes += $0 }
            }
            return Array(bytes.prefix(count))
        }

        /// Words drawn from a small vocabulary by a seeded generator: compresses, but not trivially.
        static func words(_ count: Int, seed: UInt64) -> [UInt8] {
            let vocabulary = ["swget", "range", "chunk", "gzip", "stream", "the", "of", "a", "byte", "window",
                              "header", "trailer", "member", "frame", "block", "zero", "decoder", "buffer",
                              "connection", "resume", "\n", "HTTP/1.1", "200", "OK", "Content-Encoding:"]
                .map { Array($0.utf8) + [0x20] }
            var random = SplitMix64(seed: seed)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count + 32)
            while bytes.count < count {
                bytes += vocabulary[Int(random.next() % UInt64(vocabulary.count))]
            }
            return Array(bytes.prefix(count))
        }
    }

    /// A damaged encoded body, which must fail to decode however it is fed.
    struct Damage: Sendable, CustomTestStringConvertible {
        let name: String
        let codings: [ContentCoding]
        let encoded: @Sendable () -> [UInt8]
        /// A part of the error's description, when the cause is certain.
        var message: String?
        var testDescription: String { name }

        init(_ name: String, _ codings: [ContentCoding], message: String? = nil, _ encoded: @escaping @Sendable () -> [UInt8]) {
            self.name = name
            self.codings = codings
            self.message = message
            self.encoded = encoded
        }

        /// Text that makes real Huffman-coded blocks, short enough to feed one byte at a time.
        static let sample = Payload.words(16 << 10, seed: 4)

        static let all = [
            Damage("gzip CRC-32", [.gzip], message: "incorrect data check") { flip(Compression.gzip(sample), at: { $0 - 8 }) },
            Damage("gzip ISIZE", [.gzip], message: "incorrect length check") { flip(Compression.gzip(sample), at: { $0 - 4 }) },
            Damage("gzip magic", [.gzip], message: "incorrect header check") { flip(Compression.gzip(sample), at: { _ in 0 }) },
            Damage("gzip method", [.gzip], message: "unknown compression method") { flip(Compression.gzip(sample), at: { _ in 2 }) },
            Damage("gzip middle", [.gzip]) { flip(Compression.gzip(sample), at: { $0 / 2 }) },
            Damage("gzip second member's CRC-32", [.gzip], message: "incorrect data check") {
                Compression.gzip(Payload.text.bytes) + flip(Compression.gzip(sample), at: { $0 - 8 })
            },
            Damage("zlib Adler-32", [.deflate], message: "incorrect data check") { flip(Compression.zlib(sample), at: { $0 - 1 }) },
            Damage("zlib middle", [.deflate]) { flip(Compression.zlib(sample), at: { $0 / 2 }) },
            Damage("raw deflate block type 3", [.deflate], message: "invalid block type") { [0x07, 0x00] },
            // br has no checksum, nor has zstd without its optional one (ZSTD_compress leaves it
            // out): a flip is caught only when it breaks the format's structure (bit streams that
            // must end exactly, block and frame sizes). For this sample that is most flips, not
            // all (about 8% of single-byte flips in br and 20% in zstd decode silently to other
            // bytes); the positions below are fixed, and the checksummed zstd cases catch any flip.
            Damage("br middle", [.br]) { flip(Compression.brotli(sample), at: { $0 / 2 }) },
            Damage("br first third", [.br]) { flip(Compression.brotli(sample), at: { $0 / 3 }) },
            Damage("br last third", [.br]) { flip(Compression.brotli(sample), at: { $0 * 2 / 3 }) },
            Damage("zstd magic", [.zstd], message: "not a zstd frame") { flip(Compression.zstd(sample), at: { _ in 0 }) },
            Damage("zstd middle", [.zstd]) { flip(Compression.zstd(sample), at: { $0 / 2 }) },
            Damage("zstd first third", [.zstd]) { flip(Compression.zstd(sample), at: { $0 / 3 }) },
            Damage("zstd last third", [.zstd]) { flip(Compression.zstd(sample), at: { $0 * 2 / 3 }) },
            Damage("zstd checksum", [.zstd], message: "checksum") { flip(Compression.zstd(sample, checksum: true), at: { $0 - 1 }) },
            // Position 100 is in the literals, where the unchecksummed frame decodes silently.
            Damage("zstd with checksum, literals", [.zstd], message: "checksum") { flip(Compression.zstd(sample, checksum: true), at: { _ in 100 }) },
            Damage("gzip inside a valid zstd frame", [.gzip, .zstd], message: "incorrect data check") {
                Compression.zstd(flip(Compression.gzip(sample), at: { $0 - 8 }))
            },
        ]

        /// Inverts every bit of one byte; `position` maps the count to the index.
        static func flip(_ bytes: [UInt8], at position: (Int) -> Int) -> [UInt8] {
            var bytes = bytes
            bytes[position(bytes.count)] ^= 0xff
            return bytes
        }
    }

    /// An encoded body, often with something after (or around) the end of its stream, and what
    /// it must decode to (nil: it must fail).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let codings: [ContentCoding]
        let expected: [UInt8]?
        let encoded: @Sendable () -> [UInt8]
        var testDescription: String { name }

        init(_ name: String, _ codings: [ContentCoding], _ expected: [UInt8]?, _ encoded: @escaping @Sendable () -> [UInt8]) {
            self.name = name
            self.codings = codings
            self.expected = expected
            self.encoded = encoded
        }

        static let a = Payload.text.bytes
        static let b = Payload.words(5000, seed: 5)
        static let garbage = Array("garbage".utf8)

        /// A zstd skippable frame (RFC 8878 §3.1.2) with four bytes of user data.
        static let skippableFrame: [UInt8] = [0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]

        static let all = [
            // What gzip(1) writes: the FNAME field (`gzip file`), and a header CRC (`FHCRC`).
            Case("gzip with a file name", [.gzip], a) { withFileName(Compression.gzip(a)) },
            Case("gzip with a file name, two members", [.gzip], a + b) { withFileName(Compression.gzip(a)) + withFileName(Compression.gzip(b)) },
            Case("gzip with a header CRC", [.gzip], a) { withHeaderCRC(Compression.gzip(a)) },
            Case("gzip with a wrong header CRC", [.gzip], nil) { Damage.flip(withHeaderCRC(Compression.gzip(a)), at: { _ in 10 }) },
            // gzip(1) decodes concatenated members as one stream (`gzip -c a b > ab.gz`)...
            Case("gzip two members", [.gzip], a + b) { Compression.gzip(a) + Compression.gzip(b) },
            Case("gzip empty member between", [.gzip], a + b) { Compression.gzip(a) + Compression.gzip([]) + Compression.gzip(b) },
            // ...and, like gzip(1), ignores what follows the last member unless it starts with the
            // gzip magic. gzip 1.12 warns "decompression OK, trailing garbage ignored" (exit 2) for
            // garbage, is silent about zeros (tar's padding, exit 0), and fails on a broken member.
            Case("gzip + garbage", [.gzip], a) { Compression.gzip(a) + garbage },
            Case("gzip + zeros", [.gzip], a) { Compression.gzip(a) + [UInt8](repeating: 0, count: 1024) },
            Case("gzip + 0x1f + garbage", [.gzip], a) { Compression.gzip(a) + [0x1f] + garbage },
            // A second member that starts right but is broken is an error, as in gzip(1)
            // ("unknown method 103", exit 1).
            Case("gzip + magic + garbage", [.gzip], nil) { Compression.gzip(a) + [0x1f, 0x8b] + garbage },
            Case("gzip + truncated member", [.gzip], nil) { Compression.gzip(a) + Compression.gzip(b).dropLast(3) },
            // deflate and br are exactly one stream.
            Case("zlib + garbage", [.deflate], nil) { Compression.zlib(a) + garbage },
            Case("zlib + zlib", [.deflate], nil) { Compression.zlib(a) + Compression.zlib(b) },
            Case("raw deflate + garbage", [.deflate], nil) { Compression.rawDeflate(a) + garbage },
            Case("empty raw deflate + one byte", [.deflate], nil) { Compression.rawDeflate([]) + [0] },
            Case("br + garbage", [.br], nil) { Compression.brotli(a) + garbage },
            Case("br + br", [.br], nil) { Compression.brotli(a) + Compression.brotli(b) },
            Case("empty br + one byte", [.br], nil) { Compression.brotli([]) + [0] },
            // zstd frames in a row decode as one stream (RFC 8878 §3.1); skippable frames carry no content.
            Case("zstd two frames", [.zstd], a + b) { Compression.zstd(a) + Compression.zstd(b) },
            Case("zstd skippable frame between", [.zstd], a + b) { Compression.zstd(a) + skippableFrame + Compression.zstd(b) },
            Case("zstd + garbage", [.zstd], nil) { Compression.zstd(a) + garbage },
            Case("zstd + one byte", [.zstd], nil) { Compression.zstd(a) + [0x28] },
            Case("zstd + truncated frame", [.zstd], nil) { Compression.zstd(a) + Compression.zstd(b).dropLast(1) },
            Case("zstd + two bytes of a magic", [.zstd], nil) { Compression.zstd(a) + [0x28, 0xb5] },
            // A pre-1.0 ("legacy", v0.7) frame is not RFC 8878 zstd: refused however the body is
            // cut (the library read it only when its magic came in one piece; FuzzDecoders).
            Case("zstd legacy v0.7 frame", [.zstd], nil) { [0x27, 0xb5, 0x2f, 0xfd, 0x04, 0x0e, 0x00, 0x00, 0x00] },
            Case("zstd + legacy frame", [.zstd], nil) { Compression.zstd(a) + [0x27, 0xb5, 0x2f, 0xfd, 0x04, 0x0e, 0x00, 0x00, 0x00] },
        ]

        /// Sets FNAME in a zlib-made gzip member's 10-byte header and inserts the name after it.
        static func withFileName(_ member: [UInt8]) -> [UInt8] {
            var header = Array(member.prefix(10))
            header[3] |= 0x08
            return header + Array("report.csv".utf8) + [0] + member.dropFirst(10)
        }

        /// Sets FHCRC and inserts the header's CRC-32 (its low two bytes, RFC 1952 §2.3.1).
        static func withHeaderCRC(_ member: [UInt8]) -> [UInt8] {
            var header = Array(member.prefix(10))
            header[3] |= 0x02
            let crc = Compression.crc32(header)
            return header + [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)] + member.dropFirst(10)
        }

        /// Codings applied one over the other, undone in reverse order.
        static let stacked = [
            Case("deflate, gzip", [.deflate, .gzip], a) { Compression.gzip(Compression.zlib(a)) },
            Case("deflate (raw), gzip", [.deflate, .gzip], a) { Compression.gzip(Compression.rawDeflate(a)) },
            Case("gzip, br", [.gzip, .br], a) { Compression.brotli(Compression.gzip(a)) },
            Case("br, zstd", [.br, .zstd], a) { Compression.zstd(Compression.brotli(a)) },
            Case("zstd, deflate", [.zstd, .deflate], a) { Compression.zlib(Compression.zstd(a)) },
            Case("gzip, gzip", [.gzip, .gzip], a) { Compression.gzip(Compression.gzip(a)) },
            Case("gzip, deflate, br, zstd", [.gzip, .deflate, .br, .zstd], b) {
                Compression.zstd(Compression.brotli(Compression.zlib(Compression.gzip(b))))
            },
            Case("empty: gzip, br", [.gzip, .br], []) { Compression.brotli(Compression.gzip([])) },
            // The inner stream is broken though the outer one is whole: `finish` must reach it.
            Case("truncated gzip inside zstd", [.gzip, .zstd], nil) { Compression.zstd(Array(Compression.gzip(a).dropLast(1))) },
            Case("truncated br inside gzip", [.br, .gzip], nil) { Compression.gzip(Array(Compression.brotli(a).dropLast(1))) },
            Case("zlib + garbage inside gzip", [.deflate, .gzip], nil) { Compression.gzip(Compression.zlib(a) + garbage) },
            Case("gzip + garbage inside zstd", [.gzip, .zstd], a) { Compression.zstd(Compression.gzip(a) + garbage) },
            // The outer stream is broken.
            Case("deflate, truncated gzip", [.deflate, .gzip], nil) { Array(Compression.gzip(Compression.zlib(a)).dropLast(1)) },
        ]
    }

    // MARK: - Feeding

    /// How an encoded body is cut into pieces for `decode`.
    enum Feeding: Sendable, CustomStringConvertible {
        case whole
        case byteByByte
        /// Pieces of 0 to `maxPiece` bytes; 0 is an empty `decode` call.
        case random(seed: UInt64, maxPiece: Int)

        static let all: [Feeding] = [.whole, .byteByByte] + (1...4).map { .random(seed: $0, maxPiece: 64) }
        /// For megabyte outputs, where a call per byte is too slow in debug builds.
        static let coarse: [Feeding] = [.whole] + (5...7).map { .random(seed: $0, maxPiece: 16 << 10) }

        var description: String {
            switch self {
            case .whole: "whole"
            case .byteByByte: "byte by byte"
            case .random(let seed, let maxPiece): "random pieces up to \(maxPiece) (seed \(seed))"
            }
        }

        /// Feeds `encoded` to a new chain piece by piece, then finishes it. Each piece is a fresh
        /// allocation, overwritten once `decode` returns, so a decoder that keeps a pointer into its
        /// input past the call decodes garbage instead of passing by luck.
        func decode(_ encoded: [UInt8], with codings: [ContentCoding]) -> Decoded {
            let chain = DecoderChain(codings)
            var result = Decoded()
            let sink: DecodedOutput = { piece in
                result.bytes.append(contentsOf: piece)
                result.pieces += 1
                result.largestPiece = max(result.largestPiece, piece.count)
            }
            do throws(SessionError) {
                for range in pieces(of: encoded.count) {
                    guard !range.isEmpty else {
                        try chain.decode(UnsafeRawBufferPointer(start: nil, count: 0), into: sink)
                        continue
                    }
                    let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: range.count, alignment: 1)
                    defer {
                        piece.initializeMemory(as: UInt8.self, repeating: 0xaa)
                        piece.deallocate()
                    }
                    encoded[range].withUnsafeBytes { piece.copyMemory(from: $0) }
                    try chain.decode(UnsafeRawBufferPointer(piece), into: sink)
                }
                try chain.finish(into: sink)
            } catch {
                result.error = error
            }
            result.decodedBytes = chain.decodedBytes
            return result
        }

        func pieces(of count: Int) -> [Range<Int>] {
            switch self {
            case .whole:
                return [0..<count]
            case .byteByByte:
                return (0..<count).map { $0..<$0 + 1 }
            case .random(let seed, let maxPiece):
                var random = SplitMix64(seed: seed)
                var pieces: [Range<Int>] = []
                var start = 0
                while start < count {
                    let end = min(count, start + Int(random.next() % UInt64(maxPiece + 1)))
                    pieces.append(start..<end)
                    start = end
                }
                return pieces
            }
        }
    }


    /// What a chain made of one encoded body.
    struct Decoded {
        var bytes: [UInt8] = []
        var error: SessionError?
        /// Output calls, and the largest piece one of them carried.
        var pieces = 0
        var largestPiece = 0
        var decodedBytes: Int64 = 0

        /// Byte equality through memcmp: comparing megabytes element by element is slow in debug builds.
        static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            guard a.count == b.count else { return false }
            return a.withUnsafeBytes { a in
                b.withUnsafeBytes { b in
                    guard let p = a.baseAddress, let q = b.baseAddress else { return true }
                    return memcmp(p, q, a.count) == 0
                }
            }
        }

        func expectBytes(_ expected: [UInt8], _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(error == nil, "\(context): \(error.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
            #expect(Self.sameBytes(bytes, expected), "\(context): \(fingerprint(bytes)), expected \(fingerprint(expected))",
                    sourceLocation: sourceLocation)
            #expect(decodedBytes == Int64(bytes.count), "\(context)", sourceLocation: sourceLocation)
        }

        func expectFailure(_ context: String, containing message: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(error == .decodingFailed, "\(context): decoded \(fingerprint(bytes))", sourceLocation: sourceLocation)
            if let message, let error {
                #expect(error.description.contains(message), "\(context): \(error)", sourceLocation: sourceLocation)
            }
        }
    }
}
