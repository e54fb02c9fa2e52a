import Testing
@testable import SwgetKit
import SwgetTestSupport

/// How bytes reach a parser: whole, one byte at a time, or in seeded random pieces (empty ones
/// included), as `DecoderTests` feeds the content decoders.
enum FTPCut: CustomStringConvertible, Sendable {
    case whole
    case byteByByte
    case random(seed: UInt64)

    static let all: [FTPCut] = [.whole, .byteByByte, .random(seed: 1), .random(seed: 2), .random(seed: 3), .random(seed: 4)]
    /// For large inputs: no byte-by-byte pass.
    static let coarse: [FTPCut] = [.whole, .random(seed: 5)]

    var description: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .random(let seed): "random cuts (seed \(seed))"
        }
    }

    func pieces(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        switch self {
        case .whole:
            return [bytes[...]]
        case .byteByByte:
            return bytes.indices.map { bytes[$0...$0] }
        case .random(let seed):
            var random = SplitMix64(seed: seed)
            var pieces: [ArraySlice<UInt8>] = []
            var start = 0
            while start < bytes.count {
                let length = Int(random.next() % 9)
                let end = min(bytes.count, start + length)
                pieces.append(bytes[start..<end])
                start = end
            }
            return pieces
        }
    }
}

@Suite("FTP replies (RFC 959 §4.2)")
struct FTPReplyTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let wire: [UInt8]
        let replies: [FTPReply]
        var testDescription: String { name }

        init(_ name: String, _ wire: String, _ replies: [FTPReply]) {
            self.name = name
            self.wire = Array(wire.utf8)
            self.replies = replies
        }

        init(_ name: String, bytes: [UInt8], _ replies: [FTPReply]) {
            self.name = name
            self.wire = bytes
            self.replies = replies
        }
    }

    static let cases: [Case] = [
        Case("single line", "220 Welcome\r\n", [FTPReply(220, "Welcome")]),
        Case("bare LF", "220 Welcome\n", [FTPReply(220, "Welcome")]),
        Case("code only", "200\r\n", [FTPReply(200, "")]),
        Case("empty text", "200 \r\n", [FTPReply(200, "")]),
        Case("two replies in one piece", "150 Opening\r\n226 Done\r\n", [FTPReply(150, "Opening"), FTPReply(226, "Done")]),
        Case("RFC 959's multi-line example", "123-First line\r\nSecond line\r\n  234 A line beginning with numbers\r\n123 The last line\r\n",
             [FTPReply(code: 123, lines: ["First line", "Second line", "  234 A line beginning with numbers", "The last line"])]),
        Case("ProFTPD repeats the code on every line", "230-Welcome\r\n230-to the server\r\n230 Login ok\r\n",
             [FTPReply(code: 230, lines: ["Welcome", "to the server", "Login ok"])]),
        Case("vsftpd FEAT", "211-Features:\r\n EPRT\r\n EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n TVFS\r\n211 End\r\n",
             [FTPReply(code: 211, lines: ["Features:", " EPRT", " EPSV", " MDTM", " PASV", " REST STREAM", " SIZE", " TVFS", "End"])]),
        Case("MLST keeps the entry line's space", "250-Listing /pub/f\r\n type=file;size=5; /pub/f\r\n250 End\r\n",
             [FTPReply(code: 250, lines: ["Listing /pub/f", " type=file;size=5; /pub/f", "End"])]),
        Case("another code does not end it", "220-hi\r\n230 no\r\n2200 neither\r\n220-nor this\r\n220 end\r\n",
             [FTPReply(code: 220, lines: ["hi", "230 no", "2200 neither", "nor this", "end"])]),
        Case("ends with the bare code", "220-hi\r\n220\r\n", [FTPReply(code: 220, lines: ["hi", ""])]),
        Case("mixed line ends", "220-a\nb\r\n220 c\n331 p\r\n", [FTPReply(code: 220, lines: ["a", "b", "c"]), FTPReply(331, "p")]),
        Case("CR inside a line is kept", "200 a\rb\r\n", [FTPReply(200, "a\rb")]),
        Case("non-UTF-8 bytes are replaced", bytes: Array("550 caf".utf8) + [0xE9] + Array("\r\n".utf8), [FTPReply(550, "caf\u{FFFD}")]),
        Case("UTF-8 text", "257 \"/pub/été\" is current\r\n", [FTPReply(257, "\"/pub/été\" is current")]),
        Case("nothing", "", []),
    ]

    @Test(arguments: cases)
    func parses(_ c: Case) throws {
        for cut in FTPCut.all {
            var parser = FTPReplyParser()
            var replies: [FTPReply] = []
            for piece in cut.pieces(c.wire) { replies += try parser.feed(piece) }
            #expect(replies == c.replies, "\(cut)")
            #expect(!parser.hasPartialReply, "\(cut)")
            try parser.finish()
        }
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        let name: String
        let wire: String
        let error: FTPReplyError
        var testDescription: String { name }
    }

    static let bad: [Bad] = [
        Bad(name: "text", wire: "hello\r\n", error: .malformed("hello")),
        Bad(name: "two digits", wire: "20 ok\r\n", error: .malformed("20 ok")),
        Bad(name: "no separator", wire: "220x\r\n", error: .malformed("220x")),
        Bad(name: "empty line", wire: "\r\n", error: .malformed("")),
        Bad(name: "code 099", wire: "099 x\r\n", error: .codeOutOfRange("099")),
        Bad(name: "code 600", wire: "600 x\r\n", error: .codeOutOfRange("600")),
        Bad(name: "code 999", wire: "999 x\r\n", error: .codeOutOfRange("999")),
        Bad(name: "code 000", wire: "000 x\r\n", error: .codeOutOfRange("000")),
        Bad(name: "garbage after a good reply", wire: "220 ok\r\n\u{1B}[2J\r\n", error: .malformed("\u{1B}[2J")),
    ]

    @Test(arguments: bad)
    func refuses(_ c: Bad) {
        for cut in FTPCut.all {
            var parser = FTPReplyParser()
            #expect(throws: c.error, "\(cut)") {
                for piece in cut.pieces(Array(c.wire.utf8)) { _ = try parser.feed(piece) }
                try parser.finish()
            }
            #expect(parser.failure == c.error)
            // The parser stays failed.
            #expect(throws: c.error) { _ = try parser.feed(Array("200 ok\r\n".utf8)) }
        }
    }

    /// The replies before a bad line are delivered whatever the cuts, and the error follows
    /// (FuzzFTP's first finding: the whole stream lost the 150 that a cut stream delivered).
    @Test(arguments: [
        ("150 Opening\r\n226\0\u{2}\u{3}\u{7}220 Welcome Done\r\n", [FTPReply(150, "Opening")],
         FTPReplyError.malformed("226\0\u{2}\u{3}\u{7}220 Welcome Done")),
        ("226 done\r\n221 bye\r\nhello\r\n", [FTPReply(226, "done"), FTPReply(221, "bye")], .malformed("hello")),
        ("220-a\r\n220 b\r\n" + String(repeating: "x", count: 9000) + "\r\n", [FTPReply(code: 220, lines: ["a", "b"])],
         .lineTooLong(limit: 8 << 10)),
    ])
    func repliesBeforeABadLineDoNotDependOnCuts(_ wire: String, _ replies: [FTPReply], _ error: FTPReplyError) {
        for cut in FTPCut.all {
            var parser = FTPReplyParser()
            var got: [FTPReply] = []
            var thrown: FTPReplyError?
            do {
                for piece in cut.pieces(Array(wire.utf8)) { got += try parser.feed(piece) }
                try parser.finish()
            } catch {
                thrown = error
            }
            #expect(got == replies, "\(cut)")
            #expect(thrown == error, "\(cut)")
        }
    }

    @Test func truncatedReplies() throws {
        for wire in ["220-partial\r\n", "220 no line end", "220-a\r\nb\r\n220"] {
            for cut in FTPCut.all {
                var parser = FTPReplyParser()
                for piece in cut.pieces(Array(wire.utf8)) { #expect(try parser.feed(piece).isEmpty) }
                #expect(parser.hasPartialReply)
                #expect(throws: FTPReplyError.truncated) { try parser.finish() }
            }
        }
    }

    @Test func lineLengthLimitIsExact() throws {
        var limits = FTPReplyParser.Limits()
        limits.maxLineLength = 64
        for ending in ["\r\n", "\n"] {
            let fits = "200 " + String(repeating: "x", count: 60)
            var parser = FTPReplyParser(limits: limits)
            #expect(try parser.feed(Array((fits + ending).utf8)) == [FTPReply(200, String(repeating: "x", count: 60))])
            var over = FTPReplyParser(limits: limits)
            #expect(throws: FTPReplyError.lineTooLong(limit: 64)) { _ = try over.feed(Array((fits + "y" + ending).utf8)) }
        }
    }

    /// A 10 MB line is refused as soon as it passes the limit: the parser holds no more than
    /// the limit, and stops reading.
    @Test func hugeLineIsRefusedEarly() {
        var parser = FTPReplyParser()
        let chunk = [UInt8](repeating: 0x41, count: 64 << 10)
        var fed = 0
        #expect(throws: FTPReplyError.lineTooLong(limit: 8 << 10)) {
            fed += chunk.count
            _ = try parser.feed(Array("220 ".utf8))
            while fed < 10 << 20 {
                _ = try parser.feed(chunk)
                fed += chunk.count
            }
        }
        #expect(fed == 64 << 10)
    }

    @Test func millionContinuationLinesAreRefused() {
        var parser = FTPReplyParser()
        // 100 pieces of 10,000 lines: a million continuation lines, refused in the first piece.
        let lines = Array(String(repeating: "x\r\n", count: 10_000).utf8)
        var pieces = 0
        #expect(throws: FTPReplyError.tooManyLines(limit: 1000)) {
            _ = try parser.feed(Array("220-start\r\n".utf8))
            while pieces < 100 {
                _ = try parser.feed(lines)
                pieces += 1
            }
        }
        #expect(pieces == 0)
    }

    @Test func largeMultiLineReplyIsRefused() {
        var parser = FTPReplyParser()
        let line = Array((String(repeating: "y", count: 4000) + "\r\n").utf8)
        #expect(throws: FTPReplyError.replyTooLarge(limit: 256 << 10)) {
            _ = try parser.feed(Array("220-start\r\n".utf8))
            for _ in 0..<100 { _ = try parser.feed(line) }
        }
    }

    @Test func kindsAndSummary() {
        #expect(FTPReply(150).kind == .preliminary)
        #expect(FTPReply(226).kind == .completion)
        #expect(FTPReply(331).kind == .intermediate)
        #expect(FTPReply(421).kind == .transientNegative)
        #expect(FTPReply(550).kind == .permanentNegative)
        #expect(FTPReply(550, "no\u{1B}[31m such\u{7F} file").summary == "no?[31m such? file")
        let long = FTPReply(220, String(repeating: "é", count: 300))
        #expect(long.summary == String(repeating: "é", count: 160) + "…")
        #expect(FTPReply(code: 211, lines: ["a", "b"]).text == "a\nb")
        #expect(FTPReply(code: 200, lines: []).lines == [""])
        #expect("\(FTPReply(550, "Nope"))" == "550 Nope")
    }
}
