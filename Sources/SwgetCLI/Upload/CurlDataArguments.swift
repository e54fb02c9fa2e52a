import SwgetKit

/// One body option as typed on the command line. Kept in command-line order: curl joins its
/// `--data` family in that order.
enum BodyArgument: Equatable, Sendable {
    /// curl `-d`/`--data`/`--data-ascii`: `@FILE` reads the file without CR, LF and NUL bytes.
    case data(String)
    /// curl `--data-binary`: `@FILE` reads the file as it is.
    case dataBinary(String)
    /// curl `--data-raw`: a leading `@` is literal.
    case dataRaw(String)
    /// curl `--data-urlencode` (see `FormURLEncoding.DataURLEncodeArgument`).
    case dataURLEncode(String)
    /// curl `--json` (7.82): like `--data-binary`, joined without `&`, JSON headers.
    case json(String)
    /// curl `-F`/`--form`.
    case form(String)
    /// curl `--form-string`.
    case formString(String)
    /// curl `-T`/`--upload-file`; `-` or `.` is standard input.
    case uploadFile(String)
    /// wget `--post-data`, `--post-file`, `--body-data`, `--body-file`.
    case postData(String), postFile(String), bodyData(String), bodyFile(String)

    /// The option's long name, for messages.
    var option: String {
        switch self {
        case .data: "--data"
        case .dataBinary: "--data-binary"
        case .dataRaw: "--data-raw"
        case .dataURLEncode: "--data-urlencode"
        case .json: "--json"
        case .form: "--form"
        case .formString: "--form-string"
        case .uploadFile: "--upload-file"
        case .postData: "--post-data"
        case .postFile: "--post-file"
        case .bodyData: "--body-data"
        case .bodyFile: "--body-file"
        }
    }

    /// Options of one family build one body together; two families conflict.
    fileprivate var family: Int {
        switch self {
        case .data, .dataBinary, .dataRaw, .dataURLEncode, .json: 0
        case .form, .formString: 1
        case .uploadFile: 2
        case .postData, .postFile: 3
        case .bodyData, .bodyFile: 4
        }
    }
}

/// The body and method options of one command, to be turned into a `BodyPlan`.
///
/// Rules (curl's and wget's, merged where they do not clash):
/// - `--data`-family and `--json` options join into one body: a `&` goes before each piece but
///   `--json` ones when something non-empty precedes it (curl's `set_data`); `--json` anywhere
///   makes the Content-Type and Accept `application/json`, otherwise the Content-Type is
///   `application/x-www-form-urlencoded`. Method POST.
/// - `--form`/`--form-string` make a multipart/form-data body (its Content-Type comes from
///   `MultipartFormData.contentType`). Method POST.
/// - `--upload-file FILE` sends the file (PUT, no Content-Type); `-` or `.` is standard input; a
///   URL whose path ends in `/` gets the file's name (`uploadURL(_:uploading:)`).
/// - `--post-data`/`--post-file` (POST) and `--body-data`/`--body-file` (which need a method)
///   send the string or file as given, with `application/x-www-form-urlencoded` (wget). A
///   repeated wget option keeps its last value; `--post-data` with `--post-file` (or
///   `--body-data` with `--body-file`) is an error, as in wget.
/// - Options of two of these groups are an error (curl: "You can only select one HTTP request
///   method"). `--request` (sent verbatim) or `--method` (upper-cased, as wget does) override the
///   method (unlike wget, `--method` may also override `--post-data`'s POST); both given with
///   different values is an error. A body with HEAD (`head`, or the method) is an error.
struct BodyArguments: Equatable, Sendable {
    /// The body options, in command-line order.
    var arguments: [BodyArgument] = []
    /// curl `-X`/`--request`, sent as given.
    var request: String?
    /// wget `--method`, upper-cased.
    var method: String?
    /// A HEAD request was asked for (`--head`/`-I`, `--spider`).
    var head = false

    /// The longest method accepted (RFC 9110 sets none; a bound against hostile input).
    static let maxMethodBytes = 64

    /// Checks the combination and plans the request. Every error is a usage error (exit 2).
    func plan() throws(BodyArgumentError) -> BodyPlan {
        let families = Dictionary(grouping: arguments, by: \.family)
        if families.count > 1 {
            let firsts = families.values.compactMap(\.first).sorted { a, b in
                (arguments.firstIndex(of: a) ?? 0) < (arguments.firstIndex(of: b) ?? 0)
            }
            throw .conflict(firsts[0].option, firsts[1].option)
        }
        if let first = arguments.first, first.family >= 3, let other = arguments.first(where: { $0.option != first.option }) {
            throw .conflict(first.option, other.option)   // --post-data with --post-file, --body-data with --body-file
        }
        let explicit = try explicitMethod()
        var plan = BodyPlan(method: explicit ?? (head ? "HEAD" : "GET"))
        guard let first = arguments.first else { return plan }
        let urlencoded = BodyPlan.Header(name: "Content-Type", value: "application/x-www-form-urlencoded")
        switch first.family {
        case 0:
            plan.body = try Self.dataBody(arguments)
            plan.method = explicit ?? "POST"
            plan.defaultHeaders = arguments.contains(where: { if case .json = $0 { true } else { false } })
                ? [.init(name: "Content-Type", value: "application/json"), .init(name: "Accept", value: "application/json")]
                : [urlencoded]
        case 1:
            plan.body = .form(try arguments.map { argument throws(BodyArgumentError) -> FormField in
                if case .formString(let text) = argument { return try FormField(parsing: text, literal: true) }
                if case .form(let text) = argument { return try FormField(parsing: text) }
                return FormField(name: nil, source: .value(""))
            })
            plan.method = explicit ?? "POST"
        case 2:
            guard arguments.count == 1, case .uploadFile(let path) = first else { throw .repeated("--upload-file") }
            guard !path.isEmpty else { throw .emptyFileName("--upload-file") }
            let stdin = path == "-" || path == "."
            plan.body = stdin ? .standardInput : .file(path: path)
            plan.uploadPath = stdin ? nil : path
            plan.method = explicit ?? "PUT"
        default:
            guard let last = arguments.last else { return plan }
            switch last {
            case .postData(let text), .bodyData(let text): plan.body = .bytes(Array(text.utf8))
            case .postFile(let path), .bodyFile(let path):
                guard !path.isEmpty else { throw .emptyFileName(last.option) }
                plan.body = .file(path: path)
            default: break
            }
            if first.family == 4 && explicit == nil { throw .methodRequired(first.option) }
            plan.method = explicit ?? "POST"
            plan.defaultHeaders = [urlencoded]
        }
        if head || Self.isHead(plan.method) { throw .bodyWithHead(first.option) }
        return plan
    }

