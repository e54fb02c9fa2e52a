/// The HTML page a directory URL is saved as, modelled on wget's `index.html` for FTP
/// directories (`ftp_index` in wget's ftp-ls.c): one line per entry with its date, kind, a link
/// and its size. Pure: entries in, bytes out.
///
/// Names are escaped for HTML (`&`, `<`, `>`, `"`, `'`) and percent-encoded in links (everything
/// but RFC 3986 unreserved characters), so a hostile name cannot break out of the page. Links are
/// absolute `ftp://` (or `ftps://`) URLs without the user's credentials.
enum FTPDirectoryIndex {
    /// The page for `entries` of `directory` (decoded, "/"-joined, "" for the login directory) on
    /// `scheme://authority` ("ftp", "host:21").
    static func html(entries: [FTPListEntry], scheme: String, authority: String, directory: String) -> [UInt8] {
        let shownDirectory = "/" + directory
        let title = "Index of \(escape(shownDirectory)) on \(escape(authority))"
        var base = "\(scheme)://\(authority)/"
        if !directory.isEmpty {
            base += directory.split(separator: "/", omittingEmptySubsequences: false).map { percentEncode(String($0)) }
                .joined(separator: "/") + "/"
        }
        var lines = [
            "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\">", "<html>", "<head>",
            "<title>\(title)</title>", "</head>", "<body>", "<h1>\(title)</h1>", "<hr>", "<pre>",
        ]
        for entry in entries.sorted(by: { $0.name < $1.name }) {
            lines.append(line(entry, base: base))
        }
        lines += ["</pre>", "</body>", "</html>", ""]
        return Array(lines.joined(separator: "\n").utf8)
    }

    private static func line(_ entry: FTPListEntry, base: String) -> String {
        let date = entry.modified.map(dateText) ?? String(repeating: " ", count: 17)
        let isDirectory = entry.kind == .directory
        let href = base + percentEncode(entry.name) + (isDirectory ? "/" : "")
        var text = "  \(date)  \(kindText(entry.kind).padding(10))  <a href=\"\(escape(href))\">\(escape(entry.name))\(isDirectory ? "/" : "")</a>"
        if case .symlink(let target?) = entry.kind { text += " -> \(escape(target))" }
        if entry.kind == .file, let size = entry.size { text += "  (\(size) bytes)" }
        return text
    }

    private static func kindText(_ kind: FTPListEntry.Kind) -> String {
        switch kind {
        case .file: "File"
        case .directory: "Directory"
        case .symlink: "Link"
        case .other, .unknown: "Other"
        }
    }

    /// "2024 Jan 02 03:04" (UTC for MLSD, the server's clock for LIST).
    private static func dateText(_ time: FTPTimestamp) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(time.year) \(months[max(0, min(11, time.month - 1))]) \(two(time.day)) \(two(time.hour)):\(two(time.minute))"
    }

    /// `text` safe inside HTML text and double- or single-quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters would garble a terminal that shows the page.
                if scalar.value < 0x20 || scalar.value == 0x7F { out += "?" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// `text` with every byte but RFC 3986's unreserved ones (ALPHA DIGIT - . _ ~) as %XX.
    static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: out.append(byte)
            default: out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// The string padded with spaces to `width` characters (never cut).
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
