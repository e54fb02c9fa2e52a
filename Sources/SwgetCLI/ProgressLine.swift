/// One progress line: `name  43% [=======>          ] 431.2 MiB  112 MiB/s  eta 5s`, fitted to
/// a terminal width. A pure value: the reporter feeds it numbers, it returns text.
///
/// Bytes kept from an earlier run are drawn `+` (wget's convention), bytes of this run `=`;
/// the rate and ETA count only this run's bytes (the reporter's rate meter sees only those).
struct ProgressLine {
    var name: String
    var received: Int64
    var expected: Int64?
    var bytesPerSecond: Double
    var elapsed: Double
    /// Bytes that were already on disk when this run started.
    var resumedFrom: Int64 = 0
    /// Only ASCII characters (a non-UTF-8 locale).
    var ascii = false
    /// Columns for the name, so that the bars of a block line up (nil: the name's own width).
    var nameColumns: Int?

    /// The line, at most `width` columns wide (never wider, even for long names).
    func render(width: Int) -> String {
        let name = ascii ? asciiOnly(self.name) : self.name
        let size = Units.bytes(received)
        let rate = Units.rate(bytesPerSecond)
        guard let expected, expected > 0 else {
            // Unknown length: bytes, rate and elapsed time.
            let tail = "  \(size)  \(rate)  in \(Units.duration(elapsed))"
            return fit(name: name, tail: tail, width: width)
        }
        let fraction = min(1, Double(received) / Double(expected))
        let percent = "\(Int(fraction * 100))%".leftPadded(to: 4)
        let remaining = bytesPerSecond > 0 ? Double(expected - received) / bytesPerSecond : .infinity
        let eta = received >= expected ? "in \(Units.duration(elapsed))" : "eta \(Units.duration(remaining))"
        let numbers = "  \(size.leftPadded(to: 10))  \(rate.leftPadded(to: 12))  \(eta)"
        let nameWidth = min(nameColumns ?? displayWidth(name), max(8, width / 4))
        let barWidth = width - nameWidth - 1 - percent.count - 3 - numbers.count
        guard barWidth >= 5 else { return fit(name: name, tail: " \(percent)\(numbers)", width: width) }
        let filled = Int(fraction * Double(barWidth))
        let kept = min(filled, Int(min(1, Double(max(0, resumedFrom)) / Double(expected)) * Double(barWidth)))
        var bar = String(repeating: "+", count: kept) + String(repeating: "=", count: filled - kept)
        if filled < barWidth { bar += ">" + String(repeating: " ", count: barWidth - filled - 1) }
        return shorten(name, to: nameWidth, ascii: ascii) + " " + percent + " [" + bar + "]" + numbers
    }

    private func fit(name: String, tail: String, width: Int) -> String {
        let room = width - tail.count
        if room < 4 { return String(tail.prefix(max(0, width))) }
        return shorten(name, to: min(displayWidth(name), room), ascii: ascii) + tail
    }
}

/// The total line under several transfers: `Total  3/10 files  1.2 GiB of 4.0 GiB  45 MiB/s  eta 1m02s`.
struct TotalLine {
    var filesDone: Int
    var filesTotal: Int
    var received: Int64
    /// The sum of the announced lengths, when every active and finished transfer announced one.
    var expected: Int64?
    var bytesPerSecond: Double
    var elapsed: Double

    func render(width: Int) -> String {
        var text = "Total  \(filesDone)/\(filesTotal) files  \(Units.bytes(received))"
        if let expected, expected > 0 {
            text += " of \(Units.bytes(expected))  \(Units.rate(bytesPerSecond))"
            let remaining = bytesPerSecond > 0 ? Double(max(0, expected - received)) / bytesPerSecond : .infinity
            text += "  eta \(Units.duration(remaining))"
        } else {
            text += "  \(Units.rate(bytesPerSecond))  in \(Units.duration(elapsed))"
        }
        return displayWidth(text) <= width ? text : String(text.prefix(max(0, width)))
    }
}

/// `text` with every non-ASCII character shown as "?" (for a non-UTF-8 terminal).
func asciiOnly(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isASCII ? $0 : "?" }))
}

/// Columns a string takes on a terminal: East Asian wide characters and emoji take two.
func displayWidth(_ s: String) -> Int {
    s.unicodeScalars.reduce(0) { $0 + scalarWidth($1) }
}

private func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if v == 0 || (v < 32) || (0x7F..<0xA0).contains(v) { return 0 }
    if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark { return 0 }
    if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
        || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
        || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v) {
        return 2
    }
    return 1
}

/// `name` shortened in the middle with "…" (or "~" when only ASCII may be printed) to exactly
/// `width` columns (padded when shorter).
func shorten(_ name: String, to width: Int, ascii: Bool = false) -> String {
    let current = displayWidth(name)
    if current <= width { return name + String(repeating: " ", count: width - current) }
    guard width > 1 else { return String(repeating: ".", count: max(0, width)) }
    let scalars = Array(name.unicodeScalars)
    let keepHead = (width - 1) / 2, keepTail = width - 1 - keepHead
    var head = "", tail = ""
    var used = 0
    for s in scalars {
        let w = scalarWidth(s)
        if used + w > keepHead { break }
        head.unicodeScalars.append(s); used += w
    }
    used = 0
    for s in scalars.reversed() {
        let w = scalarWidth(s)
        if used + w > keepTail { break }
        tail.unicodeScalars.insert(s, at: tail.unicodeScalars.startIndex); used += w
    }
    let result = head + (ascii ? "~" : "…") + tail
    return result + String(repeating: " ", count: max(0, width - displayWidth(result)))
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
