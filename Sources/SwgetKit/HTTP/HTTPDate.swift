#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 requires senders to use.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
              let month = months.firstIndex(of: parts[2].lowercased()), let year = Int(parts[3]) else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let h = Int(clock[0]), let m = Int(clock[1]), let s = Int(clock[2]),
              (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(s) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm), no calendar objects needed.
        let y = month < 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 10) % 12  // month is 0-based here
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + h * 3600 + m * 60 + s))
    }
}
