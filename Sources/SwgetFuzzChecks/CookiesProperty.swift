import Foundation
import SwgetKit

/// Set-Cookie headers and Netscape cookie files. The first input byte picks the mode.
/// Properties: Set-Cookie parsing holds its size limits and the store's Cookie header never
/// carries a CR, LF or NUL; a cookie file parsed, written and parsed again gives the same cookies
/// (those the format can hold and that have not expired).
enum CookiesProperty {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        var reader = FuzzReader(input)
        let mode = reader.byte()
        if mode & 1 == 0 {
            try setCookie(text(reader.rest))
        } else {
            try cookieFile(text(reader.rest))
        }
    }

    static func setCookie(_ text: String) throws(PropertyFailure) {
        let headers = text.split(separator: "\n").map(String.init)
        for header in headers {
            guard let cookie = FuzzEntry.setCookie(header, now: now) else { continue }
            try require(cookie.name.utf8.count + cookie.value.utf8.count <= FuzzEntry.maxCookieNameValueBytes, "name+value too long")
        }
        guard let url = URL(string: "https://www.example.com/a/b") else { return }
        let storage = CookieStorage()
        _ = storage.setCookies(from: headers, for: url, mainDocumentURL: url)
        if let header = storage.cookieHeader(for: url) {
            try require(!header.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "CR/LF/NUL in Cookie header")
        }
    }

    static func cookieFile(_ text: String) throws(PropertyFailure) {
        let first = NetscapeCookieFile.parse(text, now: now)
        let written = NetscapeCookieFile.serialize(first.cookies, includeSessionCookies: true, now: now)
        let second = NetscapeCookieFile.parse(written, now: now)
        try require(second.warnings.isEmpty, "own file has warnings: \(second.warnings)")
        let kept = first.cookies.filter { cookie in
            !cookie.isExpired(at: now) && !cookie.domain.hasPrefix("#")
                && ![cookie.domain, cookie.path, cookie.name, cookie.value].contains { $0.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } }
        }
        try require(second.cookies == kept, "round trip changed the cookies:\n\(kept)\n\(second.cookies)")
    }
}
