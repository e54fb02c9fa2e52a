#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The proleptic Gregorian calendar in UTC, as HTTP dates, cookie dates and FTP timestamps
/// count it: days since 1970-01-01 both ways (Howard Hinnant's `days_from_civil` and
/// `civil_from_days`), and the IMF-fixdate form that HTTP and cookies write.
enum CivilCalendar {
    static func isLeapYear(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given date (negative before it).
    static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysFromEpoch(year:month:day:)``: (year, month, day).
    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
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

    /// `seconds` since 1970 as (days since 1970, second of that day), rounding towards the past.
    static func split(_ seconds: Int64) -> (days: Int64, secondOfDay: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days, Int(seconds - days * 86_400))
    }

    /// `date` as an IMF-fixdate (`Wed, 09 Jun 2021 10:18:14 GMT`, RFC 9110 §5.6.7): seconds
    /// truncated, years outside 1–9999 clamped.
    static func imfFixdate(_ date: Date) -> String {
        let clamped = min(max(date.timeIntervalSince1970, -62_135_596_800), 253_402_300_799)
        let (days, secondOfDay) = split(Int64(clamped.rounded(.down)))
        let (year, month, day) = civil(fromDays: days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday (index 4 from Sunday)
        return "\(weekdayNames[weekday]), \(pad(day, 2)) \(monthNames[month - 1]) \(pad(year, 4)) "
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)) GMT"
    }

    /// `value` in decimal, zero-padded to `width` digits.
    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.utf8.count >= width ? digits : String(repeating: "0", count: width - digits.utf8.count) + digits
    }

    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
}
