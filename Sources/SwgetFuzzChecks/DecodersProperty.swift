import SwgetKit

/// The content decoders (gzip, deflate, br, zstd and chains of them) through DecoderChain, fed in
/// random cuts. Properties: no output piece is larger than the decoder buffer; output stops at the
/// bound asked for; the chain's count matches the bytes handed out; and the cut points change
/// nothing (whole input and cut input decode to the same bytes and the same verdict).
enum DecodersProperty {
    static let outputLimit = 4 << 20

    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        var reader = FuzzReader(input)
        let selector = reader.byte()
        let all = ContentCoding.allCases
        var codings = [all[Int(selector & 3) % all.count]]
        if selector & 4 != 0 { codings.append(all[Int(selector >> 3 & 3) % all.count]) }
        let cuts = (0..<Int(reader.byte() & 7)).map { _ in reader.byte() }
        let body = reader.rest
        let whole = FuzzEntry.decode(codings, pieces: [body], outputLimit: outputLimit)
        let cut = FuzzEntry.decode(codings, pieces: FuzzReader.split(body, cuts: cuts), outputLimit: outputLimit)
        for summary in [whole, cut] {
            try require(summary.largestPiece <= FuzzEntry.decoderBufferSize, "piece of \(summary.largestPiece) bytes")
            try require(summary.bytes.count < outputLimit + FuzzEntry.decoderBufferSize, "output past the bound")
            try require(summary.chainCount == Int64(summary.bytes.count), "count \(summary.chainCount) vs \(summary.bytes.count)")
        }
        if !whole.stopped && !cut.stopped {
            try require(whole.failed == cut.failed, "verdict depends on cuts: \(codings) \(cuts)")
            if !whole.failed { try require(whole.bytes == cut.bytes, "output depends on cuts: \(codings) \(cuts)") }
        }
    }
}
