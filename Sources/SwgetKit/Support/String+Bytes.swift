/// Byte searches over a string's UTF-8 storage in place.
///
/// `utf8.contains(_:)`, `utf8.firstIndex(of:)` and `utf8.lastIndex(of:)` walk the UTF-8 view's
/// index type one byte at a time, about 30 instructions a byte; a download's URL and names went
/// through a dozen of them (callgrind, a batch of 1,000 small files). These run over a buffer.
/// The indices they return are the view's, so `text[..<index]` slices as before.
extension StringProtocol {
    /// Whether the UTF-8 encoding contains `byte`.
    package func containsByte(_ byte: UInt8) -> Bool {
        withByteBuffer { $0.contains(byte) }
    }

    /// Whether a byte of the UTF-8 encoding satisfies `predicate`.
    package func containsByte(where predicate: (UInt8) -> Bool) -> Bool {
        withByteBuffer { $0.contains(where: predicate) }
    }

    /// The index of the first `byte` of the UTF-8 encoding, or nil.
    package func firstIndex(ofByte byte: UInt8) -> Index? {
        withByteBuffer { $0.firstIndex(of: byte) }.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// The index of the last `byte` of the UTF-8 encoding, or nil.
    package func lastIndex(ofByte byte: UInt8) -> Index? {
        withByteBuffer { $0.lastIndex(of: byte) }.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// The UTF-8 bytes as a buffer: in place when contiguous (native strings and their
    /// substrings), else copied once.
    private func withByteBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(utf8).withUnsafeBufferPointer(body)
    }
}
