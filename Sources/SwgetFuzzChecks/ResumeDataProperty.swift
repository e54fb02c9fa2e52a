import SwgetKit

/// Resume state files (NAME.swget): JSON that a crash, another tool or an attacker may have left.
/// Properties: decoding never crashes; validation holds its documented invariants; a decoded
/// state serialises and decodes to the same value.
enum ResumeDataProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        guard let state = ResumeData(serialized: input) else { return }
        let again = ResumeData(serialized: state.serialized())
        try require(again == state, "round trip changed the state")
        for partLength in [Int64(0), state.bytesOnDisk, Int64.max] {
            guard case .success(let valid) = state.validated(partLength: partLength) else { continue }
            try require(valid.bytesOnDisk >= 0 && valid.bytesOnDisk <= partLength, "bytesOnDisk outside the part")
            if let length = valid.expectedLength { try require(valid.bytesOnDisk <= length, "bytesOnDisk past the length") }
            if let segments = valid.segments {
                var previous: Int64 = -1
                for range in segments {
                    try require(range.start > previous && range.start < range.end, "segments out of order")
                    previous = range.end
                }
            }
        }
    }
}
