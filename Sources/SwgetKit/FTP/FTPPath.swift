/// The path of an `ftp://` URL, read as RFC 1738 §3.2.2 says: the segments after the host are
/// directory names, relative to the login directory, and the last one is the file (empty for a
/// URL ending in "/"); each segment is percent-decoded on its own, so `%2F` inside a segment is
/// part of the name: `ftp://host/%2Fetc/passwd` names `/etc/passwd`, and so does
/// `ftp://host//etc/passwd` (an empty first segment). A `;type=a|i|d` suffix on the last segment
/// is taken off into ``typeCode``.
///
/// Invariants: no decoded segment holds CR, LF or NUL (they would end or split an FTP command
/// line: RFC 959 commands are lines, so a `%0D%0A` in a URL could otherwise inject commands),
/// every segment is UTF-8, and the whole is at most ``maxLength`` bytes in ``maxComponents``
/// segments.
struct FTPPath: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Longest decoded path accepted, in bytes.
    static let maxLength = 4096
    /// Most segments accepted.
    static let maxComponents = 256

    /// The decoded directory segments, in order (may be empty strings, see the type's notes).
    private(set) var directories: [String]
    /// The decoded file name; empty for a directory.
    private(set) var name: String
    /// The RFC 1738 type code ("a", "i" or "d", lower-cased), when the URL carried one.
    private(set) var typeCode: Character?

    /// Why a path cannot be used.
    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// A "%" not followed by two hex digits.
        case badPercentEncoding
        /// A segment does not decode to UTF-8 (names in other encodings are not supported).
        case notUTF8
        /// A segment decodes to CR, LF or NUL.
        case forbiddenCharacter
        /// Longer than ``FTPPath/maxLength`` or with more than ``FTPPath/maxComponents`` segments.
        case tooLong

        var description: String {
            switch self {
            case .badPercentEncoding: "bad percent-encoding in the FTP path"
            case .notUTF8: "the FTP path is not UTF-8"
            case .forbiddenCharacter: "the FTP path contains a line break or NUL"
            case .tooLong: "the FTP path is too long"
            }
        }
    }

    /// Reads a URL's path as sent (still percent-encoded), e.g. "/pub/a%20b/file;type=i". The
    /// leading "/" separates the path from the host and is not part of it.
    init(urlPath: String) throws(Failure) {
        guard urlPath.utf8.count <= Self.maxLength * 3 else { throw .tooLong }
        var raw = urlPath.hasPrefix("/") ? String(urlPath.dropFirst()) : urlPath
        var typeCode: Character?
        let tail = Array(raw.utf8.suffix(7))
        if tail.count == 7, String(decoding: tail.prefix(6), as: UTF8.self).lowercased() == ";type=" {
            let code = Character(Unicode.Scalar(tail[6] | 0x20))
            if "aid".contains(code) {
                typeCode = code
                raw = String(decoding: raw.utf8.dropLast(7), as: UTF8.self)
            }
        }
        var segments: [String] = []
        for segment in raw.split(separator: "/", omittingEmptySubsequences: false) {
            segments.append(try Self.decode(segment))
        }
        let name = segments.popLast() ?? ""
        try self.init(directories: segments, name: name)
        self.typeCode = typeCode
    }

    /// A path from decoded parts (a listing's name in a directory, for example).
    init(directories: [String], name: String) throws(Failure) {
        guard directories.count + 1 <= Self.maxComponents,
              directories.reduce(name.utf8.count, { $0 + $1.utf8.count + 1 }) <= Self.maxLength else { throw .tooLong }
        for part in directories + [name] where part.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            throw .forbiddenCharacter
        }
        self.directories = directories
        self.name = name
        self.typeCode = nil
    }

    /// The same directory with another file name (each match of a glob, for example).
    func replacingName(with name: String) throws(Failure) -> FTPPath {
        try FTPPath(directories: directories, name: name)
    }

    /// True for a directory URL (ending in "/").
    var isDirectory: Bool { name.isEmpty }

    /// The directories joined with "/": the argument of MLSD/LIST in full-path mode ("" for the
    /// login directory, "/etc" for an absolute path).
    var directoryPath: String { directories.joined(separator: "/") }

    /// The whole path for commands that take one (SIZE, MDTM, RETR, MLST) without changing
    /// directory: "pub/file", "/etc/passwd".
    var fullPath: String { directories.isEmpty ? name : directoryPath + "/" + name }

    /// The arguments of the CWD commands that walk to the directory one segment at a time
    /// (curl's "multicwd"): an empty first segment becomes "/", other empty ones are skipped.
    var changeDirectoryArguments: [String] {
        directories.enumerated().compactMap { index, part in
            part.isEmpty ? (index == 0 ? "/" : nil) : part
        }
    }

    var description: String { fullPath }

    private static func decode(_ segment: Substring) throws(Failure) -> String {
        var bytes: [UInt8] = []
        var iterator = segment.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == 0x25 else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .badPercentEncoding
            }
            bytes.append(high << 4 | low)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// The directory in a PWD reply (RFC 959 Appendix II): the text between the first quote and
    /// the next lone quote, with doubled quotes ("") read as one. nil without a closed quote.
    static func workingDirectory(fromPWDReply text: String) -> String? {
        guard let open = text.firstIndex(of: "\"") else { return nil }
        var result = ""
        var i = text.index(after: open)
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "\"" {
                guard next < text.endIndex, text[next] == "\"" else { return result.isEmpty ? nil : result }
                result.append("\"")
                i = text.index(after: next)
            } else {
                result.append(c)
                i = next
            }
        }
        return nil
    }
}
