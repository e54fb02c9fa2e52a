import CZstd

/// zstd (RFC 8878) through the system libzstd. Frames in a row decode as one stream; anything
/// else after a frame is an error.
final class ZstdDecoder: ContentDecoder {
    private let stream: OpaquePointer?
    /// The last `ZSTD_decompressStream` hint: 0 once a frame is complete and flushed.
    private var pending = 0
    private var sawInput = false
    private let buffer = DecoderBuffer()

    init() {
        stream = ZSTD_createDStream()
        if let stream { ZSTD_initDStream(stream) }
    }

    deinit {
        if let stream { ZSTD_freeDStream(stream) }
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        guard let stream else { throw SessionError.decodingFailed.with("zstd could not start") }
        sawInput = true
        var inBuffer = ZSTD_inBuffer(src: base, size: input.count, pos: 0)
        while true {
            var outBuffer = ZSTD_outBuffer(dst: buffer.base, size: buffer.count, pos: 0)
            let hint = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
            if ZSTD_isError(hint) != 0 {
                throw SessionError.decodingFailed.with("corrupt zstd data: \(String(cString: ZSTD_getErrorName(hint)))")
            }
            pending = hint
            if outBuffer.pos > 0 { try output(buffer.prefix(outBuffer.pos)) }
            // Done with this piece once all input is in and nothing is left to flush: the output
            // buffer was not filled, or the frame is complete (hint 0). Calling again after a
            // frame ended exactly as the buffer filled would start on the next frame's header
            // and report its size as pending: a whole body taken for a truncated one.
            if inBuffer.pos == inBuffer.size && (outBuffer.pos < outBuffer.size || hint == 0) { return }
        }
    }

    func finish(into output: DecodedOutput) throws(SessionError) {
        if sawInput && pending != 0 { throw SessionError.decodingFailed.with("truncated zstd data") }
    }
}
