import SwgetKit

/// What the body options ask for: the method, the body to send, and headers to add unless the
/// user set them (`--header` always wins). Made by `BodyArguments.plan()`; turned into a
/// `RequestBody` by `PlannedBody.requestBody(limit:read:standardInputStream:)`.
struct BodyPlan: Equatable, Sendable {
    /// A header the body implies.
    struct Header: Equatable, Sendable {
        let name: String
        let value: String
    }

    /// The request method (GET when no option sets one).
    var method: String
    /// The body, or nil for none.
    var body: PlannedBody?
    /// Content-Type (and Accept for `--json`) to send unless the user set them. A form's
    /// Content-Type is not here: it carries the boundary (`MultipartFormData.contentType`).
    var defaultHeaders: [Header] = []
    /// For `--upload-file FILE` (not standard input): the path whose name completes a URL ending
    /// in `/` (`BodyArguments.uploadURL(_:uploading:)`).
    var uploadPath: String?
}

/// Something a `--data`-family piece reads.
enum DataSource: Equatable, Sendable {
    /// A file, by path.
    case file(String)
    /// Standard input (fd 0).
    case standardInput
}

/// One `--data`-family option's contribution to the joined body.
struct DataPiece: Equatable, Sendable {
    /// Where the piece's bytes come from.
    enum Source: Equatable, Sendable {
        /// Given on the command line (already encoded for `--data-urlencode`'s inline forms).
        case literal([UInt8])
        /// `@FILE`: read whole; `strip` removes every CR, LF and NUL byte (`--data`, as curl 8).
        case file(path: String, strip: Bool)
        /// `@-`: standard input, read whole.
        case standardInput(strip: Bool)
        /// `--data-urlencode` `@file` / `name@file`: read whole, then encoded.
        case urlencode(FormURLEncoding.DataURLEncodeArgument)
    }

    /// What the piece reads.
    var source: Source
    /// `--json` pieces are appended without a `&`.
    var isJSON: Bool

    /// A piece from `source`; `isJSON` for `--json`.
    init(_ source: Source, isJSON: Bool) {
        self.source = source
        self.isJSON = isJSON
    }
}

/// The body a plan sends, before any file is read.
enum PlannedBody: Equatable, Sendable {
    /// Bytes known now (`--post-data`, inline `--data`s).
    case bytes([UInt8])
    /// A file streamed from disk with Content-Length (`--upload-file`, `--post-file`,
    /// `--body-file`, a lone `--data-binary @FILE` or `--json @FILE`); replayable.
    case file(path: String)
    /// Standard input streamed (chunked); cannot be replayed on a 307/308 or a retry.
    case standardInput
    /// `--data` pieces to read and join in memory (`join`), as curl does.
    case joined([DataPiece])
    /// A multipart form (`--form`).
    case form([FormField])

    /// The most bytes `join` (and standard input read for a form) may hold in memory: 1 GiB.
    static let defaultInMemoryLimit = 1 << 30

    /// True when sending it needs standard input.
    var readsStandardInput: Bool {
        switch self {
        case .bytes, .file: false
        case .standardInput: true
        case .joined(let pieces):
            pieces.contains { piece in
                switch piece.source {
                case .standardInput: true
                case .urlencode(let form): form.isStandardInput
                case .literal, .file: false
                }
            }
        case .form(let fields): fields.contains(where: \.readsStandardInput)
        }
    }

