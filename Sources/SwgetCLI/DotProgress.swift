/// wget's `--progress=dot[:style]` display, byte for byte as GNU Wget 1.21 prints it:
///
/// ```
///
///      0K .......... .......... .......... .......... .......... 25%  104K 1s
///     50K .......... .......... .......... .......... .......... 51%  104K 1s
///    100K .......... .......... .......... .......... .......... 76%  111K 0s
///    150K .......... .......... .......... .......... .....     100% 94.1K=1.9s
///
/// ```
///
/// A pure value: the caller reports the byte count and the time, it returns the text to write.
/// Like wget's, the text *starts* each line with "\n" (wget prints "Saving to: ‘x’\n" and the first
/// header's "\n" makes the blank line) and `finish` ends with "\n\n"; writing every returned
/// string as it is, right after the "Saving to:" line, reproduces wget's output exactly.
///
/// Resumed downloads (`resumedFrom > 0`) show the bytes already on disk as `,` and, when whole
/// lines were skipped, a `[ skipping 100K ]` line first. That preamble is returned by the first
/// `advance` (call `advance(to: resumedFrom, at: 0)` to print it at once) or by `finish`.
///
/// Times are seconds since this download (this session, not the resumed file) started, as
/// wget's `dltime`. Rates are per line, binary units, printed the way wget prints them
/// (`" %4.*f%c"`: `  104K`, ` 94.1K`, ` 1.84M`, `1024K`); each complete line with a known length
/// ends with the floor percentage and an ETA from the average speed of this session; the last line
/// ends with `=` and the total time (`=1.9s`, `=0.001s`, `=0s`, `=1m5s`).
///
/// Where this may differ from wget (all cases wget itself hardly reaches):
/// - A zero time between two lines: wget substitutes half its timer resolution
///   (`clock_getres`, 1 ns on Linux); this type always uses 0.5 ns, so the (absurd) rate is the same.
/// - After a line completes with four or more further lines already pending, wget's newer
///   sources (the ones with a `T` rate unit, as 1.21.3's binary has) print that line's stats over
///   all of them and jump to the new offset (`ADD_DOT_ROWS_THRS`); this type does the same.
///   wget reports every network read, far less than four lines, so it practically never gets
///   there; a caller that batches progress into huge jumps does.
/// - More bytes than announced: the percentage passes 100% as in wget; the ETA is clamped at
///   `0s` (as in wget's newer sources; older ones printed a negative number).
struct DotProgress: Sendable {
    enum Style: String, CaseIterable, Sendable {
        /// 1K dots, 10 per cluster, 50 per line (50K per line).
        case `default`
        /// 8K dots, 16 per cluster, 48 per line (384K per line).
        case binary
        /// 64K dots, 8 per cluster, 48 per line (3M per line).
        case mega
        /// 1M dots, 8 per cluster, 32 per line (32M per line).
        case giga

        /// Parses a style name case-insensitively, as wget does (`dot:Mega` works).
        init?(name: String) {
            self.init(rawValue: name.lowercased())
        }

        var dotBytes: Int64 {
            switch self {
            case .default: 1024
            case .binary: 8192
            case .mega: 65536
            case .giga: 1 << 20
            }
        }

        var dotsPerCluster: Int {
            switch self {
            case .default: 10
            case .binary: 16
            case .mega, .giga: 8
            }
        }

        var dotsPerLine: Int {
            switch self {
            case .default: 50
            case .binary, .mega: 48
            case .giga: 32
            }
        }

        var lineBytes: Int64 { dotBytes * Int64(dotsPerLine) }
    }

    let style: Style
    /// The whole file's expected size (resumed part included), or nil when unknown.
    let expectedTotal: Int64?
    let resumedFrom: Int64

    private var pending = ""
    /// Bytes received after the last dot (wget's `accumulated`).
    private var accumulated: Int64 = 0
    /// Complete lines so far, resumed ones included (wget's `rows`).
    private var rows: Int64 = 0
    /// Dots (or commas) on the current line.
    private var dots = 0
    /// The time of the last line's stats, for the per-line rate.
    private var lastRowTime = 0.0
    /// The byte count of the last `advance`.
    private var position: Int64
    private(set) var isFinished = false

