import Foundation
import SwgetKit

/// Content-Disposition and the suggested file name. Property: whatever the header and URL, the
/// name swget would save under has no path separator, no control character, is not "." or "..",
/// is not hidden, fits a file name, and does not end in the reserved ".part" or ".swget" suffixes.
enum ContentDispositionProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        // The header and a URL path, separated by the first newline.
        let parts = text(input).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let header = String(parts[0])
        let path = parts.count > 1 ? String(parts[1]) : ""
        _ = ContentDisposition(header)
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
        if let name = FilenameSanitizer.sanitize(header) { try checkName(name) }
        if let name = FilenameSanitizer.sanitize(path) { try checkName(name) }
        guard let url = URL(string: "http://example.com/" + encoded) else { return }
        let mime = ["text/html", "text/css", "application/json", nil][header.utf8.count % 4]
        for adjust in [false, true] {
            try checkName(SuggestedFilename.make(contentDisposition: header, requestURL: url, finalURL: url, mimeType: mime,
                                                 adjustsExtension: adjust))
        }
        try checkName(SuggestedFilename.fromURL(url))
    }

    static func checkName(_ name: String) throws(PropertyFailure) {
        try require(!name.isEmpty, "empty name")
        try require(name != "." && name != "..", "dot name \(name.debugDescription)")
        try require(!name.contains("/"), "separator in \(name.debugDescription)")
        try require(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "control in \(name.debugDescription)")
        try require(!name.hasSuffix(".part") && !name.hasSuffix(".swget"), "reserved suffix in \(name.debugDescription)")
        try require(!name.hasPrefix("."), "hidden name \(name.debugDescription)")
        try require(name.utf8.count <= FilenameSanitizer.maxNameBytes, "too long: \(name.utf8.count)")
    }
}
