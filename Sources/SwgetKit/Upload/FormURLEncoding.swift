/// Percent-encoding for request bodies: curl's escaping (`curl_easy_escape`), curl's
/// `--data-urlencode` forms, and the WHATWG `application/x-www-form-urlencoded` serializer.
///
/// Two alphabets are kept on purpose, because the tools differ:
/// - curl keeps RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) and writes every other
///   byte as `%XX` (upper-case hex); `--data-urlencode` then turns `%20` into `+` (curl ≥ 7.83,
///   `replace_url_encoded_space_by_plus`), so `*` becomes `%2A` and `~` stays.
/// - The WHATWG URL Standard's form serializer (what browsers send) keeps `A-Z a-z 0-9 * - . _`,
///   writes a space as `+`, and encodes `~`.
///
/// All functions work on bytes: a `String` is encoded as its UTF-8, so non-ASCII text becomes
/// `%C3%A9`-style sequences, and control characters (CR, LF, NUL) are always encoded.
public enum FormURLEncoding {
    /// curl's `curl_easy_escape`: every byte except `A-Z a-z 0-9 - . _ ~` becomes `%XX`
    /// (upper-case hex). A space is `%20`.
    public static func percentEncode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        encode(bytes, keep: isUnreserved, spaceAsPlus: false)
    }

    /// `percentEncode` of the text's UTF-8.
    public static func percentEncode(_ text: String) -> String { percentEncode(text.utf8) }

    /// The content encoding of curl's `--data-urlencode`: `percentEncode`, then `%20` → `+`.
    public static func dataURLEncode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        encode(bytes, keep: isUnreserved, spaceAsPlus: true)
    }

    /// The WHATWG URL Standard's `application/x-www-form-urlencoded` serializer: each name and
    /// value encoded (keeping `A-Z a-z 0-9 * - . _`, space as `+`), pairs as `name=value` joined
    /// with `&`. An empty list gives "".
    public static func serialize(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { encode($0.name.utf8, keep: isFormSafe, spaceAsPlus: true) + "=" + encode($0.value.utf8, keep: isFormSafe, spaceAsPlus: true) }
            .joined(separator: "&")
    }

    /// One `--data-urlencode` argument, split exactly as curl's manual and `data_urlencode()`
    /// split it: the first `=` wins; without any `=`, the first `@`; the name part is taken as
    /// already encoded and sent as given.
    ///
    /// | argument       | case                                  | sent                      |
    /// | -------------- | ------------------------------------- | ------------------------- |
    /// | `content`      | `.content("content")`                 | encoded content           |
    /// | `=content`     | `.content("content")`                 | encoded content (no `=`)  |
    /// | `name=content` | `.named(name:content:)`               | `name=` + encoded content |
    /// | `@file`        | `.file(path:)`                        | encoded file bytes        |
    /// | `name@file`    | `.namedFile(name:path:)`              | `name=` + encoded bytes   |
    ///
    /// So `a@b=c` is the name `a@b` with the content `c`, and `x=@y` is the content `@y`. A file
    /// named `-` means standard input (`isStandardInput`). File bytes are read as they are
    /// (newlines included, unlike `--data @file`).
    public enum DataURLEncodeArgument: Sendable, Equatable {
        /// `content` or `=content`: only the encoded content is sent.
        case content(String)
        /// `name=content`: `name=` then the encoded content (name non-empty).
        case named(name: String, content: String)
        /// `@file`: the encoded bytes of the file.
        case file(path: String)
        /// `name@file`: `name=` then the encoded bytes of the file (name non-empty).
        case namedFile(name: String, path: String)

        /// Splits `argument` as curl does. Never fails: every string is one of the forms.
        public init(_ argument: String) {
            let bytes = Array(argument.utf8)
            if let eq = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: bytes[..<eq], as: UTF8.self)
                let content = String(decoding: bytes[(eq + 1)...], as: UTF8.self)
                self = name.isEmpty ? .content(content) : .named(name: name, content: content)
            } else if let at = bytes.firstIndex(of: UInt8(ascii: "@")) {
                let name = String(decoding: bytes[..<at], as: UTF8.self)
                let path = String(decoding: bytes[(at + 1)...], as: UTF8.self)
                self = name.isEmpty ? .file(path: path) : .namedFile(name: name, path: path)
            } else {
                self = .content(argument)
            }
        }

        /// The name sent before `=`, if any.
        public var name: String? {
            switch self {
            case .content, .file: nil
            case .named(let name, _), .namedFile(let name, _): name
            }
        }

        /// The file to read (`-` is standard input), or nil when the content is inline.
        public var path: String? {
            switch self {
            case .content, .named: nil
            case .file(let path), .namedFile(_, let path): path
            }
        }

        /// True for `@-` and `name@-`: the content comes from standard input.
        public var isStandardInput: Bool { path == "-" }

        /// The piece sent for an inline form (`.content`, `.named`); nil for the file forms,
        /// whose bytes must be read first and passed to `encoded(content:)`.
        public var encodedInline: String? {
            switch self {
            case .content(let content): FormURLEncoding.dataURLEncode(content.utf8)
            case .named(let name, let content): name + "=" + FormURLEncoding.dataURLEncode(content.utf8)
            case .file, .namedFile: nil
            }
        }

        /// The piece sent when the content is `content` (the file's bytes for the file forms):
        /// `name=` (when there is a name) followed by the encoded bytes. An empty file gives
        /// `name=` (curl ≤ 8 drops the name for an empty file; the manual's rule is kept here).
        public func encoded<Bytes: Sequence<UInt8>>(content: Bytes) -> String {
            let value = FormURLEncoding.dataURLEncode(content)
            guard let name else { return value }
            return name + "=" + value
        }
    }

    // MARK: - Private

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, keep: (UInt8) -> Bool, spaceAsPlus: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes {
            if keep(byte) {
                out.append(byte)
            } else if byte == 0x20 && spaceAsPlus {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    /// RFC 3986 §2.3 unreserved.
    private static func isUnreserved(_ b: UInt8) -> Bool {
        isAlphanumeric(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }

    /// The WHATWG application/x-www-form-urlencoded percent-encode set's complement.
    private static func isFormSafe(_ b: UInt8) -> Bool {
        isAlphanumeric(b) || b == UInt8(ascii: "*") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
    }
}