    /// Joins `pieces` as curl's `set_data` does: each piece's bytes (files and standard input
    /// through `read`, which should stop after `limit + 1` bytes), with `&` before every
    /// non-`--json` piece when the body so far is not empty. Throws `.tooLargeForMemory` beyond
    /// `limit`, and whatever `read` throws (an unreadable file: exit 3).
    static func join(_ pieces: [DataPiece], limit: Int = defaultInMemoryLimit, read: (DataSource) throws -> [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        for piece in pieces {
            let bytes: [UInt8]
            switch piece.source {
            case .literal(let literal): bytes = literal
            case .file(let path, let strip): bytes = strip ? stripped(try read(.file(path))) : try read(.file(path))
            case .standardInput(let strip): bytes = strip ? stripped(try read(.standardInput)) : try read(.standardInput)
            case .urlencode(let form):
                let raw = try read(form.isStandardInput ? .standardInput : .file(form.path ?? ""))
                guard raw.count <= limit else { throw BodyArgumentError.tooLargeForMemory(limit) }
                bytes = Array(form.encoded(content: raw).utf8)
            }
            let separator = !body.isEmpty && !piece.isJSON
            guard body.count + bytes.count + (separator ? 1 : 0) <= limit else { throw BodyArgumentError.tooLargeForMemory(limit) }
            if separator { body.append(UInt8(ascii: "&")) }
            body += bytes
        }
        return body
    }

    /// The `RequestBody` to send: files stay files (streamed, replayable); `--data` pieces and
    /// standard input inside a form are read now through `read` (bounded by `limit`); a streamed
    /// standard input comes from `standardInputStream` (e.g. a `BodyStream.once` over a
    /// NIOPipeBootstrap channel on fd 0). Throws `MultipartError`, `BodyArgumentError`, or what
    /// `read` throws.
    func requestBody(limit: Int = defaultInMemoryLimit, read: (DataSource) throws -> [UInt8],
                     standardInputStream: () -> BodyStream) throws -> RequestBody {
        switch self {
        case .bytes(let bytes): return .data(bytes)
        case .file(let path): return .file(path: path)
        case .standardInput: return .stream(standardInputStream())
        case .joined(let pieces): return .data(try Self.join(pieces, limit: limit, read: read))
        case .form(let fields):
            let parts = try fields.map { field in
                try field.part {
                    let bytes = try read(.standardInput)
                    guard bytes.count <= limit else { throw BodyArgumentError.tooLargeForMemory(limit) }
                    return bytes
                }
            }
            return .multipart(try MultipartFormData(parts: parts))
        }
    }

    /// The bytes without CR, LF and NUL (curl's `file2string`).
    static func stripped(_ bytes: [UInt8]) -> [UInt8] {
        bytes.filter { $0 != 0x0D && $0 != 0x0A && $0 != 0x00 }
    }
}

/// A body or method option that cannot be honoured. All but `tooLargeForMemory` are usage
/// errors (exit 2); `tooLargeForMemory` happens while reading files (exit 3 fits).
enum BodyArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Two options that set different bodies (or `--request` and `--method` disagreeing).
    case conflict(String, String)
    /// An option that may be given once.
    case repeated(String)
    /// `--body-data`/`--body-file` without `--method` (wget's rule).
    case methodRequired(String)
    /// A body with a HEAD request.
    case bodyWithHead(String)
    /// A method that is not an RFC 9110 token of at most 64 bytes.
    case invalidMethod(String)
    /// `@` or `--upload-file` with an empty file name.
    case emptyFileName(String)
    /// A `--form` argument curl's syntax does not allow (or swget does not support).
    case badFormField(String, reason: String)
    /// A body to hold in memory that is larger than the limit.
    case tooLargeForMemory(Int)

    /// True for mistakes on the command line (exit 2).
    var isUsageError: Bool {
        if case .tooLargeForMemory = self { return false }
        return true
    }

    /// One line, for the command's error message.
    var description: String {
        switch self {
        case .conflict(let a, let b): "\(a) and \(b) cannot be used together"
        case .repeated(let option): "\(option) can be given only once"
        case .methodRequired(let option): "\(option) needs a method: add --method=METHOD (or --request)"
        case .bodyWithHead(let option): "a HEAD request cannot send a body (\(option))"
        case .invalidMethod(let method): "invalid request method '\(method.debugDescription.dropFirst().dropLast())'"
        case .emptyFileName(let option): "\(option) needs a file name"
        case .badFormField(let field, let reason): "invalid --form field '\(field.debugDescription.dropFirst().dropLast())': \(reason)"
        case .tooLargeForMemory(let limit):
            "the request body is larger than \(limit) bytes; send a file with --data-binary @FILE or --upload-file FILE to stream it"
        }
    }
}
