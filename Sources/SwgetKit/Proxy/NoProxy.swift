import Glibc

/// The hosts reached directly although a proxy is configured: curl's `no_proxy` / `--noproxy`
/// list as a value (the exceptions list of the proxy dictionary in Apple's URL Loading System).
///
/// Syntax: entries separated by commas and/or white space; empty entries are skipped.
/// - `*` matches every host.
/// - A host name matches itself and its subdomains, with or without a leading dot (`.example.com`
///   and `example.com` both match `example.com` and `a.example.com`, never `badexample.com`);
///   a leading `*.` is read as a leading dot. Case-insensitive; one trailing dot is ignored on both
///   sides. Names are compared as written: an internationalised name must be given in the
///   punycode form the URL carries.
/// - An IPv4 or IPv6 literal (IPv6 with or without brackets) matches that address; a CIDR range
///   (`10.0.0.0/8`, `fd00::/8`, `[fd00::]/8`) matches every address inside it. An address entry
///   never matches a host name and a name entry never matches an address (curl's rule: no DNS).
/// - `:port` after a name, an IPv4 entry or a bracketed IPv6 entry limits it to that port
///   (`example.com:8080`, `10.0.0.0/8:443`, `[::1]:8080`). Unbracketed IPv6 takes no port.
///
/// Malformed entries are errors (exit 2 in the CLI): a bad CIDR prefix, a bad port, an unclosed
/// bracket, a bracket holding no address, a control character. Anything else that is not an
/// address is kept as a (possibly never matching) name, as curl does, so a list that works with
/// curl never stops swget.
public struct NoProxy: Sendable, Equatable, CustomStringConvertible {
    /// One parsed entry of the list.
    public enum Entry: Sendable, Equatable {
        /// `*`: every host goes direct.
        case everything
        /// A host name (lower case, no leading or trailing dot) and its subdomains.
        case domain(String, port: Int?)
        /// An address range: `address` is 4 or 16 bytes, the bits past `prefixLength` are zero.
        case network(address: [UInt8], prefixLength: Int, port: Int?)
    }

    /// The entries in list order.
    public let entries: [Entry]

    /// Longest list accepted, in UTF-8 bytes (a hostile environment must not cost memory).
    public static let maximumListLength = 64 * 1024
    /// Longest single entry accepted, in UTF-8 bytes.
    public static let maximumEntryLength = 1024

    /// The empty list: nothing bypasses the proxy.
    public init() { entries = [] }

    /// A list made of already parsed entries.
    public init(entries: [Entry]) { self.entries = entries }

    /// Parses a `no_proxy` value. Throws `.invalidNoProxyEntry` naming the first bad entry.
    public init(parsing list: String) throws(ProxyConfigurationError) {
        guard list.utf8.count <= Self.maximumListLength else {
            throw .invalidNoProxyEntry(String(list.prefix(40)) + "…", reason: "the list is longer than \(Self.maximumListLength) bytes")
        }
        // Split on scalars, not Characters: a separator followed by a combining mark is one
        // Character (",\u{309}"), so the comma would not separate (found by FuzzProxy).
        let separators: Set<Unicode.Scalar> = [",", " ", "\t", "\n", "\r"]
        var parsed: [Entry] = []
        for token in list.unicodeScalars.split(whereSeparator: { separators.contains($0) }) {
            parsed.append(try Self.parseEntry(Substring(token)))
        }
        entries = parsed
    }

    /// True when the list has no entry.
    public var isEmpty: Bool { entries.isEmpty }

    /// True when a request to `host` on `port` must not use the proxy. `host` may carry IPv6
    /// brackets, a zone (`%eth0`), upper case or a trailing dot; `port` is the effective port
    /// (the scheme's default when the URL names none).
    public func matches(host: String, port: Int) -> Bool {
        let name = Self.normalizedHost(host)
        let address = IPLiteral.parse(name)
        for entry in entries {
            switch entry {
            case .everything:
                return true
            case .domain(let domain, let entryPort):
                guard address == nil, entryPort == nil || entryPort == port else { continue }
                if name == domain || name.hasSuffix("." + domain) { return true }
            case .network(let network, let prefixLength, let entryPort):
                guard let address, entryPort == nil || entryPort == port else { continue }
                if IPLiteral.contains(network: network, prefixLength: prefixLength, address: address) { return true }
            }
        }
        return false
    }

