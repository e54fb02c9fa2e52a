/// Byte searches over a string's UTF-8 storage in place.
///
/// `utf8.contains(_:)`, `utf8.firstIndex(of:)` and `utf8.lastIndex(of:)` walk the UTF-8 view's
/// index type one byte at a time, about 30 instructions a byte; a download's URL and names went
/// through a dozen of them (callgrind, a batch of 1,000 small files). These run over a buffer
/// (`withUTF8`, which also serves small strings, stored inline, from a stack copy; the view's
/// `withContiguousStorageIfAvailable` gives up on those). The indices they return are the
/// view's, so `text[..<index]` slices as before.
///
/// The scans are plain loops (``ByteScan``): the standard library's generic `firstIndex(of:)` and
/// `lastIndex(of:)` allocate on every call in debug builds, where the allocation gate counts.
package protocol UTF8Bytes: StringProtocol {
    /// The UTF-8 bytes as a buffer, for reading.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R
}

extension String: UTF8Bytes {
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var copy = self  // shares the storage; withUTF8 only copies a string that is not contiguous UTF-8
        return copy.withUTF8(body)
    }
}

extension Substring: UTF8Bytes {
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var copy = self
        return copy.withUTF8(body)
    }
}

extension UTF8Bytes {
    /// Whether the UTF-8 encoding contains `byte`.
    package func containsByte(_ byte: UInt8) -> Bool {
        withBytes { ByteScan.first(in: $0, where: { $0 == byte }) != nil }
    }

    /// Whether a byte of the UTF-8 encoding satisfies `predicate`.
    package func containsByte(where predicate: (UInt8) -> Bool) -> Bool {
        withBytes { ByteScan.first(in: $0, where: predicate) != nil }
    }

    /// The index of the first `byte` of the UTF-8 encoding, or nil.
    package func firstIndex(ofByte byte: UInt8) -> Index? {
        guard let offset = withBytes({ ByteScan.first(byte, in: $0) }) else { return nil }
        return utf8.index(utf8.startIndex, offsetBy: offset)
    }

    /// The index of the last `byte` of the UTF-8 encoding, or nil.
    package func lastIndex(ofByte byte: UInt8) -> Index? {
        guard let offset = withBytes({ ByteScan.last(byte, in: $0) }) else { return nil }
        return utf8.index(utf8.startIndex, offsetBy: offset)
    }
}

/// Byte searches in a buffer, as plain loops.
package enum ByteScan {
    /// The offset of the first `byte` in `bytes[start..<end]` (end: the buffer's end), or nil.
    package static func first(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, to end: Int? = nil) -> Int? {
        first(in: bytes, from: start, to: end) { $0 == byte }
    }

    /// The offset of the first byte of `bytes[start..<end]` that satisfies `predicate`, or nil.
    package static func first(in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, to end: Int? = nil,
                              where predicate: (UInt8) -> Bool) -> Int? {
        var index = start
        let end = end ?? bytes.count
        while index < end {
            if predicate(bytes[index]) { return index }
            index += 1
        }
        return nil
    }

    /// The offset of the last `byte` in `bytes`, or nil.
    package static func last(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = bytes.count
        while index > 0 {
            index -= 1
            if bytes[index] == byte { return index }
        }
        return nil
    }
}

extension String {
    /// ASCII case-insensitive comparison (header names, schemes, tokens), without allocating;
    /// lengths first: every header lookup of every request comes here, and most names it is
    /// compared with differ in length.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && withBytes { x in other.withBytes { y in asciiCaseInsensitiveEquals(x, y) } }
    }
}

/// `x` equals `y` with ASCII letters compared without case (also a name's suffix in place,
/// ``FilenameSanitizer/plainName(_:)``). Over the bytes: a `zip` of two UTF-8 views was not
/// optimised into a loop.
func asciiCaseInsensitiveEquals(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
    guard x.count == y.count else { return false }
    for i in 0..<x.count where x[i] != y[i] {
        let lower = x[i] | 0x20
        guard lower == y[i] | 0x20, lower >= 0x61, lower <= 0x7A else { return false }
    }
    return true
}
