// Content-Range as the resume negotiation reads it, and the Range/If-Range answer of a protocol
// handler. Properties: a parsed range is ordered and inside its total; an answer's body length
// lies within the resource and its Content-Range, when present, parses back.
import FuzzSupport
import SwgetKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(data, size))
    let length = Int64(reader.byte()) << 16 | Int64(reader.byte()) << 8 | Int64(reader.byte())
    let matches = reader.byte() & 1 == 1
    let text = String(decoding: reader.rest, as: UTF8.self)
    if let range = FuzzEntry.contentRange(text) {
        if let first = range.first, let last = range.last { require(first <= last, "first > last in \(text.debugDescription)") }
        if let last = range.last, let total = range.total { require(last < total, "last >= total in \(text.debugDescription)") }
        require(range.first != nil || range.total != nil, "neither range nor total in \(text.debugDescription)")
    }
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    var headers = HeaderFields()
    headers.add("Range", String(parts[0]))
    if parts.count > 1 { headers.add("If-Range", String(parts[1])) }
    let answer = FuzzEntry.rangeAnswer(headers: headers, length: length, validatorMatches: matches)
    require(answer.bodyLength >= 0 && answer.bodyLength <= length, "body length \(answer.bodyLength) of \(length)")
    if let field = answer.contentRange {
        require(FuzzEntry.contentRange(field) != nil, "own Content-Range \(field) does not parse")
    }
    return 0
}

runFuzzer(fuzzOne)
