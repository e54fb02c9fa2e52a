/// curl's `--write-out FORMAT`, parsed once into tokens and rendered after each transfer from a
/// `WriteOutValues` (curl's `src/tool_writeout.c`).
///
/// Syntax, as curl reads it:
/// - `%{name}`: a variable (`WriteOutFormat.Variable`); names are matched exactly. An unknown
///   name prints nothing and gives a warning, as curl does.
/// - `%header{name}`: the first response header field named `name` (case-insensitive); names
///   of 256 bytes or more print nothing, as in curl.
/// - `%{json}`: every variable as one JSON object, keys in curl's names and alphabetical order;
///   `%{header_json}`: the response headers as curl prints them (lower-case names, values in
///   arrays). `%{onerror}`: the rest is printed only when the transfer failed (exit code
///   non-zero). `%{stdout}` / `%{stderr}`: where the following text goes.
/// - `%%` is `%`; `%` followed by anything else is printed as it is (`%z`, a lone `%` at the
///   end); `%{` or `%header{` without a closing `}` is printed as it is, and so is the rest.
/// - `\n`, `\r`, `\t` are newline, carriage return and tab; `\\` is one backslash (curl prints
///   both backslashes: the one difference); any other `\x` is printed as it is.
/// - `@FILE` / `@-` read the format from a file / standard input: see `source(of:)`; the
///   caller reads, this type parses.
public struct WriteOutFormat: Sendable, Equatable {
    /// The variables swget knows, named as in curl.
    public enum Variable: String, CaseIterable, Sendable, Equatable {
        case contentType = "content_type"
        case errorMessage = "errormsg"
        case exitCode = "exitcode"
        case filenameEffective = "filename_effective"
        case httpCode = "http_code"
        case httpVersion = "http_version"
        case localIP = "local_ip"
        case localPort = "local_port"
        case method
        case numConnects = "num_connects"
        case numHeaders = "num_headers"
        case numRedirects = "num_redirects"
        case numRetries = "num_retries"
        case redirectURL = "redirect_url"
        case remoteIP = "remote_ip"
        case remotePort = "remote_port"
        case responseCode = "response_code"
        case scheme
        case sizeDownload = "size_download"
        case sizeHeader = "size_header"
        case sizeRequest = "size_request"
        case sizeUpload = "size_upload"
        case speedDownload = "speed_download"
        case speedUpload = "speed_upload"
        case timeAppconnect = "time_appconnect"
        case timeConnect = "time_connect"
        case timeNamelookup = "time_namelookup"
        case timePretransfer = "time_pretransfer"
        case timeRedirect = "time_redirect"
        case timeStarttransfer = "time_starttransfer"
        case timeTotal = "time_total"
        case url
        case urlEffective = "url_effective"
        case urlNumber = "urlnum"
    }

    /// One piece of a parsed format.
    public enum Token: Sendable, Equatable {
        case text(String)
        case variable(Variable)
        case header(String)
        case json
        case headerJSON
        case onError
        case standardOutput
        case standardError
    }

    /// Where the format itself comes from, decided by the option's argument.
    public enum Source: Sendable, Equatable {
        /// The argument is the format.
        case inline(String)
        /// `@FILE`: the format is the content of FILE (`@` alone names the empty path, which
        /// the caller reports as a file that cannot be read, as curl does).
        case file(String)
        /// `@-`: the format is read from standard input.
        case standardInput
    }

    /// How the argument of `--write-out` names its format.
    public static func source(of argument: String) -> Source {
        guard argument.hasPrefix("@") else { return .inline(argument) }
        let path = String(argument.dropFirst())
        return path == "-" ? .standardInput : .file(path)
    }

    /// The longest header name `%header{}` looks up, as curl's 256-byte buffer.
    static let maxHeaderNameBytes = 255

    /// The parsed format; consecutive text is one token.
    public let tokens: [Token]
    /// One line per unknown variable (`unknown --write-out variable: 'name'`), for stderr.
    public let warnings: [String]

