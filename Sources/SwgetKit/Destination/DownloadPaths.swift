/// The one layout of a download's files, derived from its final path and nothing else:
///
/// - `NAME` — the finished file (``finalPath``);
/// - `NAME.part` — the bytes while they arrive (``partPath``);
/// - `NAME.swget` — the resume state beside it (``statePath``).
///
/// A name too long for `NAME.part` to fit in NAME_MAX is shortened for the part and the state
/// (on a character boundary, keeping the extension); both always share that shortened base.
/// Nothing read from a state file or sent by a server decides these paths: a state file found
/// on disk is only ever the state of the part beside it (``init(stateFileName:in:finalName:)``
/// checks that the name it records belongs to it).
struct DownloadPaths: Equatable, Sendable {
    static let partSuffix = ".part"
    static let stateSuffix = ".swget"
    /// Part and state names are kept to NAME_MAX minus the longer suffix, so both can exist.
    static let maxBaseBytes = FilenameSanitizer.maxNameBytes - max(partSuffix.utf8.count, stateSuffix.utf8.count)

    /// The directory holding all three files ("" for the current directory).
    let directory: String
    /// The final file name: a single path component.
    let name: String

    /// `directory` and a single-component `name`; nil when `name` is empty, `.`, `..` or
    /// contains a slash or a NUL byte (which would end the path at the system call).
    init?(directory: String, name: String) {
        guard !name.isEmpty, name != ".", name != "..", !name.containsByte(UInt8(ascii: "/")), !name.containsByte(0) else { return nil }
        self.directory = directory
        self.name = name
    }

    /// Splits a path into directory and name (`-O dir/file`); nil when no file name remains.
    init?(finalPath: String) {
        let (directory, name) = Self.cut(finalPath)
        self.init(directory: directory, name: name)
    }

    /// `path` cut at its last slash byte into (directory, name): ("", path) without a slash,
    /// "/" for the root. By byte, so a combining mark after the slash stays with the name, and
    /// without the cost of a backward search by Character (~5,000 instructions per path).
    static func cut(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(ofByte: UInt8(ascii: "/")) else { return ("", path) }
        return (slash == path.startIndex ? "/" : String(path[..<slash]), String(path[path.utf8.index(after: slash)...]))
    }

    /// The paths of the state file `stateFileName` found in `directory`, whose contents say the
    /// download's final name is `finalName`: valid only when the state file is exactly the
    /// state of `finalName` (same shortened base). A state naming another file, a path, or a
    /// name that does not fit is nil: never trusted.
    init?(stateFileName: String, in directory: String, finalName: String) {
        guard stateFileName.hasSuffix(Self.stateSuffix), finalName.utf8.count <= FilenameSanitizer.maxNameBytes,
              let paths = DownloadPaths(directory: directory, name: finalName),
              paths.base + Self.stateSuffix == stateFileName else { return nil }
        self = paths
    }

    /// The shortened name shared by the part and the state file.
    var base: String { FilenameSanitizer.truncated(name, maxBytes: Self.maxBaseBytes) }

    var finalPath: String { Self.join(directory, name) }
    var partPath: String { Self.join(directory, partName) }
    /// `NAME.part` without the directory.
    var partName: String { base + Self.partSuffix }
    var statePath: String { Self.join(directory, base + Self.stateSuffix) }

    /// The same layout for another final name in the same directory (a unique-name candidate).
    func renamed(_ newName: String) -> DownloadPaths? { DownloadPaths(directory: directory, name: newName) }

    static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        // One allocation and two byte copies: `directory + "/" + name` made an intermediate
        // string, and `append` re-checked the encoding of each piece (~1,400 instructions per
        // path, four paths per file of a batch).
        let slash = directory.utf8.last != UInt8(ascii: "/")
        let (head, tail) = (directory.utf8.count, name.utf8.count)
        return String(unsafeUninitializedCapacity: head + (slash ? 1 : 0) + tail) { buffer in
            var end = buffer.initialize(fromContentsOf: directory.utf8)
            if slash {
                buffer[end] = UInt8(ascii: "/")
                end += 1
            }
            end = buffer[end...].initialize(fromContentsOf: name.utf8)
            return end
        }
    }
}
