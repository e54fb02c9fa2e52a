/// What `--write-out` can print about one finished transfer: a plain value filled in by the
/// command from the task's metrics and response, then handed to `WriteOutFormat.render`.
///
/// Numbers default to 0 and times to zero, as curl prints them when a phase did not happen
/// (`%{http_code}` is `000` without a response). Text that is unknown stays nil: it prints as
/// nothing and as `null` in `%{json}`, as in curl.
public struct WriteOutValues: Sendable, Equatable {
    /// One response header field, as received.
    public struct Header: Sendable, Equatable {
        /// The field name as received (matched case-insensitively).
        public var name: String
        /// The field value, without surrounding white space.
        public var value: String
        /// A header field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The last response's status code (`http_code`, `response_code`); 0 without a response.
    public var httpCode = 0
    /// The URL as given (`url`).
    public var url: String?
    /// The URL last fetched, after redirects (`url_effective`).
    public var urlEffective: String?
    /// The file written (`filename_effective`).
    public var filenameEffective: String?
    /// Body bytes received and sent, bytes of response headers and of the request.
    public var sizeDownload: Int64 = 0
    public var sizeUpload: Int64 = 0
    public var sizeHeader: Int64 = 0
    public var sizeRequest: Int64 = 0
    /// Average bytes per second over the whole transfer.
    public var speedDownload: Int64 = 0
    public var speedUpload: Int64 = 0
    /// The phases, each from the start of the transfer (curl's definitions): name resolved,
    /// TCP connected, TLS done, about to send, first response byte, everything; and the time
    /// spent in redirects before the final request.
    public var timeNamelookup: Duration = .zero
    public var timeConnect: Duration = .zero
    public var timeAppconnect: Duration = .zero
    public var timePretransfer: Duration = .zero
    public var timeStarttransfer: Duration = .zero
    public var timeTotal: Duration = .zero
    public var timeRedirect: Duration = .zero
    /// Redirects followed, connections opened, and retries made.
    public var numRedirects = 0
    public var numConnects = 0
    public var numRetries = 0
    /// Where the last response would have redirected to, when it was not followed.
    public var redirectURL: String?
    /// The last response's `Content-Type`.
    public var contentType: String?
    /// The command's exit code for this transfer, and the error text when it failed.
    public var exitCode = 0
    public var errorMessage: String?
    /// The addresses of the last connection: the server's and our own.
    public var remoteIP: String?
    public var remotePort = 0
    public var localIP: String?
    public var localPort = 0
    /// The scheme used; curl 7 printed it upper case (`HTTP`), curl 8 lower case: the caller
    /// chooses.
    public var scheme: String?
    /// The method of the last request (`GET`, `HEAD`, `POST`...).
    public var method: String?
    /// `1.0`, `1.1`, `2`, `3` as curl prints them; nil (curl: `0`) without a response.
    public var httpVersion: String?
    /// The position of this URL in the list, from 0 (`urlnum`).
    public var urlNumber = 0
    /// The last response's header fields, in order (`%header{}`, `%{header_json}`,
    /// `num_headers`).
    public var headers: [Header] = []

    /// Values for a transfer that never started: zeros and nils.
    public init() {}

    /// A variable as `%{name}` prints it: integers in decimal, `http_code` on three digits,
    /// times in seconds with six decimals, text as it is.
    func text(for variable: WriteOutFormat.Variable) -> String {
        switch render(variable) {
        case .integer(let value): return String(value)
        case .code(let value): return Self.threeDigits(value)
        case .time(let value): return Self.seconds(value)
        case .text(let value): return value ?? ""
        }
    }

    /// `%{json}`: every variable, alphabetically, in one line.
    func json() -> String {
        var members: [String] = []
        for variable in WriteOutFormat.Variable.allCases {
            let value: String
            switch render(variable) {
            case .integer(let number), .code(let number): value = String(number)
            case .time(let duration): value = Self.seconds(duration)
            case .text(let text): value = text.map(Self.jsonString) ?? "null"
            }
            members.append("\"\(variable.rawValue)\":\(value)")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `%{header_json}` as curl prints it: lower-case names in order of first appearance, each
    /// with all its values in an array, one name per line.
    func headerJSON() -> String {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for header in headers {
            let name = header.name.lowercased()
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(header.value)
        }
        let members = order.map { name in
            Self.jsonString(name) + ":[" + (values[name] ?? []).map(Self.jsonString).joined(separator: ",") + "]"
        }
        return "{" + members.joined(separator: ",\n") + "\n}"
    }

    /// A variable's value and how curl formats it.
    enum Rendered {
        case integer(Int64), code(Int64), time(Duration), text(String?)
    }

    /// The value behind a variable.
    func render(_ variable: WriteOutFormat.Variable) -> Rendered {
        switch variable {
        case .contentType: return .text(contentType)
        case .errorMessage: return .text(errorMessage)
        case .exitCode: return .integer(Int64(exitCode))
        case .filenameEffective: return .text(filenameEffective)
        case .httpCode, .responseCode: return .code(Int64(httpCode))
        case .httpVersion: return .text(httpVersion)
        case .localIP: return .text(localIP)
        case .localPort: return .integer(Int64(localPort))
        case .method: return .text(method)
        case .numConnects: return .integer(Int64(numConnects))
        case .numHeaders: return .integer(Int64(headers.count))
        case .numRedirects: return .integer(Int64(numRedirects))
        case .numRetries: return .integer(Int64(numRetries))
        case .redirectURL: return .text(redirectURL)
        case .remoteIP: return .text(remoteIP)
        case .remotePort: return .integer(Int64(remotePort))
        case .scheme: return .text(scheme)
        case .sizeDownload: return .integer(sizeDownload)
        case .sizeHeader: return .integer(sizeHeader)
        case .sizeRequest: return .integer(sizeRequest)
        case .sizeUpload: return .integer(sizeUpload)
        case .speedDownload: return .integer(speedDownload)
        case .speedUpload: return .integer(speedUpload)
        case .timeAppconnect: return .time(timeAppconnect)
        case .timeConnect: return .time(timeConnect)
        case .timeNamelookup: return .time(timeNamelookup)
        case .timePretransfer: return .time(timePretransfer)
        case .timeRedirect: return .time(timeRedirect)
        case .timeStarttransfer: return .time(timeStarttransfer)
        case .timeTotal: return .time(timeTotal)
        case .url: return .text(url)
        case .urlEffective: return .text(urlEffective)
        case .urlNumber: return .integer(Int64(urlNumber))
        }
    }

    /// `%03ld`: at least three digits (`000`, `200`); negative values print as 0.
    static func threeDigits(_ value: Int64) -> String {
        let digits = String(max(value, 0))
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// Seconds with six decimals, truncated to the microsecond as curl does (`1.234567`);
    /// negative durations print as `0.000000`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return "0.000000" }
        let micro = String(attoseconds / 1_000_000_000_000)
        return "\(seconds)." + String(repeating: "0", count: max(0, 6 - micro.count)) + micro
    }

    /// A JSON string literal, escaped as curl's `jsonquoted`: `\\`, `\"`, `\b`, `\f`, `\n`,
    /// `\r`, `\t`, other C0 controls as `\u00XX`; everything else as it is.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
