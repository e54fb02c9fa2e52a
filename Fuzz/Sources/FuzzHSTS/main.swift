// Strict-Transport-Security headers and wget's HSTS file. Properties: a parsed header's max-age
// is within its bound; an HSTS file parsed, written and parsed again gives the same entries.
import FuzzSupport
import SwgetKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(data, size))
    let mode = reader.byte()
    let bytes = reader.rest
    if mode & 1 == 0 {
        if let policy = try? StrictTransportSecurity(parsing: String(decoding: bytes, as: UTF8.self)) {
            require(policy.maxAge >= 0 && policy.maxAge <= StrictTransportSecurity.maximumMaxAge, "max-age \(policy.maxAge)")
        }
    } else {
        let first = HSTSFile.parse(bytes)
        require(first.warnings.count <= HSTSFile.maximumWarnings, "too many warnings")
        let second = HSTSFile.parse(Array(HSTSFile.serialize(first.entries).utf8))
        require(second.warnings.isEmpty, "own file has warnings: \(second.warnings)")
        require(counted(second.entries) == counted(first.entries), "round trip changed the entries")
    }
    return 0
}

func counted(_ entries: [HSTSStore.Entry]) -> [HSTSStore.Entry: Int] {
    entries.reduce(into: [:]) { $0[$1, default: 0] += 1 }
}

runFuzzer(fuzzOne)
