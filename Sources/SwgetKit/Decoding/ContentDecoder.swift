/// Where a decoder's output goes: the next decoder of the chain, or the sink. The buffer is
/// valid only during the call.
typealias DecodedOutput = (UnsafeRawBufferPointer) throws(SessionError) -> Void

/// One streaming decoder around a system library. Fed encoded pieces of any size (one byte at a
/// time works as well as a megabyte), it produces output in pieces of at most its buffer size,
/// so memory stays constant whatever the ratio.
protocol ContentDecoder: AnyObject {
    /// Decodes the next encoded piece.
    func decode(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError)
    /// The input ended: throws when the encoded stream is incomplete. An empty input is an empty
    /// body, not an error.
    func finish(into output: DecodedOutput) throws(SessionError)
}

/// The decoders for a `Content-Encoding` list (or a gzip payload), applied in reverse order of
/// the codings: the chain between transfer framing and the sink (curl's writer stack, aria2's
/// stream filters). Lives on one thread at a time (the connection's event loop).
final class DecoderChain {
    /// The codings as the server applied them.
    let codings: [ContentCoding]
    /// In decoding order: the last coding applied comes off first.
    private let decoders: [any ContentDecoder]
    /// Decoded bytes produced so far.
    private(set) var decodedBytes: Int64 = 0

    /// Output buffer size of each decoder.
    static let bufferSize = 256 << 10

    init(_ codings: [ContentCoding]) {
        self.codings = codings
        decoders = codings.reversed().map { coding -> any ContentDecoder in
            switch coding {
            case .gzip: ZlibDecoder(.gzip)
            case .deflate: ZlibDecoder(.deflate)
            case .br: BrotliDecoder()
            case .zstd: ZstdDecoder()
            }
        }
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError) {
        try feed(input, from: 0, output)
    }

    func finish(into output: DecodedOutput) throws(SessionError) {
        for index in decoders.indices {
            try decoders[index].finish { piece throws(SessionError) in try feed(piece, from: index + 1, output) }
        }
    }

    private func feed(_ input: UnsafeRawBufferPointer, from index: Int, _ output: DecodedOutput) throws(SessionError) {
        guard index < decoders.count else {
            decodedBytes += Int64(input.count)
            try output(input)
            return
        }
        try decoders[index].decode(input) { piece throws(SessionError) in try feed(piece, from: index + 1, output) }
    }
}

/// A fixed output buffer owned by one decoder.
struct DecoderBuffer: ~Copyable {
    let base = UnsafeMutablePointer<UInt8>.allocate(capacity: DecoderChain.bufferSize)
    var count: Int { DecoderChain.bufferSize }
    func prefix(_ n: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: n) }
    deinit { base.deallocate() }
}
