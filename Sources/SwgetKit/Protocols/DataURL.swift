#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `data:` URL (RFC 2397) read into its media type and bytes (pure):
/// `data:[<mediatype>][;base64],<data>`.
///
/// - The media type and its parameters are percent-decoded and kept as written (lower-cased
///   type); an empty one is `text/plain;charset=US-ASCII` (§2), and a bare `;charset=...` gets
///   `text/plain`. The `base64` marker is case-insensitive.
/// - The data is percent-decoded; with `base64` the result is then decoded, ignoring white space
///   and tolerating missing `=` padding. Invalid percent escapes or base64 fail.
/// - Bounded: URLs longer than ``maxLength`` bytes are refused.
struct DataURL: Equatable, Sendable {
    /// The longest URL accepted, in bytes.
    static let maxLength = 32 << 20

    /// The `Content-Type` value ("text/plain;charset=US-ASCII", "image/png").
    let contentType: String
    /// The decoded payload.
    let bytes: [UInt8]

    /// Why a `data:` URL cannot be read.
    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case notDataURL, missingComma, badPercentEncoding, badBase64, tooLong

        var description: String {
            switch self {
            case .notDataURL: "not a data: URL"
            case .missingComma: "the data: URL has no ',' before its data"
            case .badPercentEncoding: "bad percent-encoding in the data: URL"
            case .badBase64: "bad base64 in the data: URL"
            case .tooLong: "the data: URL is too long"
            }
        }
    }

    /// Reads `text`, the whole URL ("data:text/plain,hello").
    init(_ text: String) throws(Failure) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maxLength else { throw .tooLong }
        guard bytes.count >= 5, String(decoding: bytes.prefix(5), as: UTF8.self).lowercased() == "data:" else { throw .notDataURL }
        let rest = bytes.dropFirst(5)
        guard let comma = rest.firstIndex(of: 0x2C) else { throw .missingComma }
        guard let header = String(validating: try Self.percentDecoded(rest[rest.startIndex..<comma]), as: UTF8.self) else {
            throw .badPercentEncoding
        }
        var parameters = header.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingOWS }
        var isBase64 = false
        if parameters.count > 1, parameters.last?.lowercased() == "base64" {
            isBase64 = true
            parameters.removeLast()
        }
        var type = parameters.first ?? ""
        let extra = parameters.dropFirst().filter { !$0.isEmpty }
        if type.isEmpty {
            type = "text/plain"
            if !extra.contains(where: { $0.lowercased().hasPrefix("charset=") }) {
                contentType = (["text/plain", "charset=US-ASCII"] + extra).joined(separator: ";")
                self.bytes = try Self.payload(rest[rest.index(after: comma)...], base64: isBase64)
                return
            }
        }
        contentType = ([type.lowercased()] + extra).joined(separator: ";")
        self.bytes = try Self.payload(rest[rest.index(after: comma)...], base64: isBase64)
    }

    private static func payload(_ encoded: ArraySlice<UInt8>, base64: Bool) throws(Failure) -> [UInt8] {
        let decoded = try percentDecoded(encoded)
        guard base64 else { return decoded }
        var text = decoded.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        while text.count % 4 != 0 { text.append(0x3D) }
        guard let data = Data(base64Encoded: Data(text)) else { throw .badBase64 }
        return Array(data)
    }

    /// `bytes` with each %XX replaced by its byte.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            guard byte == 0x25 else {
                out.append(byte)
                i += 1
                continue
            }
            guard i + 2 < bytes.endIndex, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) else {
                throw .badPercentEncoding
            }
            out.append(high << 4 | low)
            i += 3
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