    /// Parses `format`. Never fails: what is not syntax is text.
    public init(parsing format: String) {
        let bytes = Array(format.utf8)
        var tokens: [Token] = []
        var warnings: [String] = []
        var text: [UInt8] = []
        func flush() {
            if !text.isEmpty { tokens.append(.text(String(decoding: text, as: UTF8.self))) }
            text.removeAll()
        }
        // Every successful search consumes up to the brace it finds and a failed one is
        // answered by `lastBrace`, so parsing stays linear (curl's strchr is quadratic).
        let lastBrace = bytes.lastIndex(of: 0x7D) ?? -1
        func closingBrace(from start: Int) -> Int? {
            start <= lastBrace ? bytes[start...].firstIndex(of: 0x7D) : nil
        }
        let headerPrefix = Array("header{".utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let next: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
            if byte == 0x25, let next {  // %
                if next == 0x25 {
                    text.append(0x25)
                    index += 2
                } else if next == 0x7B {  // %{
                    guard let end = closingBrace(from: index + 2) else {
                        text.append(contentsOf: [0x25, 0x7B])
                        index += 2
                        continue
                    }
                    let name = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
                    if let token = Self.token(named: name) {
                        flush()
                        tokens.append(token)
                    } else {
                        warnings.append("unknown --write-out variable: '\(name)'")
                    }
                    index = end + 1
                } else if bytes[(index + 1)...].starts(with: headerPrefix) {
                    let start = index + 1 + headerPrefix.count
                    guard let end = closingBrace(from: start) else {
                        text.append(0x25)
                        text.append(contentsOf: headerPrefix)
                        index = start
                        continue
                    }
                    if end - start <= Self.maxHeaderNameBytes {
                        flush()
                        tokens.append(.header(String(decoding: bytes[start..<end], as: UTF8.self)))
                    }
                    index = end + 1
                } else {
                    text.append(contentsOf: [byte, next])  // as curl: both bytes, as they are
                    index += 2
                }
            } else if byte == 0x5C, let next {  // backslash
                switch next {
                case 0x6E: text.append(0x0A)
                case 0x72: text.append(0x0D)
                case 0x74: text.append(0x09)
                case 0x5C: text.append(0x5C)
                default: text.append(contentsOf: [byte, next])
                }
                index += 2
            } else {
                text.append(byte)
                index += 1
            }
        }
        flush()
        self.tokens = tokens
        self.warnings = warnings
    }

    /// The token for a `%{name}`, or nil for an unknown name.
    static func token(named name: String) -> Token? {
        switch name {
        case "json": return .json
        case "header_json": return .headerJSON
        case "onerror": return .onError
        case "stdout": return .standardOutput
        case "stderr": return .standardError
        default: return Variable(rawValue: name).map(Token.variable)
        }
    }

    /// A piece of rendered output and the stream it goes to.
    public struct Chunk: Sendable, Equatable {
        /// Standard output, or standard error after `%{stderr}`.
        public enum Stream: Sendable, Equatable { case standardOutput, standardError }
        /// Where `text` goes.
        public var stream: Stream
        /// The rendered text.
        public var text: String
    }

    /// Renders the format for one transfer. Output starts on standard output; consecutive text
    /// for the same stream is merged into one chunk.
    public func render(_ values: WriteOutValues) -> [Chunk] {
        var chunks: [Chunk] = []
        var stream = Chunk.Stream.standardOutput
        func emit(_ text: String) {
            guard !text.isEmpty else { return }
            if let last = chunks.last, last.stream == stream {
                chunks[chunks.count - 1].text += text
            } else {
                chunks.append(Chunk(stream: stream, text: text))
            }
        }
        for token in tokens {
            switch token {
            case .text(let text): emit(text)
            case .variable(let variable): emit(values.text(for: variable))
            case .header(let name): emit(values.headers.first { $0.name.lowercased() == name.lowercased() }?.value ?? "")
            case .json: emit(values.json())
            case .headerJSON: emit(values.headerJSON())
            case .onError: if values.exitCode == 0 { return chunks }
            case .standardOutput: stream = .standardOutput
            case .standardError: stream = .standardError
            }
        }
        return chunks
    }

    /// Everything `render` produces, whatever its stream, as one string.
    public func renderedText(_ values: WriteOutValues) -> String {
        render(values).map(\.text).joined()
    }
}
