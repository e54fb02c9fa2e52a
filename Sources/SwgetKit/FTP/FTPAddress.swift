/// Where a data connection goes: the passive replies a server sends (EPSV, RFC 2428 §3; PASV,
/// RFC 959 §4.1.2) and the active commands a client sends (EPRT, RFC 2428 §2; PORT, RFC 959).
///
/// Ports are 1...65535 and address bytes 0...255; anything else is an error, never a wrapped or
/// truncated value. The host a PASV reply names is kept for information only: the data connection
/// goes to the control connection's peer (curl's default since 7.74, `--ftp-skip-pasv-ip`), so a
/// server cannot point the client at a third host (the FTP bounce, RFC 2577) or at an address
/// behind a NAT that it misreports.
enum FTPAddress {
    /// The answer to EPSV: `229 Entering Extended Passive Mode (|||6446|)`.
    struct ExtendedPassive: Equatable, Sendable {
        /// The port to connect to on the control connection's host.
        let port: Int
    }

    /// The answer to PASV: `227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)`.
    struct Passive: Equatable, Sendable {
        /// The four bytes of the announced IPv4 address (information only, see the type's notes).
        let announcedHost: [UInt8]
        /// The port to connect to on the control connection's host.
        let port: Int

        /// The announced address in dotted form ("192.168.1.2").
        var announcedHostString: String { announcedHost.map(String.init).joined(separator: ".") }
    }

    /// Why a passive reply or an active address cannot be used.
    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No `(|||port|)` group (EPSV) or no six-number tuple (PASV) in the reply's text.
        case notFound
        /// A number of the tuple is above 255, or the port is 0 or above 65535.
        case outOfRange
        /// The EPSV group has the right shape but broken contents (other delimiters, an address).
        case malformed

        var description: String {
            switch self {
            case .notFound: "no data port in the server's passive reply"
            case .outOfRange: "the server's passive reply holds a number out of range"
            case .malformed: "the server's extended passive reply is malformed"
            }
        }
    }

    /// The largest number of digits a port (or a tuple's number) is read with: more is out of
    /// range, without building a number from a million digits.
    private static let maxDigits = 5

    /// Parses an EPSV reply's text (RFC 2428 §3): the first "(" followed by the same delimiter
    /// three times (any printable ASCII but digits), the port in decimal, and the delimiter again;
    /// a closing ")" is not required (curl does not require it either).
    static func parseExtendedPassive(_ text: String) throws(Failure) -> ExtendedPassive {
        let bytes = Array(text.utf8)
        guard let open = bytes.firstIndex(of: 0x28) else { throw .notFound }
        var i = open + 1
        guard i + 3 < bytes.count else { throw .malformed }
        let delimiter = bytes[i]
        guard (0x21...0x7E).contains(delimiter), !isDigit(delimiter), bytes[i + 1] == delimiter, bytes[i + 2] == delimiter else {
            throw .malformed
        }
        i += 3
        let start = i
        var port = 0
        while i < bytes.count, isDigit(bytes[i]) {
            guard i - start < maxDigits else { throw .outOfRange }
            port = port * 10 + Int(bytes[i] - 0x30)
            i += 1
        }
        guard i > start, i < bytes.count, bytes[i] == delimiter else { throw .malformed }
        guard (1...65535).contains(port) else { throw .outOfRange }
        return ExtendedPassive(port: port)
    }

    /// Parses a PASV reply's text: the first run of six comma-separated decimal numbers anywhere
    /// in it (with or without parentheses, "=" or spaces after the commas: servers differ), as
    /// curl and wget search for it. A tuple whose numbers exceed 255 or whose port is 0 fails.
    static func parsePassive(_ text: String) throws(Failure) -> Passive {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            // A tuple starts at a digit that continues neither a number nor a longer list.
            if isDigit(bytes[i]), i == 0 || !(isDigit(bytes[i - 1]) || bytes[i - 1] == 0x2C) {
                if let numbers = tuple(bytes, from: i) {
                    guard numbers.allSatisfy({ $0 <= 255 }) else { throw .outOfRange }
                    let port = numbers[4] * 256 + numbers[5]
                    guard port >= 1 else { throw .outOfRange }
                    return Passive(announcedHost: numbers.prefix(4).map { UInt8($0) }, port: port)
                }
            }
            i += 1
        }
        throw .notFound
    }

    /// Six numbers separated by "," (optional spaces after each comma), starting at `start`.
    /// Numbers longer than five digits count as 99999 (out of range, reported by the caller).
    private static func tuple(_ bytes: [UInt8], from start: Int) -> [Int]? {
        var numbers: [Int] = []
        var i = start
        while numbers.count < 6 {
            if !numbers.isEmpty {
                guard i < bytes.count, bytes[i] == 0x2C else { return nil }
                i += 1
                while i < bytes.count, bytes[i] == 0x20 { i += 1 }
            }
            let first = i
            var value = 0
            while i < bytes.count, isDigit(bytes[i]) {
                if i - first < maxDigits { value = value * 10 + Int(bytes[i] - 0x30) } else { value = 99_999 }
                i += 1
            }
            guard i > first else { return nil }
            numbers.append(value)
        }
        // "1,2,3,4,5,6,7" is not a tuple of six.
        if i < bytes.count, bytes[i] == 0x2C, i + 1 < bytes.count, isDigit(bytes[i + 1]) { return nil }
        return numbers
    }

    /// The argument of `EPRT` for a listener at `host` (an IPv4 or IPv6 literal, a zone suffix
    /// "%eth0" dropped) and `port`: "|1|132.235.1.2|6275|" or "|2|::1|5282|" (RFC 2428 §2).
    /// nil when the host is not an IP literal or the port is out of range.
    static func extendedPortArgument(host: String, port: Int) -> String? {
        guard (1...65535).contains(port) else { return nil }
        if let v4 = ipv4Bytes(host) {
            return "|1|\(v4.map(String.init).joined(separator: "."))|\(port)|"
        }
        let bare = host.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? host
        guard bare.contains(":"), bare.utf8.count <= 45,
              bare.utf8.allSatisfy({ isHexDigit($0) || $0 == 0x3A || $0 == 0x2E }) else { return nil }
        return "|2|\(bare)|\(port)|"
    }

    /// The argument of `PORT` for an IPv4 listener (or an IPv4-mapped IPv6 one, "::ffff:a.b.c.d"):
    /// "h1,h2,h3,h4,p1,p2". nil for IPv6 or an out-of-range port: PORT cannot name them.
    static func portArgument(host: String, port: Int) -> String? {
        guard (1...65535).contains(port) else { return nil }
        var address = host
        if address.lowercased().hasPrefix("::ffff:") { address = String(address.dropFirst(7)) }
        guard let v4 = ipv4Bytes(address) else { return nil }
        return (v4.map(Int.init) + [port >> 8, port & 0xFF]).map(String.init).joined(separator: ",")
    }

    /// The four bytes of a dotted-quad IPv4 literal, or nil.
    static func ipv4Bytes(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy(isDigit), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
