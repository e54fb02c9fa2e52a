/// A modification time as FTP servers state it, always in UTC: the `time-val` of MDTM replies and
/// MLSx `modify` facts, "YYYYMMDDHHMMSS" with an optional ".sss" fraction (RFC 3659 §2.3), or a
/// date read from a LIST line (minute precision, the year sometimes guessed).
///
/// Invariants: every field is in its calendar range (seconds up to 60 for a leap second, the day
/// within its month), the year in 1000...9999, the fraction at most 9 digits.
struct FTPTimestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// 1000...9999.
    let year: Int
    /// 1...12.
    let month: Int
    /// 1...28/29/30/31.
    let day: Int
    /// 0...23.
    let hour: Int
    /// 0...59.
    let minute: Int
    /// 0...60 (60: a leap second).
    let second: Int
    /// The fraction's digits as sent ("123" for ".123"), or "" when there was none.
    let fraction: String

    /// A checked timestamp; nil when a field is out of range.
    init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: String = "") {
        guard (1000...9999).contains(year), (1...12).contains(month), (1...CivilCalendar.daysInMonth(month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              fraction.utf8.count <= 9, fraction.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fraction = fraction
    }

    /// Parses a time-val (RFC 3659 §2.3): exactly 14 digits, then optionally "." and 1–9 digits.
    /// Rejects the "19100…" years of old servers' Y2K bug, signs, spaces and anything longer.
    init?(timeVal: some StringProtocol) {
        let bytes = Array(timeVal.utf8)
        guard bytes.count >= 14, bytes.count <= 24, bytes.prefix(14).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var fraction = ""
        if bytes.count > 14 {
            let rest = bytes.dropFirst(15)
            guard bytes[14] == 0x2E, !rest.isEmpty, rest.count <= 9, rest.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            fraction = String(decoding: rest, as: UTF8.self)
        }
        func number(_ start: Int, _ count: Int) -> Int {
            bytes[start..<start + count].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        self.init(year: number(0, 4), month: number(4, 2), day: number(6, 2), hour: number(8, 2), minute: number(10, 2),
                  second: number(12, 2), fraction: fraction)
    }

    /// The timestamp of `secondsSince1970` (UTC); nil outside the years 1000...9999.
    init?(secondsSince1970 seconds: Int64) {
        // Years 1000...9999 lie well within ±4e11 seconds; beyond, the arithmetic could overflow.
        guard seconds > -400_000_000_000, seconds < 400_000_000_000 else { return nil }
        let (days, rest) = CivilCalendar.split(seconds)
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        self.init(year: year, month: month, day: day, hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60)
    }

    /// "YYYYMMDDHHMMSS", with ".fraction" when there was one: what MDTM would have said.
    var timeVal: String {
        let pad = CivilCalendar.pad
        let base = pad(year, 4) + pad(month, 2) + pad(day, 2) + pad(hour, 2) + pad(minute, 2) + pad(second, 2)
        return fraction.isEmpty ? base : base + "." + fraction
    }

    var description: String { timeVal }

    /// Seconds since 1970-01-01T00:00:00Z (a leap second counts as the next minute's first).
    var secondsSince1970: Int64 {
        CivilCalendar.daysFromEpoch(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// True when both name the same second (fractions ignored): how a resume compares MDTM values.
    func sameSecond(as other: FTPTimestamp) -> Bool {
        secondsSince1970 == other.secondsSince1970
    }

    /// Ordered by the second, then by the fraction's digits.
    static func < (lhs: FTPTimestamp, rhs: FTPTimestamp) -> Bool {
        (lhs.secondsSince1970, lhs.fraction) < (rhs.secondsSince1970, rhs.fraction)
    }
}