    init(style: Style = .default, expectedTotal: Int64?, resumedFrom: Int64 = 0) {
        self.style = style
        self.expectedTotal = expectedTotal.flatMap { $0 > 0 ? $0 : nil }
        self.resumedFrom = max(0, resumedFrom)
        position = self.resumedFrom
        guard self.resumedFrom > 0 else { return }
        let lineBytes = style.lineBytes
        var remainder = self.resumedFrom % lineBytes
        let skipped = self.resumedFrom - remainder
        if skipped > 0 {
            let skippedK = String(skipped / 1024)
            pending += "\n" + String(repeating: " ", count: 2 + max(6, skippedK.count)) + "[ skipping \(skippedK)K ]"
        }
        pending += "\n" + Self.offsetHeader(skipped)
        while remainder >= style.dotBytes {
            if dots % style.dotsPerCluster == 0 { pending += " " }
            pending += ","
            dots += 1
            remainder -= style.dotBytes
        }
        accumulated = remainder
        rows = skipped / lineBytes
    }

    /// The text for the bytes received since the last call: dots, completed lines' stats and new
    /// line headers (possibly empty). `totalBytes` counts the whole file (resumed part included),
    /// `time` is seconds since this download started.
    mutating func advance(to totalBytes: Int64, at time: Double) -> String {
        guard !isFinished else { return "" }
        var text = pending
        pending = ""
        let received = max(0, totalBytes - position)
        position = max(position, totalBytes)
        accumulated += received
        let time = Self.sanitized(time)
        let lineBytes = style.lineBytes
        while accumulated >= style.dotBytes {
            accumulated -= style.dotBytes
            if dots == 0 { text += "\n" + Self.offsetHeader(rows * lineBytes) }
            if dots % style.dotsPerCluster == 0 { text += " " }
            text += "."
            dots += 1
            if dots >= style.dotsPerLine {
                dots = 0
                var addedRows: Int64 = 1
                if accumulated >= lineBytes << 2 {   // wget's ADD_DOT_ROWS_THRS coalescing
                    addedRows += accumulated / lineBytes
                    accumulated %= lineBytes
                }
                rows += addedRows
                text += rowStats(time: time, last: false, addedRows: addedRows)
            }
        }
        return text
    }

    /// The padding of the last line, its stats and the total time, then the blank line
    /// (empty after the first call).
    mutating func finish(at time: Double) -> String {
        guard !isFinished else { return "" }
        isFinished = true
        var text = pending
        pending = ""
        if dots == 0 { text += "\n" + Self.offsetHeader(rows * style.lineBytes) }
        for index in dots..<style.dotsPerLine {
            if index % style.dotsPerCluster == 0 { text += " " }
            text += " "
        }
        text += rowStats(time: Self.sanitized(time), last: true, addedRows: 1)
        return text + "\n\n"
    }

    // MARK: - wget's print_row_stats

    private mutating func rowStats(time: Double, last: Bool, addedRows: Int64) -> String {
        let lineBytes = style.lineBytes
        var displayed = rows * lineBytes + Int64(dots) * style.dotBytes
        if last { displayed += accumulated }
        displayed = max(0, displayed)
        var text = ""
        if let expectedTotal {
            let percent = 100.0 * Double(displayed) / Double(expectedTotal)
            text += String(Int(min(percent, 1e9))).leftPadded(to: 3) + "%"
        }
        var rowBytes = last ? Int64(dots) * style.dotBytes + accumulated : lineBytes * addedRows
        // wget's rule: the resumed part of the resumed line does not count (only ever true for
        // the last line, since `rows` has already moved on for a completed one).
        if rows == resumedFrom / lineBytes { rowBytes -= resumedFrom % lineBytes }
        text += " " + Self.rate(bytes: rowBytes, seconds: time - lastRowTime)
        lastRowTime = time
        if !last {
            if let expectedTotal {
                let remaining = max(0, expectedTotal - displayed)
                let soFar = displayed > resumedFrom ? displayed - resumedFrom : 1
                let eta = max(0, time * Double(remaining) / Double(soFar))
                if eta < Double(Int32.max) - 1 { text += " " + Self.shortDuration(Int(eta + 0.5)) }
            }
        } else if time >= 10 {
            text += "=" + Self.shortDuration(Int(time + 0.5))
        } else {
            text += "=" + Self.decimal(time) + "s"
        }
        return text
    }

