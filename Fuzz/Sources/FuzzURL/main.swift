// URLs as typed (TypedURL, with IDN hosts). Properties: the wire form is printable ASCII; typing
// the wire form again gives the same wire form; IDN's ASCII form fits DNS limits.
import FuzzSupport
import SwgetKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    if let ascii = try? IDN.toASCII(text) {
        require(ascii.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "non-ASCII IDN result \(ascii.debugDescription)")
        require(ascii.utf8.count <= IDN.maxHostBytes, "IDN result too long")
        _ = IDN.toUnicode(ascii)
    }
    _ = IDN.toUnicode(text)
    guard let url = try? TypedURL(text) else { return 0 }
    require(url.wire.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "non-printable wire form \(url.wire.debugDescription)")
    guard let again = try? TypedURL(url.wire) else {
        require(false, "wire form \(url.wire.debugDescription) does not parse")
        return 0
    }
    require(again.wire == url.wire, "wire form not stable: \(url.wire.debugDescription) -> \(again.wire.debugDescription)")
    return 0
}

runFuzzer(fuzzOne)
