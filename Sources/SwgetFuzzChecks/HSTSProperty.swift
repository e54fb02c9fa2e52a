import SwgetKit

/// Strict-Transport-Security headers and wget's HSTS file. Properties: a parsed header's max-age
/// is within its bound; an HSTS file parsed, written and parsed again gives the same entries.
enum HSTSProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        var reader = FuzzReader(input)
        let mode = reader.byte()
        let bytes = reader.rest
        if mode & 1 == 0 {
            if let policy = try? StrictTransportSecurity(parsing: text(bytes)) {
                try require(policy.maxAge >= 0 && policy.maxAge <= StrictTransportSecurity.maximumMaxAge, "max-age \(policy.maxAge)")
            }
        } else {
            let first = HSTSFile.parse(bytes)
            try require(first.warnings.count <= HSTSFile.maximumWarnings, "too many warnings")
            let second = HSTSFile.parse(Array(HSTSFile.serialize(first.entries).utf8))
            try require(second.warnings.isEmpty, "own file has warnings: \(second.warnings)")
            try require(counted(second.entries) == counted(first.entries), "round trip changed the entries")
        }
    }

    static func counted(_ entries: [HSTSStore.Entry]) -> [HSTSStore.Entry: Int] {
        entries.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }
}
