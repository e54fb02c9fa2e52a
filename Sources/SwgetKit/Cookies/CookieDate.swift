#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The cookie-date algorithm of RFC 6265bis §5.1.1, step by step, over bytes; no date formatter.
///
/// It accepts what servers really send, e.g. `Wed, 09 Jun 2021 10:18:14 GMT` (IMF-fixdate),
/// `Wednesday, 09-Jun-21 10:18:14 GMT` (RFC 850), `Wed Jun  9 10:18:14 2021` (asctime), and garbage around
/// the tokens: the string is cut into date-tokens at delimiters, and the first token that looks like a
/// time, a day of month, a month and a year wins for each. Two-digit years 70–99 mean 19xx, 00–69 mean
/// 20xx. The result is rejected when a part is missing or out of range (day 1–31, year ≥ 1601, hour ≤ 23,
/// minute and second ≤ 59) or names no real day (`30 Feb`). Time zones are ignored: cookie dates are UTC.
public enum CookieDate {
    /// The date written by `string`, or nil when the algorithm rejects it.
    public static func parse(_ string: some StringProtocol) -> Date? {
        guard let parts = components(Array(string.utf8)) else { return nil }
        return date(parts)
    }

    /// The broken-down date found by the algorithm (steps 1–5), before step 6 checks that it exists.
    struct Components: Equatable, Sendable {
        /// Four-digit year, at least 1601.
        var year: Int
        /// 1–12.
        var month: Int
        /// 1–31 (not yet checked against the month).
        var day: Int
        /// 0–23.
        var hour: Int
        /// 0–59.
        var minute: Int
        /// 0–59.
        var second: Int
    }

    /// Steps 1–5: tokens, the four productions in their order, the two-digit year rule, range checks.
    static func components(_ bytes: [UInt8]) -> Components? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var index = 0
        while index < bytes.count {
            // Step 1: date-tokens are runs of non-delimiters.
            while index < bytes.count, isDelimiter(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
            guard index > start else { break }
            let token = bytes[start..<index]
            // Step 2: the first match in this order wins; each production is used once.
            if time == nil, let found = matchTime(token) {
                time = found
            } else if day == nil, let found = matchDigits(token, min: 1, max: 2) {
                day = found
            } else if month == nil, let found = matchMonth(token) {
                month = found
            } else if year == nil, let found = matchDigits(token, min: 2, max: 4) {
                year = found
            }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        // Steps 3 and 4: two-digit years.
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        // Step 5: range checks.
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        return Components(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Step 6: the UTC date of `parts`, or nil when that day does not exist.
    static func date(_ parts: Components) -> Date? {
        guard parts.day <= daysInMonth(parts.month, year: parts.year) else { return nil }
        let days = daysFromEpoch(year: parts.year, month: parts.month, day: parts.day)
        let seconds = days * 86_400 + Int64(parts.hour * 3600 + parts.minute * 60 + parts.second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `date` as an IMF-fixdate (`Wed, 09 Jun 2021 10:18:14 GMT`, RFC 9110 §5.6.7), the form servers
    /// should send and logs show; seconds are truncated. Years outside 1–9999 are clamped.
    public static func format(_ date: Date) -> String {
        let clamped = min(max(date.timeIntervalSince1970, -62_135_596_800), 253_402_300_799)
        let total = Int64(clamped.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = Int(total - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday (index 4 from Sunday)
        return "\(weekdayNames[weekday]), \(pad(day, 2)) \(monthNames[month - 1]) \(pad(year, 4)) "
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)) GMT"
    }

    // MARK: - The grammar of §5.1.1

    /// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `min*maxDIGIT [ non-digit *OCTET ]`: the value of the leading digits, when there are min to max of
    /// them and they are followed by the end or by a non-digit.
    static func matchDigits(_ token: ArraySlice<UInt8>, min: Int, max: Int) -> Int? {
        var value = 0
        var count = 0
        var index = token.startIndex
        while index < token.endIndex, isDigit(token[index]) {
            count += 1
            guard count <= max else { return nil }
            value = value * 10 + Int(token[index] - 0x30)
            index += 1
        }
        return count >= min ? value : nil
    }

    /// `time = hms-time [ non-digit *OCTET ]`, `hms-time = time-field ":" time-field ":" time-field`,
    /// `time-field = 1*2DIGIT`.
    static func matchTime(_ token: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        var fields: [Int] = []
        var index = token.startIndex
        for position in 0..<3 {
            var value = 0
            var count = 0
            while index < token.endIndex, isDigit(token[index]) {
                count += 1
                guard count <= 2 else { return nil }
                value = value * 10 + Int(token[index] - 0x30)
                index += 1
            }
            guard count >= 1 else { return nil }
            fields.append(value)
            if position < 2 {
                guard index < token.endIndex, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    /// `month = ( "jan" / … / "dec" ) *OCTET`, case-insensitively: 1–12.
    static func matchMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let start = token.startIndex
        let prefix = [token[start] | 0x20, token[start + 1] | 0x20, token[start + 2] | 0x20]
        return monthPrefixes.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static let monthPrefixes: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
                                                   "oct", "nov", "dec"].map { Array($0.utf8) }
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    // MARK: - Proleptic Gregorian calendar arithmetic (UTC)

    static func isLeapYear(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given date (negative before it); Howard Hinnant's days_from_civil.
    static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysFromEpoch`: (year, month, day).
    static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