    /// The list in its canonical text form (parses back to an equal value).
    public var description: String {
        entries.map { entry in
            switch entry {
            case .everything:
                return "*"
            case .domain(let name, let port):
                let text = Self.canonicalName(name)
                return port.map { "\(text):\($0)" } ?? text
            case .network(let address, let prefixLength, let port):
                let text = IPLiteral.format(address)
                let full = prefixLength == address.count * 8 ? text : "\(text)/\(prefixLength)"
                guard let port else { return full }
                return address.count == 16 ? "[\(full)]:\(port)" : "\(full):\(port)"
            }
        }.joined(separator: ",")
    }

    /// A name entry as text that parses back to the same name. Parsing drops one leading `.` or
    /// `*.` and one trailing `.`, and reads `*`, `[…` and IP literals otherwise, so a name that
    /// still has such a form after parsing (`127..` is the name `127.`; `.*.x` is `*.x`) gets a
    /// dot put back where parsing will remove it. Found by the FuzzProxy fuzzer.
    static func canonicalName(_ name: String) -> String {
        var text = name
        if text == "*" || text.hasPrefix(".") || text.hasPrefix("*.") || text.hasPrefix("[") || IPLiteral.parse(text) != nil {
            text = "." + text
        }
        if text.hasSuffix(".") { text += "." }
        return text
    }

    // MARK: parsing

