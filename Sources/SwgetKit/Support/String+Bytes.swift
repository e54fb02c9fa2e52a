/// Byte searches over a string's UTF-8 storage in place.
///
/// `utf8.contains(_:)`, `utf8.firstIndex(of:)` and `utf8.lastIndex(of:)` walk the UTF-8 view's
/// index type one byte at a time, about 30 instructions a byte; a download's URL and names went
/// through a dozen of them (callgrind, a batch of 1,000 small files). These run over a buffer
/// (`withUTF8`, which also serves small strings, stored inline, from a stack copy; the view's
/// `withContiguousStorageIfAvailable` gives up on those). The indices they return are the
/// view's, so `text[..<index]` slices as before.
extension String {
    /// Whether the UTF-8 encoding contains `byte`.
    package func containsByte(_ byte: UInt8) -> Bool {
        withBytes { $0.contains(byte) }
    }

    /// Whether a byte of the UTF-8 encoding satisfies `predicate`.
    package func containsByte(where predicate: (UInt8) -> Bool) -> Bool {
        withBytes { $0.contains(where: predicate) }
    }

    /// The index of the first `byte` of the UTF-8 encoding, or nil.
    package func firstIndex(ofByte byte: UInt8) -> Index? {
        withBytes { $0.firstIndex(of: byte) }.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// The index of the last `byte` of the UTF-8 encoding, or nil.
    package func lastIndex(ofByte byte: UInt8) -> Index? {
        withBytes { $0.lastIndex(of: byte) }.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// The UTF-8 bytes as a buffer, for reading.
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var copy = self  // shares the storage; withUTF8 only copies a string that is not contiguous UTF-8
        return copy.withUTF8(body)
    }
}

extension Substring {
    /// See ``Swift/String/containsByte(_:)``.
    package func containsByte(_ byte: UInt8) -> Bool {
        withBytes { $0.contains(byte) }
    }

    /// See ``Swift/String/containsByte(where:)``.
    package func containsByte(where predicate: (UInt8) -> Bool) -> Bool {
        withBytes { $0.contains(where: predicate) }
    }

    /// See ``Swift/String/firstIndex(ofByte:)``.
    package func firstIndex(ofByte byte: UInt8) -> Index? {
        withBytes { $0.firstIndex(of: byte) }.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// See ``Swift/String/lastIndex(ofByte:)``.
    package func lastIndex(ofByte byte: UInt8) -> Index? {
        withBytes { $0.lastIndex(of: byte) }.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// See ``Swift/String/withBytes(_:)``.
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var copy = self
        return copy.withUTF8(body)
    }
}
