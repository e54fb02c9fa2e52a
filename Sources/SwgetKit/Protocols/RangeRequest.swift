#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a handler needs to honour a resume: the first byte a request asks for with
/// `Range: bytes=N-` (RFC 9110 §14.2) and its `If-Range` validator (§13.1.5). This is the only
/// range form the download machinery sends to handlers (``ResumeNegotiation``); any other
/// (a closed range, several ranges, a suffix) is ignored, which RFC 9110 allows: the whole
/// representation is sent instead.
struct RangeRequest: Equatable, Sendable {
    /// The first byte asked for; 0 without a usable `Range`.
    let offset: Int64
    /// The `If-Range` value as sent (an entity tag or an HTTP date); nil when absent or when
    /// there is no range.
    let ifRange: String?

    /// Reads the fields of `headers`.
    init(_ headers: HeaderFields) {
        guard let value = headers["Range"], let offset = Self.openOffset(value) else {
            self.init(offset: 0, ifRange: nil)
            return
        }
        self.init(offset: offset, ifRange: headers["If-Range"]?.trimmingOWS)
    }

    init(offset: Int64, ifRange: String?) {
        self.offset = offset
        self.ifRange = offset > 0 ? ifRange : nil
    }

    /// N of `bytes=N-` (case-insensitive unit, blanks around the value allowed); nil for any
    /// other form or a number over 18 digits.
    static func openOffset(_ value: String) -> Int64? {
        let text = value.trimmingOWS
        guard text.utf8.count > 7, text.lowercased().hasPrefix("bytes="), text.hasSuffix("-") else { return nil }
        let digits = text.dropFirst(6).dropLast()
        guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(digits)
    }
}

/// How a handler of a resource of known length answers a ``RangeRequest``, as a pure decision,
/// and the header fields of each answer (the shapes ``ResumeNegotiation`` judges).
enum RangeAnswer: Equatable, Sendable {
    /// `200`: the whole resource.
    case whole
    /// `206`: from `offset` to the end.
    case partial(offset: Int64)
    /// `416`: nothing at or after the offset (the download machinery reads "complete" when the
    /// offset equals the length).
    case unsatisfiable

    /// The answer for `range` on a resource of `length` bytes; `validatorMatches` says whether
    /// the `If-Range` value (when there is one) names the resource as it is now.
    static func decide(_ range: RangeRequest, length: Int64, validatorMatches: Bool) -> RangeAnswer {
        guard range.offset > 0 else { return .whole }
        if range.ifRange != nil && !validatorMatches { return .whole }
        return range.offset < length ? .partial(offset: range.offset) : .unsatisfiable
    }

    /// The status code.
    var statusCode: Int {
        switch self {
        case .whole: 200
        case .partial: 206
        case .unsatisfiable: 416
        }
    }

    /// The reason phrase of ``statusCode``.
    var reasonPhrase: String {
        switch self {
        case .whole: "OK"
        case .partial: "Partial Content"
        case .unsatisfiable: "Range Not Satisfiable"
        }
    }

    /// The body length this answer carries for a resource of `length` bytes.
    func bodyLength(of length: Int64) -> Int64 {
        switch self {
        case .whole: length
        case .partial(let offset): max(0, length - offset)
        case .unsatisfiable: 0
        }
    }

    /// `Content-Length`, and `Content-Range` for 206 and 416 (RFC 9110 §14.4).
    func fields(length: Int64) -> HeaderFields {
        var fields = HeaderFields()
        fields.set("Content-Length", String(bodyLength(of: length)))
        switch self {
        case .whole: break
        case .partial(let offset): fields.set("Content-Range", "bytes \(offset)-\(length - 1)/\(length)")
        case .unsatisfiable: fields.set("Content-Range", "bytes */\(length)")
        }
        return fields
    }

    /// The response head for `url`, with `extra` fields (validators, type) added.
    func response(url: URL, length: Int64, extra: HeaderFields, headOnly: Bool = false) -> Response {
        var headers = fields(length: length)
        for field in extra { headers.set(field.name, field.value) }
        return Response(url: url, statusCode: statusCode, reasonPhrase: reasonPhrase, headers: headers,
                        expectedContentLength: headOnly ? 0 : bodyLength(of: length))
    }
}
