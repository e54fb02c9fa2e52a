/// One reply of an FTP server (RFC 959 §4.2): a three-digit code and one or more lines of text.
///
/// A single-line reply is `123 text`. A multi-line reply starts with `123-text`, ends with the
/// first later line that begins with the same code followed by a space (`123 text`), and may hold
/// any lines in between (RFC 959 §4.2: they may even begin with other digits).
///
/// Invariants: `code` is in 100...599 with a first digit of 1–5; `lines` is never empty and holds
/// no CR or LF.
struct FTPReply: Equatable, Sendable, CustomStringConvertible {
    /// The reply code (RFC 959 §4.2.1), 100...599.
    let code: Int
    /// The text of every line, in order. The first and last lines lose their `123-` / `123 `
    /// prefix; an intermediate line that repeats the code (`123-more`, as ProFTPD writes them)
    /// loses it too, other intermediate lines are kept exactly as sent (a leading space included:
    /// RFC 3659 §7.2 marks MLST's entry line with it). Bytes that are not UTF-8 are replaced.
    let lines: [String]

    /// The meaning of the first digit (RFC 959 §4.2.1).
    enum Kind: Equatable, Sendable {
        /// 1yz: the action is being started; expect another reply before the next command.
        case preliminary
        /// 2yz: the action completed.
        case completion
        /// 3yz: accepted, waiting for more information (PASS after USER, RETR after REST).
        case intermediate
        /// 4yz: not done, but may succeed if tried again (busy, data connection trouble).
        case transientNegative
        /// 5yz: not done, and will not be by repeating the same command.
        case permanentNegative
    }

    /// The class of the reply, from its first digit.
    var kind: Kind {
        switch code / 100 {
        case 1: .preliminary
        case 2: .completion
        case 3: .intermediate
        case 4: .transientNegative
        default: .permanentNegative
        }
    }

    /// All lines joined with "\n".
    var text: String { lines.joined(separator: "\n") }

    /// The first line, cut to 160 characters, with control characters replaced by "?": safe to
    /// put in an error message shown on a terminal.
    var summary: String {
        let first = lines.first ?? ""
        var out = String(first.unicodeScalars.prefix(160).map { scalar -> Character in
            scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0) ? "?" : Character(scalar)
        })
        if first.unicodeScalars.count > 160 { out += "…" }
        return out
    }

    /// "550 No such file" (the code and the summary).
    var description: String { "\(code) \(summary)" }

    /// A reply made from parts (tests, and the machine's own synthetic values).
    init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines.isEmpty ? [""] : lines
    }

    /// A single-line reply.
    init(_ code: Int, _ text: String = "") {
        self.init(code: code, lines: [text])
    }
}

/// Why the reply stream cannot be read any further. Once thrown, the parser keeps throwing it.
enum FTPReplyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A line grew past the limit before its LF arrived.
    case lineTooLong(limit: Int)
    /// A multi-line reply grew past the line limit without its last line.
    case tooManyLines(limit: Int)
    /// A multi-line reply grew past the byte limit without its last line.
    case replyTooLarge(limit: Int)
    /// A line that should start a reply does not begin with three digits and a space or "-".
    case malformed(String)
    /// The code is outside 100...599.
    case codeOutOfRange(String)
    /// The connection ended inside a reply.
    case truncated

    var description: String {
        switch self {
        case .lineTooLong(let limit): "FTP reply line longer than \(limit) bytes"
        case .tooManyLines(let limit): "FTP reply longer than \(limit) lines"
        case .replyTooLarge(let limit): "FTP reply larger than \(limit) bytes"
        case .malformed(let line): "malformed FTP reply line: \(line)"
        case .codeOutOfRange(let code): "FTP reply code out of range: \(code)"
        case .truncated: "the connection ended inside an FTP reply"
        }
    }
}

/// An incremental reader of the control connection: fed the bytes as they arrive, in pieces of
/// any size, it returns each reply once its last line is complete.
///
/// Lines end with CRLF (RFC 959) or a bare LF (tolerated, as curl and wget do); a CR elsewhere is
/// kept. Memory is bounded by ``Limits``: a hostile server sending an endless line or a million
/// continuation lines gets an error, not our memory. After an error every later call throws the
/// same error. Telnet option negotiation (RFC 959 §4.1.2's IAC sequences) is not interpreted.
///
/// The pieces the bytes arrive in never change the result: the replies completed before a bad
/// line are returned even when the bad line arrives in the same piece (the error is then thrown
/// by the next call, and ``failure`` shows it at once). Found by the FuzzFTP fuzzer: a read
/// holding `226 …\r\n` and garbage used to lose the 226, where two reads delivered it.
struct FTPReplyParser: Sendable {
    /// Bounds on what one reply may hold.
    struct Limits: Sendable {
        /// Bytes in one line, CRLF excluded (8 KiB fits a PATH_MAX path in an MLST fact line).
        var maxLineLength = 8 << 10
        /// Lines in one multi-line reply (FEAT lists and banners are far shorter).
        var maxLines = 1000
        /// Bytes in one multi-line reply.
        var maxReplyBytes = 256 << 10

