import NIOCore
import NIOEmbedded
import NIOHTTP1
import SwgetKit

/// Response heads and body framing: raw bytes, in random cuts, through the response parser every
/// connection installs (NIO's HTTPResponseDecoder as HTTPConnection configures it) in an
/// EmbeddedChannel, and each head through ResponseFraming. Properties: a body whose framing says
/// `length N` or `none` and that the parser ends carries exactly N (or 0) bytes; the parser and
/// our framing agree on whether there is a body at all.
enum ResponseHeadProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        var reader = FuzzReader(input)
        let method: HTTPMethod = reader.byte() & 1 == 0 ? .GET : .HEAD
        let cuts = (0..<Int(reader.byte() & 7)).map { _ in reader.byte() }
        let pieces = FuzzReader.split(reader.rest, cuts: cuts)

        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        do {
            try channel.pipeline.syncOperations.addHandler(HTTPRequestEncoder())
            try channel.pipeline.syncOperations.addHandler(FuzzEntry.responseDecoder())
            try channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: method, uri: "/")))
            try channel.writeOutbound(HTTPClientRequestPart.end(nil))
        } catch {
            throw PropertyFailure(message: "pipeline setup failed: \(error)", file: #fileID, line: #line)
        }
        var check = FramingCheck(method: method.rawValue)
        for piece in pieces {
            do {
                try channel.writeInbound(channel.allocator.buffer(bytes: piece))
            } catch {
                return
            }
            try check.drain(channel)
        }
        channel.close(promise: nil)
        try check.drain(channel)
    }

    /// Follows the parts the parser hands on and checks each body against its head's framing.
    struct FramingCheck {
        let method: String
        var framing: (body: String, expectedLength: Int64?, keepAlive: Bool)?
        var bodyBytes: Int64 = 0

        init(method: String) { self.method = method }

        mutating func drain(_ channel: EmbeddedChannel) throws(PropertyFailure) {
            while let part = try? channel.readInbound(as: HTTPClientResponsePart.self) {
                switch part {
                case .head(let head):
                    let headers = HeaderFields(head.headers.map { ($0.name, $0.value) })
                    framing = FuzzEntry.responseFraming(requestMethod: method, status: Int(head.status.code),
                                                        versionMajor: head.version.major, versionMinor: head.version.minor,
                                                        headers: headers)
                    bodyBytes = 0
                case .body(let buffer):
                    bodyBytes += Int64(buffer.readableBytes)
                    if let framing, framing.body == "none" { try require(bodyBytes == 0, "body bytes after a head without a body") }
                case .end:
                    if let framing, let length = framing.expectedLength {
                        try require(bodyBytes == length, "framing \(framing.body) but the parser delivered \(bodyBytes) bytes")
                    }
                    framing = nil
                }
            }
        }
    }
}