    // MARK: - wget's number formats
    // (Not `Units`: those print "104.0 KiB/s"-style figures for the bar and summaries, while the
    // dot trailers need wget's own printf formats, rounded exactly as glibc rounds them.)

    /// `%6sK` of the offset in KiB.
    static func offsetHeader(_ bytes: Int64) -> String {
        String(bytes / 1024).leftPadded(to: 6) + "K"
    }

    /// wget's `calc_rate` and `" %4.*f%c"` without the leading space: `104K`, `94.1K`, `1.84M`,
    /// `0.00 ` (bytes per second carry a trailing space for the blank unit).
    static func rate(bytes: Int64, seconds: Double) -> String {
        let seconds = seconds > 0 ? seconds : 0.5e-9
        var value = Double(max(0, bytes)) / seconds
        let names: [Character] = [" ", "K", "M", "G", "T"]
        var unit = 0
        while unit < names.count - 1 && value >= 1024 {
            value /= 1024
            unit += 1
        }
        let digits = value >= 99.95 ? 0 : value >= 9.995 ? 1 : 2
        return printfFixed(value, digits: digits).leftPadded(to: 4) + String(names[unit])
    }

    /// wget's `eta_to_human_short(secs, condensed: true)`: `5s`, `99s`, `1m40s`, `2h5m`, `3d4h`.
    static func shortDuration(_ seconds: Int) -> String {
        let s = max(0, seconds)
        if s < 100 { return "\(s)s" }
        if s < 100 * 60 { return "\(s / 60)m\(s % 60)s" }
        if s < 48 * 3600 { return "\(s / 3600)h\((s / 60) % 60)m" }
        if s < 100 * 86400 { return "\(s / 86400)d\((s / 3600) % 24)h" }
        return "\(s / 86400)d"
    }

    /// wget's `print_decimal`: `12`, `1.9`, `0.5`, `0.03`, `0.001`, `0`.
    static func decimal(_ number: Double) -> String {
        let n = abs(number), sign = number < 0 ? "-" : ""
        if n >= 9.95 { return sign + printfFixed(n, digits: 0) }
        if n >= 0.95 { return sign + printfFixed(n, digits: 1) }
        if n >= 0.001 {
            // %.1g: one significant digit; 0.001 <= n < 0.95 keeps it in plain notation.
            let digits = n >= 0.1 ? 1 : n >= 0.01 ? 2 : 3
            let rounded = printfFixed(n, digits: digits)
            // Rounding up to the next power of ten (0.096 -> "0.10") drops the extra zero, as %g does.
            return sign + (rounded.hasSuffix("0") && digits > 1 ? String(rounded.dropLast()) : rounded)
        }
        if n >= 0.0005 { return "0.001" }
        return "0"
    }

    /// `%.*f` as glibc prints it: the exact binary value rounded to `digits` decimals, exact
    /// ties to even. For finite, non-negative values below 2^52 / 10^digits.
    static func printfFixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite, value >= 0 else { return value.isNaN ? "nan" : value < 0 ? "-" + printfFixed(-value, digits: digits) : "inf" }
        var power: Int64 = 1
        for _ in 0..<digits { power *= 10 }
        let scale = Double(power)
        let scaled = value * scale
        guard scaled < 4.5e15 else { return String(Int64(value)) }
        // The rounding error of the product, exactly (fused multiply-add): tells a real tie from
        // a product that only rounded onto .5.
        let error = (-scaled).addingProduct(value, scale)
        let floor = scaled.rounded(.down)
        let fraction = scaled - floor
        var units = Int64(floor)
        if fraction > 0.5 || (fraction == 0.5 && (error > 0 || (error == 0 && units % 2 == 1))) {
            units += 1
        }
        guard digits > 0 else { return String(units) }
        let fractionText = String(units % power)
        return "\(units / power)." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }

    /// wget clamps times to [0, INT_MAX - 1].
    private static func sanitized(_ time: Double) -> Double {
        guard time.isFinite else { return time > 0 ? Double(Int32.max) - 1 : 0 }
        return min(max(0, time), Double(Int32.max) - 1)
    }
}