        /// The defaults above.
        init() {}
    }

    /// The bounds in force.
    let limits: Limits
    private var line: [UInt8] = []
    /// The multi-line reply being read: its code and the lines so far.
    private var open: (code: Int, lines: [String], bytes: Int)?
    /// The error that ended the stream, set as soon as the bad line is read; every later call
    /// throws it.
    private(set) var failure: FTPReplyError?

    /// A parser at the start of a connection.
    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// True while a reply is incomplete (bytes of a line, or a multi-line reply without its end).
    var hasPartialReply: Bool { !line.isEmpty || open != nil }

    /// Reads `bytes` and returns the replies they complete, in order (often none or one). A bad
    /// line stops the reading: it throws, unless replies were completed before it in `bytes`
    /// (then they are returned, ``failure`` is set, and the next call throws).
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(FTPReplyError) -> [FTPReply] where Bytes.Element == UInt8 {
        if let failure { throw failure }
        var replies: [FTPReply] = []
        for byte in bytes {
            if byte == 0x0A {
                if line.last == 0x0D { line.removeLast() }
                let complete = line
                line.removeAll(keepingCapacity: true)
                do {
                    if let reply = try take(complete) { replies.append(reply) }
                } catch {
                    failure = error
                    if replies.isEmpty { throw error }
                    return replies
                }
            } else {
                // One byte of slack for the CR that may precede the LF.
                guard line.count <= limits.maxLineLength else {
                    let error = FTPReplyError.lineTooLong(limit: limits.maxLineLength)
                    failure = error
                    line = []
                    if replies.isEmpty { throw error }
                    return replies
                }
                line.append(byte)
            }
        }
        return replies
    }

    /// The connection ended: throws ``FTPReplyError/truncated`` when a reply was incomplete.
    mutating func finish() throws(FTPReplyError) {
        if let failure { throw failure }
        if hasPartialReply {
            failure = .truncated
            throw .truncated
        }
    }

    /// Handles one complete line; returns the reply it ends, if any.
    private mutating func take(_ bytes: [UInt8]) throws(FTPReplyError) -> FTPReply? {
        guard bytes.count <= limits.maxLineLength else { throw .lineTooLong(limit: limits.maxLineLength) }
        if var reply = open {
            if let code = Self.code(of: bytes), code == reply.code, bytes.count == 3 || bytes[3] == 0x20 {
                open = nil
                reply.lines.append(Self.text(bytes.dropFirst(4)))
                return FTPReply(code: reply.code, lines: reply.lines)
            }
            guard reply.lines.count + 1 < limits.maxLines else { throw .tooManyLines(limit: limits.maxLines) }
            reply.bytes += bytes.count + 2
            guard reply.bytes <= limits.maxReplyBytes else { throw .replyTooLarge(limit: limits.maxReplyBytes) }
            let repeatsCode = Self.code(of: bytes) == reply.code && bytes.count > 3 && bytes[3] == 0x2D
            reply.lines.append(Self.text(repeatsCode ? bytes.dropFirst(4) : bytes[...]))
            open = reply
            return nil
        }
        guard bytes.count >= 3, bytes.prefix(3).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .malformed(Self.text(bytes.prefix(40)))
        }
        guard let code = Self.code(of: bytes) else { throw .codeOutOfRange(Self.text(bytes.prefix(3))) }
        if bytes.count == 3 { return FTPReply(code, "") }
        switch bytes[3] {
        case 0x20:
            return FTPReply(code, Self.text(bytes.dropFirst(4)))
        case 0x2D:
            open = (code, [Self.text(bytes.dropFirst(4))], bytes.count + 2)
            return nil
        default:
            throw .malformed(Self.text(bytes.prefix(40)))
        }
    }

    /// The code at the start of `bytes`, when it is three digits in 100...599.
    private static func code(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 3 else { return nil }
        var value = 0
        for byte in bytes.prefix(3) {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return (100...599).contains(value) ? value : nil
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
