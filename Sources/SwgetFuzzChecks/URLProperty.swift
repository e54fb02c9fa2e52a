import SwgetKit

/// URLs as typed (TypedURL, with IDN hosts). Properties: the wire form is printable ASCII; typing
/// the wire form again gives the same wire form; IDN's ASCII form fits DNS limits.
enum URLProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        let typed = text(input)
        if let ascii = try? IDN.toASCII(typed) {
            try require(ascii.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "non-ASCII IDN result \(ascii.debugDescription)")
            try require(ascii.utf8.count <= IDN.maxHostBytes, "IDN result too long")
            _ = IDN.toUnicode(ascii)
        }
        _ = IDN.toUnicode(typed)
        guard let url = try? TypedURL(typed) else { return }
        try require(url.wire.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "non-printable wire form \(url.wire.debugDescription)")
        guard let again = try? TypedURL(url.wire) else {
            throw PropertyFailure(message: "wire form \(url.wire.debugDescription) does not parse", file: #fileID, line: #line)
        }
        try require(again.wire == url.wire, "wire form not stable: \(url.wire.debugDescription) -> \(again.wire.debugDescription)")
    }
}
