import CZstd

/// zstd (RFC 8878) through the system libzstd. Frames in a row decode as one stream; anything
/// else after a frame is an error.
///
/// Each frame's first four bytes are held until all four are in and checked: only RFC 8878's
/// frames (magic 0xFD2FB528) and skippable frames are zstd content coding. The system library
/// also reads pre-1.0 ("legacy") frames, but only when their magic arrives in one piece, so the
/// same body decoded or failed depending on how the network cut it (found by FuzzDecoders).
final class ZstdDecoder: ContentDecoder {
    private let stream: OpaquePointer?
    /// The last `ZSTD_decompressStream` hint: 0 once a frame is complete and flushed.
    private var pending = 0
    private var sawInput = false
    /// The next byte begins a frame.
    private var atFrameStart = true
    /// A frame's first bytes, held until its magic number is known (`magicCount` of 4).
    private let magic = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 4)
    private var magicCount = 0
    private let buffer = DecoderBuffer()

    init() {
        stream = ZSTD_createDStream()
        if let stream { ZSTD_initDStream(stream) }
    }

    deinit {
        if let stream { ZSTD_freeDStream(stream) }
        magic.deallocate()
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError) {
        guard input.count > 0 else { return }
        guard stream != nil else { throw SessionError.decodingFailed.with("zstd could not start") }
        sawInput = true
        var rest = input
        while !rest.isEmpty {
            if atFrameStart {
                let taken = min(4 - magicCount, rest.count)
                UnsafeMutableRawBufferPointer(rebasing: magic[magicCount..<magicCount + taken]).copyMemory(from: UnsafeRawBufferPointer(rebasing: rest.prefix(taken)))
                magicCount += taken
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(taken))
                guard magicCount == 4 else { return }
                let number = UInt32(magic[0]) | UInt32(magic[1]) << 8 | UInt32(magic[2]) << 16 | UInt32(magic[3]) << 24
                guard number == 0xFD2F_B528 || number & 0xFFFF_FFF0 == 0x184D_2A50 else {
                    throw SessionError.decodingFailed.with("corrupt zstd data: not a zstd frame")
                }
                atFrameStart = false
                magicCount = 0
                _ = try feed(UnsafeRawBufferPointer(magic), into: output)
            }
            let used = try feed(rest, into: output)
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(used))
        }
    }

    /// Hands `input` to the library until it is used up or a frame ends in it; returns the
    /// bytes used. A frame's end leaves the decoder at the start of the next one.
    private func feed(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError) -> Int {
        guard let stream, let base = input.baseAddress, input.count > 0 else { return 0 }
        var inBuffer = ZSTD_inBuffer(src: base, size: input.count, pos: 0)
        while true {
            var outBuffer = ZSTD_outBuffer(dst: buffer.base, size: buffer.count, pos: 0)
            let hint = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
            if ZSTD_isError(hint) != 0 {
                throw SessionError.decodingFailed.with("corrupt zstd data: \(String(cString: ZSTD_getErrorName(hint)))")
            }
            pending = hint
            if outBuffer.pos > 0 { try output(buffer.prefix(outBuffer.pos)) }
            if hint == 0 {
                // The frame is complete and flushed (even when that filled the buffer exactly):
                // what follows is the next frame's magic. Calling again would read its header
                // unchecked.
                atFrameStart = true
                return inBuffer.pos
            }
            // Done with this piece once all input is in and nothing is left to flush (the
            // output buffer was not filled).
            if inBuffer.pos == inBuffer.size && outBuffer.pos < outBuffer.size { return inBuffer.pos }
        }
    }

    func finish(into output: DecodedOutput) throws(SessionError) {
        if sawInput && (pending != 0 || magicCount > 0) { throw SessionError.decodingFailed.with("truncated zstd data") }
    }
}
