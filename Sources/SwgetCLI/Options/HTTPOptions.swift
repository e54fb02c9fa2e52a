import ArgumentParser
import SwgetKit

/// HTTP.
struct HTTPOptions: ParsableArguments {
    @Option(name: [.customShort("U"), .customLong("user-agent")],
            help: ArgumentHelp("Send AGENT as the User-Agent header.", valueName: "AGENT"))
    var userAgent: String?

    @Option(name: [.customShort("H"), .customLong("header")],
            help: ArgumentHelp("Send an extra header 'Name: value' (repeatable).", valueName: "HEADER"))
    var headers: [String] = []

    @Option(name: [.customLong("max-redirect"), .customLong("max-redirs")],
            help: ArgumentHelp("Follow at most N redirects (default 20).", valueName: "N"))
    var maxRedirect: Int?

    @Flag(name: .customLong("compressed"),
          help: "Ask for a compressed transfer (gzip, deflate, br, zstd) and save the decoded body.")
    var compressed = false

    @Flag(name: [.customLong("no-decompress"), .customLong("raw")],
          help: "Keep a compressed body exactly as sent (no Content-Encoding decoding).")
    var noDecompress = false

    @Flag(name: [.customLong("gunzip"), .customLong("decode")],
          help: "Store a .gz file decompressed, without its .gz suffix (data.csv.gz -> data.csv).")
    var gunzip = false
}

extension HTTPOptions {
    func validate() throws {
        for header in headers where Self.parseHeader(header) == nil {
            throw ValidationError("invalid header '\(header)': expected 'Name: value'")
        }
        if let maxRedirect, maxRedirect < 0 { throw ValidationError("--max-redirect must be 0 or more") }
        if compressed && noDecompress {
            throw ValidationError("--compressed and --no-decompress cannot be combined")
        }
    }

    func apply(to configuration: inout SessionConfiguration) {
        if let userAgent { configuration.defaultHeaders.set("User-Agent", userAgent) }
        if let maxRedirect { configuration.maxRedirects = maxRedirect }
        if compressed { configuration.defaultHeaders.set("Accept-Encoding", ContentCoding.acceptAll) }
        configuration.decodesContentEncoding = !noDecompress
    }

    /// The `-H` headers, added to every request.
    /// The `-H` headers every request carries, in order (malformed ones were refused by
    /// validation).
    var requestHeaders: [(name: String, value: String)] {
        headers.compactMap { Self.parseHeader($0).map { (name: $0.0, value: $0.1) } }
    }

    /// `Name: value`, with a token name and a value without CR, LF or NUL.
    static func parseHeader(_ header: String) -> (String, String)? {
        guard let colon = header.firstIndex(of: ":") else { return nil }
        let name = header[..<colon].trimmingSpaces
        let value = header[header.index(after: colon)...].trimmingSpaces
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }),
              !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else { return nil }
        return (name, value)
    }
}
