/// A second formulation of the `no_proxy` rule (curl's, as ``SwgetKit/NoProxy`` documents it),
/// written differently on purpose: names are compared as arrays of labels, IPv4 addresses as
/// 32-bit integers under a mask. It covers host names and IPv4 (entries with an optional
/// `/prefix` and `:port`, `*`, a leading `.` or `*.`); for anything else (IPv6, brackets,
/// characters outside `[A-Za-z0-9.*:/-]`) it has no opinion and returns nil.
enum NoProxyReference {
    private enum Entry {
        case everything
        case name(labels: [Substring], port: Int?)
        case network(UInt32, mask: UInt32, port: Int?)
    }

    /// Whether `host` on `port` goes direct under `list`; nil outside the covered subset.
    static func decides(list: String, host: String, port: Int) -> Bool? {
        var entries: [Entry] = []
        for token in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            guard let entry = entry(token) else { return nil }
            entries.append(entry)
        }
        let lowered = host.lowercased()
        guard !lowered.isEmpty, lowered.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == 0x2E || $0 == 0x2D }) else { return nil }
        let hostText = lowered.hasSuffix(".") ? lowered.dropLast() : lowered[...]
        let address = ipv4(hostText)
        let labels = hostText.split(separator: ".", omittingEmptySubsequences: false)
        for entry in entries {
            switch entry {
            case .everything:
                return true
            case .name(let wanted, let entryPort):
                guard address == nil, entryPort == nil || entryPort == port, labels.count >= wanted.count else { continue }
                if Array(labels.suffix(wanted.count)) == wanted { return true }
            case .network(let network, let mask, let entryPort):
                guard let address, entryPort == nil || entryPort == port else { continue }
                if address & mask == network & mask { return true }
            }
        }
        return false
    }

    private static func entry(_ token: Substring) -> Entry? {
        if token == "*" { return .everything }
        guard token.utf8.allSatisfy({ isLetterOrDigit($0) || [0x2E, 0x2A, 0x3A, 0x2F, 0x2D].contains($0) }) else { return nil }
        let pieces = token.split(separator: ":", omittingEmptySubsequences: false)
        guard pieces.count <= 2 else { return nil }
        var port: Int?
        if pieces.count == 2 {
            guard let value = digits(pieces[1], atMost: 5) else { return nil }
            port = value
        }
        let head = pieces[0]
        if let slash = head.firstIndex(of: "/") {
            guard let network = ipv4(head[..<slash]), let length = digits(head[head.index(after: slash)...], atMost: 3),
                  length <= 32 else { return nil }
            let mask: UInt32 = length == 0 ? 0 : ~UInt32(0) << (32 - length)
            return .network(network, mask: mask, port: port)
        }
        if let address = ipv4(head) { return .network(address, mask: ~0, port: port) }
        var name = head.lowercased()[...]
        if name.hasPrefix("*.") { name = name.dropFirst(2) } else if name.hasPrefix(".") { name = name.dropFirst() }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { return nil }
        return .name(labels: name.split(separator: ".", omittingEmptySubsequences: false), port: port)
    }

    /// A dotted quad as inet_pton(AF_INET) reads it: four decimal parts of at most 255, no
    /// leading zero.
    private static func ipv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard let number = digits(part, atMost: 3), number <= 255, part.count == 1 || part.first != "0" else { return nil }
            value = value << 8 | UInt32(number)
        }
        return value
    }

    private static func digits(_ text: Substring, atMost count: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= count, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
