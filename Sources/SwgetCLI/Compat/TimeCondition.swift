#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwgetKit

/// curl's `--time-cond` (`-z`) value: a date, or a file whose modification time is the date,
/// with curl's sign: none or `+` asks for a file newer than the date (`If-Modified-Since`),
/// `-` for one not modified since (`If-Unmodified-Since`). As in curl, the text after the sign
/// is tried as a date first and then as a file name; unlike curl, which then drops the
/// condition with a warning, a value that is neither is a usage error.
struct TimeCondition: Sendable, Equatable {
    enum Direction: Sendable, Equatable {
        /// Download only when the server's file is newer than ``date``.
        case newer
        /// Download only when the server's file was not modified after ``date``.
        case older
    }

    var direction: Direction
    var date: Date

    init(direction: Direction, date: Date) {
        self.direction = direction
        self.date = date
    }

    /// Parses `value`; `modificationTime` gives a file's mtime, nil when there is no such file.
    init?(_ value: String, modificationTime: (String) -> Date?) {
        var text = Substring(value)
        direction = .newer
        if text.hasPrefix("-") {
            direction = .older
            text = text.dropFirst()
        } else if text.hasPrefix("+") {
            text = text.dropFirst()
        }
        guard !text.isEmpty else { return nil }
        if let date = CurlDate.parse(String(text)) {
            self.date = date
        } else if let date = modificationTime(String(text)) {
            self.date = date
        } else {
            return nil
        }
    }

    /// The request's condition (the library's cache policy).
    var cachePolicy: CachePolicy {
        switch direction {
        case .newer: .reloadRevalidatingCacheData(CacheValidator(lastModified: date))
        case .older: .reloadIfUnmodifiedSince(date)
        }
    }
}

