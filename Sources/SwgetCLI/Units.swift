/// Human-readable sizes, rates and durations for progress lines and summaries (binary units,
/// as wget prints them).
enum Units {
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var index = 0
        while value >= 1024 && index < units.count - 1 {
            value /= 1024
            index += 1
        }
        if index == 0 { return "\(count) B" }
        return "\(fixed(value, digits: value < 10 ? 2 : 1)) \(units[index])"
    }

    static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "--.- B/s" }
        return bytes(Int64(bytesPerSecond)) + "/s"
    }

    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--" }
        if seconds < 10 { return fixed(seconds, digits: 1) + "s" }
        let total = Int(seconds.rounded())
        let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60)
        if h > 0 { return "\(h)h\(pad(m))m" }
        if m > 0 { return "\(m)m\(pad(s))s" }
        return "\(s)s"
    }

    static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((value * scale).rounded())
        let whole = scaled / Int64(scale), fraction = scaled % Int64(scale)
        guard digits > 0 else { return "\(whole)" }
        let fractionText = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }

    /// Parses a size as curl and wget take it: bytes, or a number with a k, M, G or T suffix
    /// (binary multiples; "1.5M" works). Nil for anything else, zero or negative.
    static func parseSize(_ text: String) -> Int64? {
        var digits = Substring(Substring(text).trimmingSpaces)
        var multiplier = 1.0
        if let last = digits.last, let power = ["k": 1, "m": 2, "g": 3, "t": 4][last.lowercased()] {
            multiplier = Double(1 << (10 * power))
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(digits), value > 0 else { return nil }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes >= 1, bytes < 9.2e18 else { return nil }
        return Int64(bytes)
    }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
