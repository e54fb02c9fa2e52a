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
        guard parts.day <= CivilCalendar.daysInMonth(parts.month, year: parts.year) else { return nil }
        let days = CivilCalendar.daysFromEpoch(year: parts.year, month: parts.month, day: parts.day)
        let seconds = days * 86_400 + Int64(parts.hour * 3600 + parts.minute * 60 + parts.second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `date` as an IMF-fixdate (`Wed, 09 Jun 2021 10:18:14 GMT`, RFC 9110 §5.6.7), the form servers
    /// should send and logs show; seconds are truncated. Years outside 1–9999 are clamped.
    public static func format(_ date: Date) -> String { CivilCalendar.imfFixdate(date) }

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
}
