import SwgetKit

/// One `--form` / `--form-string` field, parsed as curl's `formparse()` and `get_param_part()`
/// do, turned into a `MultipartFormData.Part` by `part(standardInput:)`.
///
/// Syntax (`-F`): `name=content`, the name being everything before the first `=` (an empty
/// name sends no name parameter). The content is
/// - `@path`: a file upload (`filename` = the path's last component); `@-` reads standard input
///   (filename `-`);
/// - `<path`: the file's contents as the field's value (no filename); `<-` standard input;
/// - anything else: a text value.
///
/// then `;key=value` parameters: `type=major/minor` (what follows up to the next known key
/// belongs to the type, so `type=text/plain;charset=utf-8` is one type), `filename=NAME`.
/// A word may be double-quoted to hold `;` or `,`, with `\"` and `\\` as escapes inside the
/// quotes; an unquoted word loses its leading and trailing white space; a quote left open is
/// taken literally. `--form-string name=value` takes the value verbatim (no `@`, `<`, `;`).
///
/// Refused with a usage error (curl warns or builds something swget does not send):
/// several files in one field (`@a,b`), `headers=`, `encoder=`, unknown `;key=` parameters
/// (curl drops them with a warning; quote a value holding `;`), multipart/mixed groups (`(`,
/// `)`), a `filename=` on `<` contents, and a malformed `type=`.
struct FormField: Equatable, Sendable {
    /// Where the field's content comes from.
    enum Source: Equatable, Sendable {
        /// Text given on the command line.
        case value(String)
        /// `@path`: a file upload, streamed from disk.
        case file(path: String)
        /// `<path`: the file's contents as a value, streamed from disk.
        case fileContents(path: String)
        /// `@-`: standard input as a file upload (read into memory, as curl does for pipes).
        case standardInput
        /// `<-`: standard input as a value.
        case standardInputContents
    }

    /// The field name; nil for `=value`.
    var name: String?
    /// Where the content comes from.
    var source: Source
    /// `;filename=` as given; nil to use the default (the path's last component, `-` for stdin).
    var filename: String?
    /// `;type=` as given; nil to let `MultipartFormData.Part` choose.
    var contentType: String?

    /// A field as given (no parsing).
    init(name: String?, source: Source, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.source = source
        self.filename = filename
        self.contentType = contentType
    }

    /// Parses `argument` (`literal` for `--form-string`). Throws `.badFormField`.
    init(parsing argument: String, literal: Bool = false) throws(BodyArgumentError) {
        let bytes = Array(argument.utf8)
        let fail = { (reason: String) in BodyArgumentError.badFormField(argument, reason: reason) }
        guard let eq = bytes.firstIndex(of: UInt8(ascii: "=")) else { throw fail("expected name=content") }
        let name = eq == 0 ? nil : String(decoding: bytes[..<eq], as: UTF8.self)
        let content = Array(bytes[(eq + 1)...])
        if literal {
            self.init(name: name, source: .value(String(decoding: content, as: UTF8.self)))
            return
        }
        if content.first == UInt8(ascii: "(") || (name == nil && content == [UInt8(ascii: ")")]) {
            throw fail("multipart/mixed groups are not supported")
        }
        var scanner = FormFieldScanner(bytes: content)
        let kind = content.first
        if kind == UInt8(ascii: "@") || kind == UInt8(ascii: "<") { scanner.position = 1 }
        let params = try scanner.parameters(stopAtComma: kind == UInt8(ascii: "@"), fail: fail)
        switch kind {
        case UInt8(ascii: "@"):
            guard !scanner.stoppedAtComma else { throw fail("several files in one field are not supported; use one --form per file") }
            guard !params.word.isEmpty else { throw fail("missing file name after @") }
            self.init(name: name, source: params.word == "-" ? .standardInput : .file(path: params.word),
                      filename: params.filename, contentType: params.type)
        case UInt8(ascii: "<"):
            guard params.filename == nil else { throw fail("filename= cannot be used with <file") }
            guard !params.word.isEmpty else { throw fail("missing file name after <") }
            self.init(name: name, source: params.word == "-" ? .standardInputContents : .fileContents(path: params.word),
                      contentType: params.type)
        default:
            self.init(name: name, source: .value(params.word), filename: params.filename, contentType: params.type)
        }
    }

    /// The multipart part for this field. Standard input is read through `standardInput` (the
    /// caller bounds it); files are not read here (they stream at send time).
    func part(standardInput: () throws -> [UInt8]) throws -> MultipartFormData.Part {
        switch source {
        case .value(let text):
            return try .value(name: name, text, filename: filename, contentType: contentType)
        case .file(let path):
            return try .file(name: name, path: path, filename: filename, contentType: contentType)
        case .fileContents(let path):
            return try .fileContents(name: name, path: path, contentType: contentType)
        case .standardInput:
            return try .data(name: name, try standardInput(), filename: filename ?? "-", contentType: contentType)
        case .standardInputContents:
            return try .data(name: name, try standardInput(), contentType: contentType)
        }
    }