    /// `--request` verbatim or `--method` upper-cased, validated as an RFC 9110 token.
    private func explicitMethod() throws(BodyArgumentError) -> String? {
        let wget = method.map { String(decoding: $0.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self) }
        if let request, let wget, request != wget { throw .conflict("--request", "--method") }
        guard let chosen = request ?? wget else { return nil }
        let tchar = Set("!#$%&'*+-.^_`|~".utf8)
        guard (1...Self.maxMethodBytes).contains(chosen.utf8.count), chosen.utf8.allSatisfy({ b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || tchar.contains(b)
        }) else { throw .invalidMethod(chosen) }
        return chosen
    }

    private static func isHead(_ method: String) -> Bool {
        method.utf8.count == 4 && method.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }.elementsEqual("HEAD".utf8)
    }

    /// The `--data` family's body: bytes when everything is inline, a streamed file or standard
    /// input when a single `--data-binary`/`--json @FILE` is all there is, else pieces to join.
    private static func dataBody(_ arguments: [BodyArgument]) throws(BodyArgumentError) -> PlannedBody {
        var pieces: [DataPiece] = []
        for argument in arguments {
            switch argument {
            case .data(let text): pieces.append(try piece(text, option: argument.option, strip: true, json: false))
            case .dataBinary(let text): pieces.append(try piece(text, option: argument.option, strip: false, json: false))
            case .json(let text): pieces.append(try piece(text, option: argument.option, strip: false, json: true))
            case .dataRaw(let text): pieces.append(DataPiece(.literal(Array(text.utf8)), isJSON: false))
            case .dataURLEncode(let text):
                let form = FormURLEncoding.DataURLEncodeArgument(text)
                if let inline = form.encodedInline {
                    pieces.append(DataPiece(.literal(Array(inline.utf8)), isJSON: false))
                } else {
                    guard form.path?.isEmpty == false else { throw .emptyFileName(argument.option) }
                    pieces.append(DataPiece(.urlencode(form), isJSON: false))
                }
            default: break
            }
        }
        if pieces.count == 1, let only = pieces.first {
            switch only.source {
            case .file(let path, strip: false): return .file(path: path)
            case .standardInput(strip: false): return .standardInput
            default: break
            }
        }
        if pieces.allSatisfy({ if case .literal = $0.source { true } else { false } }) {
            let joined = try? PlannedBody.join(pieces) { (_: DataSource) throws -> [UInt8] in [] }
            return .bytes(joined ?? [])
        }
        return .joined(pieces)
    }

    private static func piece(_ text: String, option: String, strip: Bool, json: Bool) throws(BodyArgumentError) -> DataPiece {
        guard text.utf8.first == UInt8(ascii: "@") else { return DataPiece(.literal(Array(text.utf8)), isJSON: json) }
        let path = String(decoding: text.utf8.dropFirst(), as: UTF8.self)
        guard !path.isEmpty else { throw .emptyFileName(option) }
        return DataPiece(path == "-" ? .standardInput(strip: strip) : .file(path: path, strip: strip), isJSON: json)
    }

    /// curl's `add_file_name_to_url`: when `url`'s path is empty or ends in `/` and it has no
    /// query, the last component of `path` (after `/` or `\`), percent-encoded, is appended to
    /// the path (before any `#fragment`). Otherwise `url` is returned unchanged.
    static func uploadURL(_ url: String, uploading path: String) -> String {
        let name = String(decoding: path.utf8.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }.last ?? [], as: UTF8.self)
        guard !name.isEmpty else { return url }
        let bytes = Array(url.utf8)
        let scheme = bytes.indices.first { i in bytes[i...].starts(with: Array("://".utf8)) }
        let authorityStart = scheme.map { $0 + 3 } ?? 0
        let fragment = bytes[authorityStart...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        guard !bytes[authorityStart..<fragment].contains(UInt8(ascii: "?")) else { return url }
        let pathStart = bytes[authorityStart..<fragment].firstIndex(of: UInt8(ascii: "/")) ?? fragment
        var insert = Array(FormURLEncoding.percentEncode(name).utf8)
        if pathStart == fragment { insert.insert(UInt8(ascii: "/"), at: 0) } else if bytes[fragment - 1] != UInt8(ascii: "/") { return url }
        return String(decoding: bytes[..<fragment] + insert + bytes[fragment...], as: UTF8.self)
    }
}
