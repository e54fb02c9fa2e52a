import CBrotli

/// br (RFC 7932) through the system brotli decoder. Data after the end of the stream is an error.
final class BrotliDecoder: ContentDecoder {
    private let state: OpaquePointer?
    private var ended = false
    private var sawInput = false
    private let buffer = DecoderBuffer()

    init() {
        state = BrotliDecoderCreateInstance(nil, nil, nil)
    }

    deinit {
        if let state { BrotliDecoderDestroyInstance(state) }
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        guard let state else { throw SessionError.decodingFailed.with("brotli could not start") }
        sawInput = true
        if ended { throw SessionError.decodingFailed.with("data after the end of the br stream") }
        var nextIn: UnsafePointer<UInt8>? = base.assumingMemoryBound(to: UInt8.self)
        var availableIn = input.count
        while true {
            var nextOut: UnsafeMutablePointer<UInt8>? = buffer.base
            var availableOut = buffer.count
            let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            let produced = buffer.count - availableOut
            if produced > 0 { try output(buffer.prefix(produced)) }
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS:
                ended = true
                if availableIn > 0 { throw SessionError.decodingFailed.with("data after the end of the br stream") }
                return
            case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                continue
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                return
            default:
                let reason = String(cString: BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state)))
                throw SessionError.decodingFailed.with("corrupt br data: \(reason)")
            }
        }
    }

    func finish(into output: DecodedOutput) throws(SessionError) {
        if sawInput && !ended { throw SessionError.decodingFailed.with("truncated br data") }
    }
}
