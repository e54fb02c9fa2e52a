/// Where a download task puts the body.
public struct DownloadDestination: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// A file named by the suggested-filename rules inside this directory (created if missing).
        case directory(String)
        /// Exactly this path, replaced if it exists (`-O FILE`). An existing non-regular file
        /// (`/dev/null`, a FIFO) is written in place.
        case file(String)
        /// The process's standard output; nothing else is written there.
        case standardOutput
    }

    /// What happens when the name chosen inside a directory already exists.
    public enum Collision: Sendable, Equatable {
        /// Pick the next free name: `name-1.ext`, `name-2.ext`, ... (never overwrite).
        case uniqueName
        /// Leave the existing file alone and skip the download (`-nc`).
        case skip
    }

    public var target: Target
    public var collision: Collision = .uniqueName
    /// Honour Content-Disposition's file name (on by default).
    public var useContentDisposition = true
    /// Name the file after the URL reached by redirects instead of the one asked for.
    public var trustServerNames = false
    /// Continue a `NAME.part` or `NAME` that another tool left (wget's `-c`), even without
    /// resume state: the server must answer the range exactly at the file's length.
    public var continuePartial = false

    public init(_ target: Target) { self.target = target }

    public static func directory(_ path: String) -> DownloadDestination { .init(.directory(path)) }
    public static func file(_ path: String) -> DownloadDestination { .init(.file(path)) }
    public static var standardOutput: DownloadDestination { .init(.standardOutput) }
}
