import CBrotliEncoder
import CZlib
import CZstd

/// In-process encoders for test fixtures: gzip, zlib-wrapped and raw deflate (zlib), br (the
/// brotli encoder) and zstd, each compressing a whole buffer in one call. A library failure is a
/// broken test environment, not a test result, so it stops the run.
public enum Compression {
    /// A gzip member (RFC 1952): header, deflate data, CRC-32 and length.
    public static func gzip(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        deflate(bytes, level: level, windowBits: 15 + 16)
    }

    /// A zlib stream (RFC 1950): what `Content-Encoding: deflate` means.
    public static func zlib(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        deflate(bytes, level: level, windowBits: 15)
    }

    /// Raw deflate data (RFC 1951) without a wrapper, as some servers send for `deflate`.
    public static func rawDeflate(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        deflate(bytes, level: level, windowBits: -15)
    }

    /// A brotli stream (RFC 7932). The default quality is brotli's middle, not its slow maximum
    /// (11), so megabyte fixtures stay quick.
    public static func brotli(_ bytes: [UInt8], quality: Int32 = 5) -> [UInt8] {
        var size = BrotliEncoderMaxCompressedSize(bytes.count)
        guard size > 0 else { preconditionFailure("brotli: input of \(bytes.count) bytes too large") }
        var encoded = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeBufferPointer { input in
            encoded.withUnsafeMutableBufferPointer { output in
                BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                                      input.count, input.baseAddress, &size, output.baseAddress)
            }
        }
        guard ok == BROTLI_TRUE else { preconditionFailure("brotli: BrotliEncoderCompress failed") }
        encoded.removeSubrange(size...)
        return encoded
    }

    /// One zstd frame (RFC 8878) with the content size in its header. `checksum` adds the
    /// optional XXH64 content checksum, which `ZSTD_compress` leaves out.
    public static func zstd(_ bytes: [UInt8], level: Int32 = 3, checksum: Bool = false) -> [UInt8] {
        guard let context = ZSTD_createCCtx() else { preconditionFailure("zstd: ZSTD_createCCtx failed") }
        defer { ZSTD_freeCCtx(context) }
        for (parameter, value) in [(ZSTD_c_compressionLevel, level), (ZSTD_c_checksumFlag, checksum ? 1 : 0)] {
            let status = ZSTD_CCtx_setParameter(context, parameter, value)
            guard ZSTD_isError(status) == 0 else { preconditionFailure("zstd: \(String(cString: ZSTD_getErrorName(status)))") }
        }
        var encoded = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let size = bytes.withUnsafeBytes { input in
            encoded.withUnsafeMutableBytes { output in
                ZSTD_compress2(context, output.baseAddress, output.count, input.baseAddress, input.count)
            }
        }
        guard ZSTD_isError(size) == 0 else {
            preconditionFailure("zstd: \(String(cString: ZSTD_getErrorName(size)))")
        }
        encoded.removeSubrange(size...)
        return encoded
    }

    /// zlib's CRC-32 (gzip's checksum), for tests that build or damage gzip headers by hand.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        let crc = bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// deflate with zlib; `windowBits` picks the wrapper (see `deflateInit2`).
    private static func deflate(_ bytes: [UInt8], level: Int32, windowBits: Int32) -> [UInt8] {
        var stream = z_stream()
        let status = deflateInit2_(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { preconditionFailure("zlib: deflateInit2 failed (\(status))") }
        defer { deflateEnd(&stream) }
        var encoded = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let result = bytes.withUnsafeBufferPointer { input in
            encoded.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        // deflateBound is an upper bound, so a single Z_FINISH call completes the stream.
        guard result == Z_STREAM_END else { preconditionFailure("zlib: deflate did not finish (\(result))") }
        encoded.removeSubrange(Int(stream.total_out)...)
        return encoded
    }
}
