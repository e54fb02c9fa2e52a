import CZlib

/// gzip (RFC 1952) and deflate (RFC 1950 zlib-wrapped, or raw RFC 1951 as some servers send it)
/// through the system zlib.
///
/// gzip: several members in a row decode as one stream (what `gzip -c a b` writes); bytes after
/// the last member that do not start another one are ignored, as gzip(1) does. deflate: the
/// wrapper is recognised from the first two bytes; data after the end of the stream is an error.
/// Both check their trailer (CRC-32 and length, or Adler-32); a mismatch is an error.
final class ZlibDecoder: ContentDecoder {
    enum Format { case gzip, deflate }

    private enum State {
        /// deflate only: waiting for two bytes to tell zlib-wrapped from raw.
        case sniffing([UInt8])
        case inflating
        /// gzip only: a member ended; the bytes seen so far of what may be the next header.
        case betweenMembers([UInt8])
        /// The stream ended: whatever follows is ignored (gzip's trailing garbage) or refused (deflate).
        case ignoringRest
    }

    private let format: Format
    private var stream = z_stream()
    private var initialized = false
    private var state: State
    private var sawInput = false
    private let buffer = DecoderBuffer()

    init(_ format: Format) {
        self.format = format
        state = format == .gzip ? .inflating : .sniffing([])
    }

    deinit {
        if initialized { inflateEnd(&stream) }
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError) {
        guard input.count > 0 else { return }
        sawInput = true
        var rest = input
        while !rest.isEmpty {
            switch state {
            case .sniffing(var head):
                let take = min(2 - head.count, rest.count)
                head += rest.prefix(take)
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(take))
                guard head.count == 2 else {
                    state = .sniffing(head)
                    return
                }
                let wrapped = (head[0] & 0x0f) == 8 && (head[0] >> 4) <= 7 && (UInt16(head[0]) << 8 | UInt16(head[1])) % 31 == 0
                try start(windowBits: wrapped ? 15 : -15)
                state = .inflating
                // Two bytes can be a whole (empty) raw stream; what follows is then judged below.
                try inflate(bytes: head, into: output)
            case .inflating:
                if !initialized { try start(windowBits: 15 + 16) }
                rest = try inflate(rest, into: output)
            case .betweenMembers(var magic):
                let expected: [UInt8] = [0x1f, 0x8b]
                let take = min(2 - magic.count, rest.count)
                magic += rest.prefix(take)
                guard magic == Array(expected.prefix(magic.count)) else {
                    state = .ignoringRest
                    return
                }
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(take))
                guard magic.count == 2 else {
                    state = .betweenMembers(magic)
                    return
                }
                inflateReset(&stream)
                state = .inflating
                try inflate(bytes: magic, into: output)
            case .ignoringRest:
                if format == .deflate { throw SessionError.decodingFailed.with("data after the end of the deflate stream") }
                return
            }
        }
    }

    func finish(into output: DecodedOutput) throws(SessionError) {
        guard sawInput else { return }
        switch state {
        case .sniffing, .inflating:
            throw SessionError.decodingFailed.with("truncated \(format) data")
        case .betweenMembers, .ignoringRest:
            return
        }
    }

    private func start(windowBits: Int32) throws(SessionError) {
        let status = inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw SessionError.decodingFailed.with("zlib could not start (\(status))") }
        initialized = true
    }

    /// Inflates the two bytes held back while sniffing a header. If they end a stream (an empty
    /// raw deflate stream is two bytes), `decode`'s loop judges whatever follows.
    private func inflate(bytes: [UInt8], into output: DecodedOutput) throws(SessionError) {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { scratch.deallocate() }
        scratch.copyBytes(from: bytes)
        _ = try inflate(UnsafeRawBufferPointer(scratch), into: output)
    }

    /// Inflates `input` until it is consumed or the stream ends; returns the bytes after the end.
    private func inflate(_ input: UnsafeRawBufferPointer, into output: DecodedOutput) throws(SessionError) -> UnsafeRawBufferPointer {
        guard let base = input.baseAddress else { return input }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        while true {
            stream.next_out = buffer.base
            stream.avail_out = uInt(buffer.count)
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            let produced = buffer.count - Int(stream.avail_out)
            if produced > 0 { try output(buffer.prefix(produced)) }
            switch status {
            case Z_STREAM_END:
                let consumed = input.count - Int(stream.avail_in)
                state = format == .gzip ? .betweenMembers([]) : .ignoringRest
                return UnsafeRawBufferPointer(rebasing: input[consumed...])
            case Z_OK, Z_BUF_ERROR:
                // Done with this piece once all input is in and the output buffer was not filled.
                if stream.avail_in == 0 && stream.avail_out > 0 { return UnsafeRawBufferPointer(start: nil, count: 0) }
                if status == Z_BUF_ERROR && stream.avail_in > 0 && produced == 0 {
                    throw SessionError.decodingFailed.with("\(format) stream stalled")
                }
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw SessionError.decodingFailed.with("corrupt \(format) data: \(reason)")
            }
        }
    }
}
