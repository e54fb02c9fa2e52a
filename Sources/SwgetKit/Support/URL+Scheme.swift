#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension URL {
    /// Whether the URL's scheme is `scheme` (given in lowercase ASCII letters), compared without
    /// case, read from the URL's string in place.
    ///
    /// `URL.scheme` makes a new String on every call, about 420 instructions; a download asked
    /// it half a dozen times (callgrind, a batch of 1,000 small files). `absoluteString` is the
    /// string the URL was made from (resolved against its base, if it has one), whose scheme is
    /// everything before the first `:`.
    package func hasScheme(_ scheme: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
        return absoluteString.withBytes { bytes in
            guard bytes.count > expected.count, bytes[expected.count] == UInt8(ascii: ":") else { return false }
            for index in 0..<expected.count where bytes[index] | 0x20 != expected[index] { return false }
            return true
        }
    }
}
