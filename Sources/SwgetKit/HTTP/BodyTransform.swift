import NIOCore

/// What happens to body bytes between the framing and the sink's output.
struct BodyTransform: Sendable {
    /// Codings to undo, in the order the server applied them (empty: bytes as sent).
    var decoding: [ContentCoding] = []
    /// Most bytes the sink may output (after decoding); more fails with ``SessionError/tooLarge``.
    var limit: Int64?

    /// Applies the configuration's size limit to a body that follows `offset` stored bytes. An
    /// announced length over it fails at once (a decoded body's length is not known up front).
    mutating func bound(by limit: Int64?, announced length: Int64?, after offset: Int64 = 0) throws(SessionError) {
        guard let limit else { return }
        if decoding.isEmpty, let length, offset + length > limit {
            throw SessionError.tooLarge.with("the body is \(offset + length) bytes, over the limit of \(limit)")
        }
        self.limit = max(0, limit - offset)
    }
}

/// The decoding and size-limit stage of a sink: feeds each part through the decoder chain (if
/// any) and hands the output on, counting what comes out.
struct BodyOutput {
    private let chain: DecoderChain?
    private let limit: Int64?
    private(set) var received: Int64 = 0
    private(set) var delivered: Int64 = 0

    init(_ transform: BodyTransform) {
        chain = transform.decoding.isEmpty ? nil : DecoderChain(transform.decoding)
        limit = transform.limit
    }

    /// Passes `part` (decoded when asked) to `deliver`.
    mutating func process(_ part: ByteBuffer, _ deliver: DecodedOutput) throws(SessionError) {
        var failure: SessionError?
        part.withUnsafeReadableBytes { raw in
            do throws(SessionError) {
                if let chain {
                    try chain.decode(raw) { piece throws(SessionError) in try pass(piece, deliver) }
                } else {
                    try pass(raw, deliver)
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        received += Int64(part.readableBytes)
    }

    /// A part failed after `count` of its bytes reached an undecoded output: they are on disk
    /// and count for a resume. (Decoded output cannot be mapped back to received bytes.)
    mutating func creditLanded(_ count: Int) {
        if chain == nil { received += Int64(count) }
    }

    /// The body ended: whatever the decoders still hold, and the check that nothing is missing.
    mutating func finish(_ deliver: DecodedOutput) throws(SessionError) {
        try chain?.finish { piece throws(SessionError) in try pass(piece, deliver) }
    }

    private mutating func pass(_ bytes: UnsafeRawBufferPointer, _ deliver: DecodedOutput) throws(SessionError) {
        if let limit, delivered + Int64(bytes.count) > limit {
            throw SessionError.tooLarge.with("the \(chain == nil ? "body" : "decoded body") exceeds the limit of \(limit) bytes")
        }
        try deliver(bytes)
        delivered += Int64(bytes.count)
    }
}
