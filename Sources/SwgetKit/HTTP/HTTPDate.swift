#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 requires senders to use.
enum HTTPDate {
    private static let monthNames: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map { Array($0.utf8) }

    /// The date, or nil when `text` is not six space-separated words `WDAY, DD MON YYYY
    /// HH:MM:SS GMT` (any weekday word, the month in any case, runs of spaces and of colons
    /// counting as one, a year from 1 to 9999). Read from the bytes in place: every downloaded file's `Last-Modified`
    /// passes here, and splitting it into strings cost more than the rest of a small file's
    /// bookkeeping.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        fields(bytes, separator: UInt8(ascii: " "), count: 6) { words in
            guard bytes[words[5]].elementsEqual("GMT".utf8),
                  let day = integer(bytes[words[1]]),
                  let month = monthNames.firstIndex(where: { name in
                      name.count == words[2].count && zip(name, bytes[words[2]]).allSatisfy { $0 == $1 | 0x20 }
                  }),
                  let year = integer(bytes[words[3]]) else { return nil }
            let time = UnsafeBufferPointer(rebasing: bytes[words[4]])
            return fields(time, separator: UInt8(ascii: ":"), count: 3) { clock in
                guard let h = integer(time[clock[0]]), let m = integer(time[clock[1]]), let s = integer(time[clock[2]]),
                      (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(s),
                      // Four digits, as the grammar says: a longer year overflowed the day count (a crash).
                      (1...9999).contains(year) else { return nil }
                let days = CivilCalendar.daysFromEpoch(year: year, month: month + 1, day: day)  // month is 0-based here
                return Date(timeIntervalSince1970: TimeInterval(days * 86400 + Int64(h * 3600 + m * 60 + s)))
            }
        }
    }

    /// `body` of exactly `count` non-empty runs of bytes between `separator`s, or nil. The runs
    /// are kept on the stack (two arrays per file's `Last-Modified` were two heap allocations).
    private static func fields<T>(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8, count: Int,
                                  _ body: (UnsafeBufferPointer<Range<Int>>) -> T?) -> T? {
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: count) { found -> T? in
            var runs = 0
            var start: Int?
            for index in bytes.indices {
                if bytes[index] == separator {
                    if let first = start {
                        guard runs < count else { return nil }
                        found.initializeElement(at: runs, to: first..<index)
                        runs += 1
                    }
                    start = nil
                } else if start == nil {
                    start = index
                }
            }
            if let first = start {
                guard runs < count else { return nil }
                found.initializeElement(at: runs, to: first..<bytes.count)
                runs += 1
            }
            return runs == count ? body(UnsafeBufferPointer(found)) : nil
        }
    }

    /// The bytes as `Int(_:)` reads a decimal: an optional sign, then digits only; nil on overflow.
    private static func integer(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var digits = bytes[...]
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let digit = Int(byte &- UInt8(ascii: "0"))
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return value
    }

    /// `date` as an IMF-fixdate (whole seconds, rounded down), for `If-Modified-Since`.
    static func format(_ date: Date) -> String { CivilCalendar.imfFixdate(date) }
}
