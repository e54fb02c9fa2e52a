// Set-Cookie headers and Netscape cookie files. The first input byte picks the mode.
// Properties: Set-Cookie parsing holds its size limits and the store's Cookie header never
// carries a CR or LF; a cookie file parsed, written and parsed again gives the same cookies
// (those the format can hold and that have not expired).
import FuzzSupport
import SwgetKit
import Foundation

let now = Date(timeIntervalSince1970: 1_700_000_000)
let url = URL(string: "https://www.example.com/a/b")

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(data, size))
    let mode = reader.byte()
    let text = String(decoding: reader.rest, as: UTF8.self)
    if mode & 1 == 0 {
        setCookie(text)
    } else {
        cookieFile(text)
    }
    return 0
}

func setCookie(_ text: String) {
    let headers = text.split(separator: "\n").map(String.init)
    for header in headers {
        guard let cookie = try? SetCookieParser.parse(header, now: now) else { continue }
        require(cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.maxNameValueBytes, "name+value too long")
    }
    guard let url else { return }
    let storage = CookieStorage()
    _ = storage.setCookies(from: headers, for: url, mainDocumentURL: url)
    if let header = storage.cookieHeader(for: url) {
        require(!header.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "CR/LF/NUL in Cookie header")
    }
}

func cookieFile(_ text: String) {
    let first = NetscapeCookieFile.parse(text, now: now)
    let written = NetscapeCookieFile.serialize(first.cookies, includeSessionCookies: true, now: now)
    let second = NetscapeCookieFile.parse(written, now: now)
    require(second.warnings.isEmpty, "own file has warnings: \(second.warnings)")
    let kept = first.cookies.filter { cookie in
        !cookie.isExpired(at: now) && !cookie.domain.hasPrefix("#")
            && ![cookie.domain, cookie.path, cookie.name, cookie.value].contains { $0.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } }
    }
    require(second.cookies == kept, "round trip changed the cookies:\n\(kept)\n\(second.cookies)")
}

runFuzzer(fuzzOne)
