#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

/// Entry points for the libFuzzer targets in `Fuzz/` (a separate package that the normal build
/// never compiles). Each function calls the production parser for one internal type and returns
/// plain values, so the fuzzers drive exactly the code a hostile server or file reaches without
/// `@testable import`. Not meant for programs: nothing here is a stable API.
public enum FuzzEntry {
    /// The response parser every HTTP connection installs (``HTTPConnection``), with the
    /// default head limit of ``SessionConfiguration``.
    public static func responseDecoder() -> ByteToMessageHandler<HTTPResponseDecoder> {
        HTTPConnection.responseDecoder(maxHeaderBytes: SessionConfiguration.default.maxResponseHeaderBytes)
    }

    /// The body framing `ResponseFraming` decides for a response head: `none`, `length N`,
    /// `chunked` or `untilClose`, and whether the connection may be reused; nil for a violation.
    public static func responseFraming(requestMethod: String, status: Int, versionMajor: Int, versionMinor: Int,
                                       headers: HeaderFields) -> (body: String, expectedLength: Int64?, keepAlive: Bool)? {
        guard let framing = try? ResponseFraming(requestMethod: requestMethod, status: status, versionMajor: versionMajor,
                                                 versionMinor: versionMinor, headers: headers) else { return nil }
        let body = switch framing.body {
        case .none: "none"
        case .length(let n): "length \(n)"
        case .chunked: "chunked"
        case .untilClose: "untilClose"
        }
        return (body, framing.expectedLength, framing.keepAlive)
    }

    /// A `Set-Cookie` value as `SetCookieParser` reads it at `now`: the cookie's name and value,
    /// or nil when it is refused.
    public static func setCookie(_ header: String, now: Date) -> (name: String, value: String)? {
        (try? SetCookieParser.parse(header, now: now)).map { ($0.name, $0.value) }
    }

    /// The most bytes a cookie's name and value may hold together.
    public static var maxCookieNameValueBytes: Int { SetCookieParser.maxNameValueBytes }

    /// A `Content-Range` value as the resume negotiation reads it.
    public static func contentRange(_ value: String) -> (first: Int64?, last: Int64?, total: Int64?)? {
        ContentRange(value).map { ($0.first, $0.last, $0.total) }
    }

    /// How a protocol handler answers a request's `Range`/`If-Range` for a resource of `length`
    /// bytes: the answer, its body length and its `Content-Range`.
    public static func rangeAnswer(headers: HeaderFields, length: Int64, validatorMatches: Bool)
        -> (answer: String, bodyLength: Int64, contentRange: String?) {
        let answer = RangeAnswer.decide(RangeRequest(headers), length: length, validatorMatches: validatorMatches)
        return ("\(answer)", answer.bodyLength(of: length), answer.fields(length: length)["Content-Range"])
    }

    /// What a `DecoderChain` produced from the encoded `pieces`, fed in order.
    public struct DecodeSummary: Sendable, Equatable {
        /// Decoded bytes handed to the output (at most `outputLimit` plus one piece).
        public var bytes: [UInt8] = []
        /// The largest single output piece.
        public var largestPiece = 0
        /// The chain's own count of decoded bytes.
        public var chainCount: Int64 = 0
        /// The chain threw (corrupt or truncated data).
        public var failed = false
        /// The output reached `outputLimit` and decoding stopped there.
        public var stopped = false
    }

    /// The output buffer size of each decoder: no output piece may be larger.
    public static var decoderBufferSize: Int { DecoderChain.bufferSize }

    /// Feeds `pieces` through the decoders for `codings` (as the server applied them), then
    /// finishes the stream, stopping once `outputLimit` decoded bytes were produced.
    public static func decode(_ codings: [ContentCoding], pieces: [[UInt8]], outputLimit: Int) -> DecodeSummary {
        let chain = DecoderChain(codings)
        var summary = DecodeSummary()
        let output: DecodedOutput = { (piece: UnsafeRawBufferPointer) throws(SessionError) in
            summary.largestPiece = max(summary.largestPiece, piece.count)
            summary.bytes.append(contentsOf: piece)
            if summary.bytes.count >= outputLimit {
                summary.stopped = true
                throw SessionError.tooLarge
            }
        }
        // No typed-throws closure crosses `withUnsafeBytes` (its reabstraction thunk crashes
        // swift-frontend 6.3.1 in IRGen): each piece reports failure as a value.
        var failed = false
        for piece in pieces where !failed {
            failed = piece.withUnsafeBytes { raw in
                do { try chain.decode(raw, into: output) } catch { return true }
                return false
            }
        }
        if !failed {
            do { try chain.finish(into: output) } catch { failed = true }
        }
        summary.failed = failed && !summary.stopped
        summary.chainCount = chain.decodedBytes
        return summary
    }

    /// FTP control replies read from `pieces` by `FTPReplyParser`: each reply's code and lines,
    /// then `nil` if the parser threw (on a piece or at the end of the stream).
    public static func ftpReplies(_ pieces: [[UInt8]]) -> (replies: [(code: Int, lines: [String])], error: String?) {
        var parser = FTPReplyParser()
        var replies: [(code: Int, lines: [String])] = []
        do {
            for piece in pieces {
                for reply in try parser.feed(piece) { replies.append((code: reply.code, lines: reply.lines)) }
            }
            try parser.finish()
            return (replies, nil)
        } catch {
            return (replies, error.description)
        }
    }

    /// An FTP listing (`mlsd` true for MLSD, else LIST) read from `pieces` by `FTPListingParser`,
    /// with "now" fixed at 2024-06-01 12:00:00: each entry's name, kind and size, or the error.
    public static func ftpListing(_ pieces: [[UInt8]], mlsd: Bool) -> (entries: [(name: String, kind: String, size: Int64?)], error: String?) {
        guard let now = FTPTimestamp(year: 2024, month: 6, day: 1, hour: 12, minute: 0, second: 0) else { return ([], "clock") }
        var parser = FTPListingParser(format: mlsd ? .mlsd : .list, now: now)
        var entries: [FTPListEntry] = []
        do {
            for piece in pieces { entries += try parser.feed(piece) }
            entries += try parser.finish()
        } catch {
            return (entries.map { ($0.name, "\($0.kind)", $0.size) }, error.description)
        }
        return (entries.map { ($0.name, "\($0.kind)", $0.size) }, nil)
    }
}