    private static func parseEntry(_ token: Substring) throws(ProxyConfigurationError) -> Entry {
        let text = String(token)
        func bad(_ reason: String) -> ProxyConfigurationError {
            .invalidNoProxyEntry(String(text.prefix(80)), reason: reason)
        }
        guard text.utf8.count <= maximumEntryLength else { throw bad("longer than \(maximumEntryLength) bytes") }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw bad("contains a control character")
        }
        if text == "*" { return .everything }
        if text.hasPrefix("[") {
            return try parseBracketed(text, bad)
        }
        let colons = text.utf8.filter { $0 == UInt8(ascii: ":") }.count
        if colons >= 2 {
            // Unbracketed IPv6, optionally with a prefix; a port would be ambiguous.
            let (addressText, prefixText) = splitPrefix(Substring(text))
            guard let address = IPLiteral.parse(String(addressText)), address.count == 16 else {
                throw bad("not an IPv6 address (put an IPv6 address with a port in brackets: [::1]:8080)")
            }
            return try network(address, prefixText: prefixText, port: nil, bad)
        }
        var head = Substring(text)
        var port: Int?
        if colons == 1, let colon = text.firstIndex(of: ":") {
            head = text[..<colon]
            port = try parsePort(text[text.index(after: colon)...], bad)
        }
        if head.contains("/") {
            let (addressText, prefixText) = splitPrefix(head)
            guard let address = IPLiteral.parse(String(addressText)) else {
                throw bad("a CIDR range needs an IP address before '/'")
            }
            return try network(address, prefixText: prefixText, port: port, bad)
        }
        if let address = IPLiteral.parse(String(head)) {
            return .network(address: address, prefixLength: address.count * 8, port: port)
        }
        var name = head.lowercased()[...]
        if name.hasPrefix("*.") { name = name.dropFirst(2) } else if name.hasPrefix(".") { name = name.dropFirst() }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { throw bad("no host name") }
        return .domain(String(name), port: port)
    }

    /// `[addr]`, `[addr]:port`, `[addr/len]`, `[addr/len]:port`, `[addr]/len`, `[addr]/len:port`.
    private static func parseBracketed(_ text: String, _ bad: (String) -> ProxyConfigurationError) throws(ProxyConfigurationError) -> Entry {
        guard let close = text.firstIndex(of: "]") else { throw bad("'[' without ']'") }
        let inside = text[text.index(after: text.startIndex)..<close]
        var (addressText, prefixText) = splitPrefix(inside)
        var rest = text[text.index(after: close)...]
        if rest.hasPrefix("/") {
            guard prefixText == nil else { throw bad("two CIDR prefixes") }
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            prefixText = rest[rest.index(after: rest.startIndex)..<end]
            rest = rest[end...]
        }
        var port: Int?
        if rest.hasPrefix(":") {
            port = try parsePort(rest.dropFirst(), bad)
        } else if !rest.isEmpty {
            throw bad("unexpected text after ']'")
        }
        guard let address = IPLiteral.parse(String(addressText)) else { throw bad("no IP address inside the brackets") }
        return try network(address, prefixText: prefixText, port: port, bad)
    }

    private static func splitPrefix(_ text: Substring) -> (Substring, Substring?) {
        guard let slash = text.firstIndex(of: "/") else { return (text, nil) }
        return (text[..<slash], text[text.index(after: slash)...])
    }

    private static func network(_ address: [UInt8], prefixText: Substring?, port: Int?,
                                _ bad: (String) -> ProxyConfigurationError) throws(ProxyConfigurationError) -> Entry {
        let bits = address.count * 8
        guard let prefixText else { return .network(address: address, prefixLength: bits, port: port) }
        guard let length = decimal(prefixText, maximumDigits: 3), length <= bits else {
            throw bad("bad CIDR prefix '/\(prefixText.prefix(10))' (0 to \(bits))")
        }
        return .network(address: IPLiteral.masked(address, prefixLength: length), prefixLength: length, port: port)
    }

    private static func parsePort(_ text: Substring, _ bad: (String) -> ProxyConfigurationError) throws(ProxyConfigurationError) -> Int {
        guard let port = decimal(text, maximumDigits: 5), (1...65535).contains(port) else {
            throw bad("bad port '\(text.prefix(10))' (1 to 65535)")
        }
        return port
    }

    /// A non-negative decimal made of ASCII digits only (no sign, no spaces).
    static func decimal(_ text: Substring, maximumDigits: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maximumDigits,
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    /// Lower case, no IPv6 brackets, no zone, no trailing dot.
    static func normalizedHost(_ host: String) -> String {
        var name = host.lowercased()[...]
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        if name.contains(":"), let percent = name.firstIndex(of: "%") { name = name[..<percent] }
        if name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }
}

/// IP address literals as bytes (4 for IPv4, 16 for IPv6), through the C library's `inet_pton`,
/// which accepts only the strict forms (dotted quad without leading zeros, RFC 4291 text).
enum IPLiteral {
    /// The address bytes, or nil when `text` is not an IP literal (no brackets, no zone).
    static func parse(_ text: String) -> [UInt8]? {
        // inet_pton reads a C string: refuse anything that is not address text (NUL included).
        guard !text.isEmpty, text.utf8.count <= 45, text.utf8.allSatisfy({ byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F")) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The text form of 4 or 16 address bytes (`inet_ntop`).
    static func format(_ bytes: [UInt8]) -> String {
        var out = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            out.withUnsafeMutableBufferPointer { inet_ntop(family, raw.baseAddress, $0.baseAddress, socklen_t($0.count)) != nil }
        }
        guard ok else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `address` with every bit past `prefixLength` cleared.
    static func masked(_ address: [UInt8], prefixLength: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let kept = min(max(prefixLength - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(UInt8(0xFF) >> kept)
        }
    }

    /// True when `address` lies in `network/prefixLength` (same family only).
    static func contains(network: [UInt8], prefixLength: Int, address: [UInt8]) -> Bool {
        address.count == network.count && masked(address, prefixLength: prefixLength) == network
    }
}
