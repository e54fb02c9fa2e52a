import SwgetKit

/// Content-Range as the resume negotiation reads it, and the Range/If-Range answer of a protocol
/// handler. Properties: a parsed range is ordered and inside its total; an answer's body length
/// lies within the resource and its Content-Range, when present, parses back.
enum ContentRangeProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        var reader = FuzzReader(input)
        let length = Int64(reader.byte()) << 16 | Int64(reader.byte()) << 8 | Int64(reader.byte())
        let matches = reader.byte() & 1 == 1
        let value = text(reader.rest)
        if let range = FuzzEntry.contentRange(value) {
            if let first = range.first, let last = range.last { try require(first <= last, "first > last in \(value.debugDescription)") }
            if let last = range.last, let total = range.total { try require(last < total, "last >= total in \(value.debugDescription)") }
            try require(range.first != nil || range.total != nil, "neither range nor total in \(value.debugDescription)")
        }
        let parts = value.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        var headers = HeaderFields()
        headers.add("Range", String(parts[0]))
        if parts.count > 1 { headers.add("If-Range", String(parts[1])) }
        let answer = FuzzEntry.rangeAnswer(headers: headers, length: length, validatorMatches: matches)
        try require(answer.bodyLength >= 0 && answer.bodyLength <= length, "body length \(answer.bodyLength) of \(length)")
        if let field = answer.contentRange {
            try require(FuzzEntry.contentRange(field) != nil, "own Content-Range \(field) does not parse")
        }
    }
}