    /// True when the field reads standard input.
    var readsStandardInput: Bool { source == .standardInput || source == .standardInputContents }
}

/// curl's `get_param_part`, over bytes.
private struct FormFieldScanner {
    let bytes: [UInt8]
    var position = 0
    private(set) var stoppedAtComma = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    struct Parameters {
        var word: String
        var type: String?
        var filename: String?
    }

    mutating func parameters(stopAtComma: Bool, fail: (String) -> BodyArgumentError) throws(BodyArgumentError) -> Parameters {
        let end: UInt8? = stopAtComma ? UInt8(ascii: ",") : nil
        skipSpace()
        var result = Parameters(word: word(end: end))
        var typeRange: Range<Int>?
        var typeOpen = false   // later unknown ";..." text still belongs to the type
        while position < bytes.count && bytes[position] == UInt8(ascii: ";") {
            position += 1
            skipSpace()
            if !typeOpen && hasPrefix("type=") {
                position += 5
                skipSpace()
                let start = position
                let slash = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || isSpace($0) || $0 == UInt8(ascii: ";") || $0 == end }
                guard let slash, slash > start, bytes[slash] == UInt8(ascii: "/"), slash + 1 < bytes.count,
                      !isSpace(bytes[slash + 1]), bytes[slash + 1] != UInt8(ascii: ";"), bytes[slash + 1] != UInt8(ascii: ",") else {
                    throw fail("type= needs a content type like text/plain")
                }
                position = slash + 1
                typeRange = start..<extendType(from: start, end: end)
                typeOpen = true
            } else if hasPrefix("filename=") {
                typeOpen = false
                position += 9
                skipSpace()
                result.filename = word(end: end)
            } else if hasPrefix("headers=") || hasPrefix("encoder=") {
                throw fail("\(String(decoding: bytes[position..<(position + 7)], as: UTF8.self))= is not supported")
            } else if typeOpen, let range = typeRange {
                typeRange = range.lowerBound..<extendType(from: range.upperBound, end: end)
            } else {
                let rest = String(decoding: bytes[position...].prefix { $0 != UInt8(ascii: ";") && $0 != end }, as: UTF8.self)
                throw fail(rest.isEmpty ? "empty parameter after ';' (quote a value that holds ';')"
                                        : "unknown parameter '\(rest)' (quote a value that holds ';')")
            }
        }
        if let range = typeRange { result.type = String(decoding: bytes[range], as: UTF8.self) }
        stoppedAtComma = end != nil && position < bytes.count && bytes[position] == end
        return result
    }

    /// Moves to the next `;` or `end`, returning where the last non-space byte ended.
    private mutating func extendType(from start: Int, end: UInt8?) -> Int {
        var last = start
        while position < bytes.count && bytes[position] != UInt8(ascii: ";") && bytes[position] != end {
            if !isSpace(bytes[position]) { last = position + 1 }
            position += 1
        }
        return max(last, start)
    }

    /// A quoted or plain word (curl's `get_param_word`).
    private mutating func word(end: UInt8?) -> String {
        let start = position
        if position < bytes.count && bytes[position] == UInt8(ascii: "\"") {
            var out: [UInt8] = []
            var i = position + 1
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\\"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\\") || bytes[i + 1] == UInt8(ascii: "\"") {
                    out.append(bytes[i + 1])
                    i += 2
                    continue
                }
                if b == UInt8(ascii: "\"") {
                    position = i + 1
                    // Text between the closing quote and the next separator is dropped (curl).
                    while position < bytes.count && bytes[position] != UInt8(ascii: ";") && bytes[position] != end { position += 1 }
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(b)
                i += 1
            }
            position = start   // no closing quote: taken as a plain word
        }
        while position < bytes.count && bytes[position] != UInt8(ascii: ";") && bytes[position] != end { position += 1 }
        var last = position
        while last > start && isSpace(bytes[last - 1]) { last -= 1 }
        return String(decoding: bytes[start..<last], as: UTF8.self)
    }

    private func hasPrefix(_ text: String) -> Bool {
        let prefix = Array(text.utf8)
        guard bytes.count - position >= prefix.count else { return false }
        let lower = { (b: UInt8) in b >= 0x41 && b <= 0x5A ? b + 0x20 : b }
        return zip(bytes[position...], prefix).allSatisfy { lower($0) == $1 }
    }

    private mutating func skipSpace() {
        while position < bytes.count && isSpace(bytes[position]) { position += 1 }
    }

    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
}