/// The date forms `curl_getdate` is used with, in any order of their parts: RFC 1123
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`), asctime
/// (`Sun Nov  6 08:49:37 1994`), `6 Nov 1994`, `Nov 6, 1994 8:49`, ISO 8601
/// (`1994-11-06`, `1994-11-06T08:49:37Z`, `1994-11-06 08:49:37 +0100`) and `19941106`. A
/// date without a zone is GMT, as in curl; without a time it is midnight. Pure.
enum CurlDate {
    static func parse(_ text: String) -> Date? {
        var parts = Parts()
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
        guard !tokens.isEmpty, tokens.count <= 12 else { return nil }
        for token in tokens {
            guard parts.take(token) else { return nil }
        }
        return parts.date
    }

    /// The parts found so far; each may be given once.
    struct Parts {
        var year: Int?
        var month: Int?
        var day: Int?
        var time: (hour: Int, minute: Int, second: Int)?
        /// Seconds east of GMT.
        var offset: Int?

        static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

        /// Takes one token; false when it is not a date part or repeats one.
        mutating func take(_ token: Substring) -> Bool {
            let lower = token.lowercased()
            if token.allSatisfy({ $0.isASCII && $0.isLetter }) { return takeWord(lower) }
            if token.contains(":") && !token.contains("-") && !token.contains("T") { return takeTime(token) }
            if token.first == "+" || token.first == "-" { return takeOffset(token) }
            if token.contains("-") { return takeDashed(token) }
            guard token.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(token) else { return false }
            switch token.count {
            case 8:
                return set(\.year, number / 10000) && set(\.month, number / 100 % 100) && set(\.day, number % 100)
            case 4:
                return set(\.year, number)
            case 1, 2:
                if day == nil { return set(\.day, number) }
                return set(\.year, Self.fullYear(number))
            default:
                return false
            }
        }

        private mutating func takeWord(_ word: String) -> Bool {
            if word == "gmt" || word == "utc" || word == "ut" || word == "z" {
                guard offset == nil else { return false }
                offset = 0
                return true
            }
            if word.count >= 3, let index = Self.months.firstIndex(of: String(word.prefix(3))),
               Self.isName(word, of: ["january", "february", "march", "april", "may", "june", "july", "august",
                                      "september", "october", "november", "december"][index]) {
                return set(\.month, index + 1)
            }
            if word.count >= 3, let index = Self.weekdays.firstIndex(of: String(word.prefix(3))),
               Self.isName(word, of: ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"][index]) {
                return true  // the weekday says nothing the date does not
            }
            return false
        }

        /// `mon` or `monday`, not `monx`.
        private static func isName(_ word: String, of full: String) -> Bool {
            word.count == 3 || word == full
        }

        private mutating func takeTime(_ token: Substring) -> Bool {
            var clock = token
            var zone: Substring?
            if clock.hasSuffix("Z") || clock.hasSuffix("z") { clock = clock.dropLast(); zone = "Z" }
            let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
            guard time == nil, fields.count == 2 || fields.count == 3,
                  fields.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                  let hour = Int(fields[0]), let minute = Int(fields[1]) else { return false }
            let second = fields.count == 3 ? Int(fields[2]) ?? 99 : 0
            guard hour < 24, minute < 60, second < 61 else { return false }
            time = (hour, minute, min(second, 59))
            if zone != nil { return takeWord("z") }
            return true
        }

        private mutating func takeOffset(_ token: Substring) -> Bool {
            let digits = token.dropFirst().filter { $0 != ":" }
            guard offset == nil, digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(digits), value / 100 < 24, value % 100 < 60 else { return false }
            let seconds = (value / 100) * 3600 + (value % 100) * 60
            offset = token.first == "-" ? -seconds : seconds
            return true
        }

        /// `1994-11-06`, `1994-11-06T08:49:37Z` (or `+01:00`), `06-Nov-94`.
        private mutating func takeDashed(_ token: Substring) -> Bool {
            var datePart = token
            if let t = token.firstIndex(where: { $0 == "T" || $0 == "t" }) {
                datePart = token[..<t]
                var rest = token[token.index(after: t)...]
                if let sign = rest.firstIndex(where: { $0 == "+" || $0 == "-" }) {
                    guard takeOffset(rest[sign...]) else { return false }
                    rest = rest[..<sign]
                }
                guard takeTime(rest) else { return false }
            }
            let fields = datePart.split(separator: "-", omittingEmptySubsequences: false)
            guard fields.count == 3 else { return false }
            if fields[0].count == 4, let y = Int(fields[0]), let m = Int(fields[1]), let d = Int(fields[2]),
               fields[1].count == 2, fields[2].count == 2 {
                return set(\.year, y) && set(\.month, m) && set(\.day, d)
            }
            guard (1...2).contains(fields[0].count), let d = Int(fields[0]), takeWord(fields[1].lowercased()),
                  fields[2].allSatisfy({ $0.isASCII && $0.isNumber }), let y = Int(fields[2]),
                  fields[2].count == 2 || fields[2].count == 4 else { return false }
            return set(\.day, d) && set(\.year, fields[2].count == 2 ? Self.fullYear(y) : y)
        }

        private mutating func set(_ field: WritableKeyPath<Parts, Int?>, _ value: Int) -> Bool {
            guard self[keyPath: field] == nil else { return false }
            self[keyPath: field] = value
            return true
        }

        /// curl's rule for two-digit years: 70–99 are 19xx, the others 20xx.
        static func fullYear(_ year: Int) -> Int { year >= 70 ? 1900 + year : 2000 + year }

        /// The instant, when the parts make a real calendar date.
        var date: Date? {
            guard let year, let month, let day, (1970...9999).contains(year), (1...12).contains(month),
                  (1...Self.daysIn(month, of: year)).contains(day) else { return nil }
            let (hour, minute, second) = time ?? (0, 0, 0)
            let days = Self.daysSinceEpoch(year: year, month: month, day: day)
            let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - (offset ?? 0)
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }

        static func daysIn(_ month: Int, of year: Int) -> Int {
            switch month {
            case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
            case 4, 6, 9, 11: return 30
            default: return 31
            }
        }

        /// Days from 1970-01-01 to the date (Howard Hinnant's days_from_civil).
        static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }
    }
}
