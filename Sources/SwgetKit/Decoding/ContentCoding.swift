/// A content coding swget can decode (RFC 9110 §8.4.1), and the rules for reading
/// `Content-Encoding`.
public enum ContentCoding: String, Sendable, Hashable, Codable, CaseIterable {
    case gzip, deflate, br, zstd

    /// The `Accept-Encoding` value that asks for every coding swget decodes (`--compressed`).
    public static let acceptAll = "gzip, deflate, br, zstd"

    /// Parses a `Content-Encoding` value into the codings in the order the server applied them
    /// (`deflate, gzip` means deflate first, so gzip is undone first). `identity` is dropped and
    /// `x-gzip` is gzip. Returns nil when any coding is unknown: such a body cannot be decoded.
    public static func parse(_ value: String) -> [ContentCoding]? {
        var codings: [ContentCoding] = []
        for name in names(value) {
            guard let coding = ContentCoding(rawValue: name) else { return nil }
            codings.append(coding)
        }
        return codings
    }

    /// The coding names of a `Content-Encoding` value, known or not: lowercased, `identity`
    /// dropped, `x-gzip` read as `gzip`.
    static func names(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { item in
            let name = item.trimmingOWS.lowercased()
            switch name {
            case "", "identity": return nil
            case "x-gzip": return "gzip"
            default: return name
            }
        }
    }
}
