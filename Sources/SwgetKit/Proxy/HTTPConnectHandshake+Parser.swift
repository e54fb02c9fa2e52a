extension HTTPConnectHandshake {
    /// Parses a proxy's answer to CONNECT from bytes delivered in any pieces (byte by byte, all at
    /// once, with tunnel bytes behind the head).
    ///
    /// Syntax (RFC 9112 §2–§5): a status line `HTTP/1.x SP 3DIGIT [SP reason]`, header lines
    /// `name: value`, an empty line. Lines end in CRLF or a bare LF (§2.2). An obs-fold
    /// continuation line is joined to the previous value with one space (§5.2). Field names must be
    /// tokens; values must hold no control character but HT; reason phrase likewise.
    ///
    /// Bound: every head together (interim 1xx heads included) is at most `maximumHeadBytes`;
    /// a longer answer is `.malformed` as soon as that is certain, so memory stays bounded by
    /// the bound plus one read.
    public struct ResponseParser: Sendable {
        /// 64 KiB, the default head bound.
        public static let defaultMaximumHeadBytes = 64 * 1024

        /// The bound on all heads together (at least 16).
        public let maximumHeadBytes: Int
        private var buffer: [UInt8] = []
        /// Start of the line being assembled (everything before it is parsed).
        private var lineStart = 0
        private var status: (version: String, code: Int, reason: String)?
        private var fields: [(name: String, value: String)] = []
        private var finished = false

        /// A parser that has seen nothing yet.
        public init(maximumHeadBytes: Int = defaultMaximumHeadBytes) {
            self.maximumHeadBytes = max(16, maximumHeadBytes)
        }

        /// Bytes received so far (head and any tunnel bytes behind it).
        public var bytesReceived: Int { buffer.count }

        /// Adds `bytes`; returns the outcome once the head is complete or broken, nil while more
        /// is needed. After an outcome, later calls return `.malformed` and ignore their input.
        public mutating func parse(_ bytes: some Collection<UInt8>) -> Outcome? {
            guard !finished else { return .malformed("data fed after the answer was complete") }
            let scanStart = buffer.count
            buffer.append(contentsOf: bytes)
            var searchFrom = scanStart
            while let newline = buffer[searchFrom...].firstIndex(of: 0x0A) {
                guard newline < maximumHeadBytes else { return finish(.malformed(tooLong)) }
                var end = newline
                if end > lineStart, buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[lineStart..<end]
                lineStart = newline + 1
                searchFrom = lineStart
                if let outcome = process(line) { return finish(outcome) }
            }
            if buffer.count > maximumHeadBytes { return finish(.malformed(tooLong)) }
            return nil
        }

        private var tooLong: String { "the answer head is longer than \(maximumHeadBytes) bytes" }

        private mutating func finish(_ outcome: Outcome) -> Outcome {
            finished = true
            return outcome
        }

        /// One line without its terminator; an outcome when the head ends or breaks.
        private mutating func process(_ line: ArraySlice<UInt8>) -> Outcome? {
            guard let current = status else {
                switch Self.statusLine(line) {
                case .success(let parsed): status = parsed
                case .failure(let reason): return .malformed(reason)
                }
                return nil
            }
            if line.isEmpty {
                return endOfHead(current)
            }
            guard !line.contains(where: { $0 != 0x09 && ($0 < 0x20 || $0 == 0x7F) }) else {
                return .malformed("control character in a header line")
            }
            if let first = line.first, first == 0x20 || first == 0x09 {
                guard let last = fields.popLast() else { return .malformed("continuation line before any header") }
                let more = String(decoding: line, as: UTF8.self).trimmingOWS
                fields.append((last.name, last.value.isEmpty ? more : last.value + " " + more))
                return nil
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .malformed("header line without ':'") }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(HTTPConnectHandshake.isTokenByte) else {
                return .malformed("invalid header name")
            }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingOWS
            fields.append((String(decoding: name, as: UTF8.self), value))
            return nil
        }

        private mutating func endOfHead(_ current: (version: String, code: Int, reason: String)) -> Outcome? {
            let head = ResponseHead(version: current.version, status: current.code, reasonPhrase: current.reason,
                                    headers: HeaderFields(fields.map { ($0.name, $0.value) }))
            switch current.code {
            case 200...299:
                return .established(head, leftover: Array(buffer[lineStart...]))
            case 100...199 where current.code != 101:
                // An interim answer: the final one follows.
                status = nil
                fields = []
                return nil
            case 407:
                return .authenticationRequired(head)
            default:
                return .refused(head)
            }
        }

        private enum StatusLine {
            case success((version: String, code: Int, reason: String))
            case failure(String)
        }

        /// `HTTP/1.x SP 3DIGIT [SP reason-phrase]`; status 100 to 599.
        private static func statusLine(_ line: ArraySlice<UInt8>) -> StatusLine {
            let bytes = Array(line)
            guard !bytes.isEmpty else { return .failure("empty line where the status line belongs") }
            guard bytes.count >= 12, bytes[0..<7].elementsEqual("HTTP/1.".utf8),
                  bytes[7] >= UInt8(ascii: "0"), bytes[7] <= UInt8(ascii: "9"), bytes[8] == 0x20 else {
                return .failure("not an HTTP/1.x status line: '\(printable(bytes.prefix(40)))'")
            }
            let digits = bytes[9..<12]
            guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let code = Int(String(decoding: digits, as: UTF8.self)), (100...599).contains(code) else {
                return .failure("bad status code '\(printable(digits))'")
            }
            var reason = ""
            if bytes.count > 12 {
                guard bytes[12] == 0x20 else { return .failure("bad status line: no space after the status code") }
                let phrase = bytes[13...]
                guard !phrase.contains(where: { $0 != 0x09 && ($0 < 0x20 || $0 == 0x7F) }) else {
                    return .failure("control character in the reason phrase")
                }
                reason = String(decoding: phrase, as: UTF8.self).trimmingOWS
            }
            return .success((String(decoding: bytes[0..<8], as: UTF8.self), code, reason))
        }

        /// Bytes for an error message: printable ASCII kept, the rest as `?`.
        private static func printable(_ bytes: some Collection<UInt8>) -> String {
            String(decoding: bytes.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        }
    }
}
