/// Machine-readable progress: one compact JSON object per line, for scripts and GUIs.
///
/// ```
/// {"event":"start","url":"https://example.com/a.iso","name":"a.iso","expected":1048576}
/// {"event":"progress","url":"https://example.com/a.iso","received":524288,"expected":1048576,"rate":262144.5}
/// {"event":"upload","url":"https://example.com/up/a.iso","sent":524288,"expected":1048576,"rate":262144.5}
/// {"event":"finish","url":"https://example.com/a.iso","path":"a.iso","bytes":1048576,"seconds":2.5,"status":200}
/// {"event":"summary","files":1,"succeeded":1,"failed":0,"skipped":0,"bytes":1048576,"seconds":2.6,"exitCode":0}
/// ```
///
/// `summary` is always the last line of a run, once.
///
/// Keys come in a fixed order, `"event"` first, then the case's fields as declared; optional
/// fields that are nil are left out. Strings escape `"`, `\` and control characters (U+0000–U+001F,
/// as `\u00xx`, lowercase hex); everything else, non-ASCII included, stays as UTF-8. Counts are
/// integers; seconds and rates are plain decimals with at most three places and no trailing zeros
/// (`2`, `2.5`, `0.125`), never exponents; a non-finite or negative rate or time is written as 0.
enum ProgressEvent: Sendable, Equatable {
    case start(url: String, name: String?, expected: Int64?)
    case progress(url: String, received: Int64, expected: Int64?, rate: Double)
    /// A request body going out: `sent` bytes of this send so far (a body sent again after a
    /// 307/308 or a retry starts from 0), `expected` when its length is known.
    case upload(url: String, sent: Int64, expected: Int64?, rate: Double)
    case redirect(from: String, to: String, status: Int)
    case retry(url: String, attempt: Int?, delay: Double, error: String)
    case resume(url: String, offset: Int64, expected: Int64?)
    /// `bytes` as written to disk, `decodedBytes` when a content encoding was decoded,
    /// `status` the final HTTP status.
    case finish(url: String, path: String, bytes: Int64, decodedBytes: Int64?, seconds: Double, status: Int)
    case error(url: String, message: String, exitCode: Int32)
    /// The last event of a run: files asked for, how they ended, bytes fetched, wall time and
    /// the exit status the command is about to exit with.
    case summary(files: Int, succeeded: Int, failed: Int, skipped: Int, bytes: Int64, seconds: Double, exitCode: Int32)

    /// The `"event"` value.
    var eventName: String {
        switch self {
        case .start: "start"
        case .progress: "progress"
        case .upload: "upload"
        case .redirect: "redirect"
        case .retry: "retry"
        case .resume: "resume"
        case .finish: "finish"
        case .error: "error"
        case .summary: "summary"
        }
    }

    /// The event as one line of JSON, ending in "\n".
    func jsonLine() -> String {
        var object = JSONObjectWriter(event: eventName)
        switch self {
        case let .start(url, name, expected):
            object.add("url", string: url)
            object.add("name", string: name)
            object.add("expected", integer: expected)
        case let .progress(url, received, expected, rate):
            object.add("url", string: url)
            object.add("received", integer: received)
            object.add("expected", integer: expected)
            object.add("rate", decimal: rate)
        case let .upload(url, sent, expected, rate):
            object.add("url", string: url)
            object.add("sent", integer: sent)
            object.add("expected", integer: expected)
            object.add("rate", decimal: rate)
        case let .redirect(from, to, status):
            object.add("from", string: from)
            object.add("to", string: to)
            object.add("status", integer: Int64(status))
        case let .retry(url, attempt, delay, error):
            object.add("url", string: url)
            object.add("attempt", integer: attempt.map(Int64.init))
            object.add("delay", decimal: delay)
            object.add("error", string: error)
        case let .resume(url, offset, expected):
            object.add("url", string: url)
            object.add("offset", integer: offset)
            object.add("expected", integer: expected)
        case let .finish(url, path, bytes, decodedBytes, seconds, status):
            object.add("url", string: url)
            object.add("path", string: path)
            object.add("bytes", integer: bytes)
            object.add("decodedBytes", integer: decodedBytes)
            object.add("seconds", decimal: seconds)
            object.add("status", integer: Int64(status))
        case let .error(url, message, exitCode):
            object.add("url", string: url)
            object.add("message", string: message)
            object.add("exitCode", integer: Int64(exitCode))
        case let .summary(files, succeeded, failed, skipped, bytes, seconds, exitCode):
            object.add("files", integer: Int64(files))
            object.add("succeeded", integer: Int64(succeeded))
            object.add("failed", integer: Int64(failed))
            object.add("skipped", integer: Int64(skipped))
            object.add("bytes", integer: bytes)
            object.add("seconds", decimal: seconds)
            object.add("exitCode", integer: Int64(exitCode))
        }
        return object.line
    }

    // MARK: - JSON text

    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out += "\\u00"
                for nibble in [scalar.value >> 4, scalar.value & 0xF] {
                    out.unicodeScalars.append(Unicode.Scalar(UInt8(nibble < 10 ? 48 + nibble : 87 + nibble)))
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON number with at most three decimals and no trailing zeros: `2`, `2.5`, `0.125`;
    /// 0 for negative, non-finite or sub-millisecond values; 9e12 and up as whole numbers.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return "0" }
        guard value < 9e12 else { return String(Int64(min(value, 9.2e18))) }
        var text = Units.fixed(value, digits: 3)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// Builds `{"event":"…","key":value,…}\n` in insertion order.
private struct JSONObjectWriter {
    private var text: String

    init(event: String) {
        text = "{\"event\":" + ProgressEvent.quoted(event)
    }

    mutating func add(_ key: String, string value: String?) {
        guard let value else { return }
        text += ",\"\(key)\":" + ProgressEvent.quoted(value)
    }

    mutating func add(_ key: String, integer value: Int64?) {
        guard let value else { return }
        text += ",\"\(key)\":\(value)"
    }

    mutating func add(_ key: String, decimal value: Double) {
        text += ",\"\(key)\":" + ProgressEvent.decimal(value)
    }

    var line: String { text + "}\n" }
}

/// At most one progress event per `interval` seconds: the first call says yes, later ones only
/// once `interval` has passed since the last yes. (A clock that goes backwards waits until it
/// catches up again.)
struct ProgressThrottle: Sendable {
    var interval: Double

    private var lastEmit: Double?

    init(interval: Double = 1) {
        self.interval = interval
    }

    mutating func shouldEmit(at time: Double) -> Bool {
        if let lastEmit, time - lastEmit < interval { return false }
        lastEmit = time
        return true
    }
}
