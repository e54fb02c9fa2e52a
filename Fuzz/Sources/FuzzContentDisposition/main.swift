// Content-Disposition and the suggested file name. Property: whatever the header and URL, the
// name swget would save under has no path separator, no control character, is not "." or "..",
// and does not end in the reserved ".part" or ".swget" suffixes.
import FuzzSupport
import SwgetKit
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    // The header and a URL path, separated by the first newline.
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let header = String(parts[0])
    let path = parts.count > 1 ? String(parts[1]) : ""
    _ = ContentDisposition(header)
    let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
    if let name = FilenameSanitizer.sanitize(header) { checkName(name) }
    if let name = FilenameSanitizer.sanitize(path) { checkName(name) }
    guard let url = URL(string: "http://example.com/" + encoded) else { return 0 }
    let flag = header.utf8.count % 4
    let mime = ["text/html", "text/css", "application/json", nil][flag]
    for adjust in [false, true] {
        checkName(SuggestedFilename.make(contentDisposition: header, requestURL: url, finalURL: url, mimeType: mime,
                                         adjustsExtension: adjust))
    }
    checkName(SuggestedFilename.fromURL(url))
    return 0
}

func checkName(_ name: String) {
    require(!name.isEmpty, "empty name")
    require(name != "." && name != "..", "dot name \(name.debugDescription)")
    require(!name.contains("/"), "separator in \(name.debugDescription)")
    require(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control in \(name.debugDescription)")
    require(!name.hasSuffix(".part") && !name.hasSuffix(".swget"), "reserved suffix in \(name.debugDescription)")
    require(!name.hasPrefix("."), "hidden name \(name.debugDescription)")
    require(name.utf8.count <= FilenameSanitizer.maxNameBytes, "too long: \(name.utf8.count)")
}

runFuzzer(fuzzOne)
