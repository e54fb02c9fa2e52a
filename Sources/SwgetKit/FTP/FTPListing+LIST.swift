/// LIST lines, which RFC 959 leaves unspecified: the two formats nearly every server writes.
///
/// Unix (`ls -l`: vsftpd, ProFTPD, pure-ftpd, most others):
/// `-rw-r--r--   1 owner group   1234 Jan 01 12:00 name` — a date with a time (the last six
/// months, year guessed) or with a year; `ls --time-style=long-iso` dates (`2020-01-31 12:00`);
/// a missing group column; ACL marks after the mode (`-rw-r--r--+`); symlinks
/// `name -> target`; devices with `major, minor` instead of a size. The name is everything after
/// the single space that follows the date, so names with spaces survive (leading spaces do not).
///
/// Windows/IIS (MS-DOS style): `01-31-20  12:00PM  <DIR>  name` or `... 1234 name`, two- or
/// four-digit years (two-digit: below 70 is 20xx, as wget reads them), 12- or 24-hour times.
extension FTPListing {
    /// One LIST line as an entry; nil when it is neither format, or names "." / ".." / a path.
    static func parseLIST(_ line: String, now: FTPTimestamp) -> FTPListEntry? {
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let first = tokens.first else { return nil }
        if let byte = first.utf8.first, byte >= 0x30 && byte <= 0x39 {
            return parseWindows(line, tokens)
        }
        return parseUnix(line, tokens, now: now)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func parseUnix(_ line: String, _ tokens: [Substring], now: FTPTimestamp) -> FTPListEntry? {
        let mode = tokens[0]
        guard mode.utf8.count >= 10, let type = mode.first, "-dlcbpsD".contains(type),
              mode.utf8.dropFirst().prefix(9).allSatisfy({ "rwxsStTlL-".containsByte($0) }) else { return nil }
        // The date is the first month-day-(time|year) group (or long-iso date-time) after the
        // link count, preceded by a size or a device's "major, minor".
        var index = 2
        while index + 1 < tokens.count {
            if let (date, approximate, last) = unixDate(tokens, at: index, now: now) {
                let sizeToken = tokens[index - 1]
                // "1, 3" or "1,3": a device's major and minor numbers stand where the size would.
                let isDevice = sizeToken.contains(",") || (index >= 3 && tokens[index - 2].hasSuffix(",") && decimal(sizeToken) != nil)
                let size = isDevice ? nil : decimal(sizeToken)
                guard size != nil || isDevice else {
                    index += 1
                    continue
                }
                var rest = line[tokens[last].endIndex...]
                guard rest.first == " " || rest.first == "\t" else { return nil }
                rest = rest.dropFirst()
                var name = String(rest)
                var kind: FTPListEntry.Kind
                switch type {
                case "-": kind = .file
                case "d": kind = .directory
                case "l":
                    kind = .symlink(target: nil)
                    if let arrow = name.firstRange(of: " -> ") {
                        let target = String(name[arrow.upperBound...])
                        name = String(name[..<arrow.lowerBound])
                        kind = .symlink(target: target.isEmpty ? nil : target)
                    }
                default: kind = .other(String(type))
                }
                guard isBareName(name) else { return nil }
                return FTPListEntry(name: name, kind: kind, size: size, modified: date,
                                    modifiedIsApproximate: approximate, permissions: String(mode))
            }
            index += 1
        }
        return nil
    }

    /// A Unix date starting at `tokens[index]`: the timestamp (nil when the fields do not form a
    /// valid date, e.g. Feb 29 in a guessed non-leap year), whether it is approximate, and the
    /// index of its last token. nil when no date starts there.
    private static func unixDate(_ tokens: [Substring], at index: Int, now: FTPTimestamp)
        -> (FTPTimestamp?, Bool, Int)? {
        let token = tokens[index]
        if let month = months.firstIndex(of: token.lowercased()), index + 2 < tokens.count {
            guard let day = smallNumber(tokens[index + 1], digits: 2), (1...31).contains(day) else { return nil }
            let third = tokens[index + 2]
            if let (hour, minute) = clock(third) {
                // Within the last six months: this year, unless that lies in the future.
                var year = now.year
                if let date = FTPTimestamp(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: 0),
                   date.secondsSince1970 > now.secondsSince1970 + 86_400 {
                    year -= 1
                }
                return (FTPTimestamp(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: 0), true, index + 2)
            }
            if let year = smallNumber(third, digits: 4), third.utf8.count == 4 {
                return (FTPTimestamp(year: year, month: month + 1, day: day, hour: 0, minute: 0, second: 0), true, index + 2)
            }
            return nil
        }
        // ls --time-style=long-iso: 2020-01-31 12:00
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 4, index + 1 < tokens.count,
              let year = smallNumber(parts[0], digits: 4), let month = smallNumber(parts[1], digits: 2),
              let day = smallNumber(parts[2], digits: 2), let (hour, minute) = clock(tokens[index + 1]) else { return nil }
        return (FTPTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: 0), true, index + 1)
    }

    private static func parseWindows(_ line: String, _ tokens: [Substring]) -> FTPListEntry? {
        guard tokens.count >= 4 else { return nil }
        let dateParts = tokens[0].split(separator: "-", omittingEmptySubsequences: false)
        guard dateParts.count == 3, let month = smallNumber(dateParts[0], digits: 2), let day = smallNumber(dateParts[1], digits: 2),
              dateParts[2].utf8.count == 2 || dateParts[2].utf8.count == 4, var year = smallNumber(dateParts[2], digits: 4) else {
            return nil
        }
        if dateParts[2].utf8.count == 2 { year += year < 70 ? 2000 : 1900 }
        var timeToken = tokens[1]
        var next = 2
        var meridiem: Substring = ""
        let upper = timeToken.uppercased()
        if upper.hasSuffix("AM") || upper.hasSuffix("PM") {
            meridiem = upper.suffix(2)[...]
            timeToken = timeToken.dropLast(2)
        } else if ["AM", "PM"].contains(tokens[2].uppercased()) {
            meridiem = tokens[2].uppercased()[...]
            next = 3
        }
        guard let (clockHour, minute) = clock(timeToken), next + 1 < tokens.count else { return nil }
        var hour = clockHour
        if !meridiem.isEmpty {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == "PM" ? 12 : 0)
        }
        let field = tokens[next]
        let kind: FTPListEntry.Kind
        let size: Int64?
        if field.uppercased() == "<DIR>" {
            kind = .directory
            size = nil
        } else if let bytes = decimal(field) {
            kind = .file
            size = bytes
        } else {
            return nil
        }
        let rest = line[field.endIndex...].drop(while: { $0 == " " || $0 == "\t" })
        let name = String(rest)
        // A date that is no date (month 13) means the line is not a listing line.
        guard isBareName(name), let date = FTPTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: 0) else {
            return nil
        }
        return FTPListEntry(name: name, kind: kind, size: size, modified: date, modifiedIsApproximate: true)
    }

    /// "H:MM" or "HH:MM" (24-hour range checked by the timestamp).
    private static func clock(_ token: Substring) -> (Int, Int)? {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].utf8.count == 2, let hour = smallNumber(parts[0], digits: 2),
              let minute = smallNumber(parts[1], digits: 2), hour <= 23, minute <= 59 else { return nil }
        return (hour, minute)
    }

    /// A decimal of 1...`digits` digits.
    private static func smallNumber(_ token: Substring, digits: Int) -> Int? {
        guard (1...digits).contains(token.utf8.count), token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(token)
    }
}
