#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a download task puts the body (NSURLDownload's destination rules).
public struct DownloadDestination: Sendable, Equatable {
    /// The place itself.
    public enum Target: Sendable, Equatable {
        /// A file named by the suggested-filename rules inside this directory (created if
        /// missing). A relative path is taken from the working directory when the task is made.
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
        /// Replace the existing file once the new one is complete (atomically; wget's `-N`).
        case replace
    }

    /// Where the body goes: a directory, a file, or standard output.
    public var target: Target
    /// What happens when the name chosen inside a ``Target/directory(_:)`` exists (default:
    /// ``Collision/uniqueName``).
    public var collision: Collision = .uniqueName
    /// Honour Content-Disposition's file name (on by default).
    public var useContentDisposition = true
    /// Name the file after the URL reached by redirects instead of the one asked for.
    public var trustServerNames = false
    /// Continue a `NAME.part` or `NAME` that another tool left (wget's `-c`), even without
    /// resume state: the server must answer the range exactly at the file's length. A local
    /// file longer than the remote one is left as it is.
    public var continuePartial = false
    /// Save the body of an error answer (4xx, 5xx) too. Off by default: a download answered
    /// with an error status publishes nothing and fails with ``SessionError/Category/httpStatus``
    /// (the error carries the response). With it on, the body is published and the task still
    /// fails with that error.
    public var keepsErrorResponses = false
    /// Give the published file the server's `Last-Modified` as its modification time (wget's
    /// default, curl's `--remote-time`). Off by default; never for standard output or a file
    /// written in place.
    public var setsModificationDate = false
    /// The name of a file whose URL ends in `/` and that no Content-Disposition names
    /// (wget's `--default-page`).
    public var defaultPageName = SuggestedFilename.fallbackName
    /// Append `.html` to the name of an HTML answer (`text/html`, `application/xhtml+xml`)
    /// that does not end in `.html` or `.htm`, and `.css` to a `text/css` one (wget's `-E`).
    public var adjustsExtension = false

    /// Rewrites the names chosen inside a ``Target/directory(_:)`` (Content-Disposition, URL,
    /// default page) before extensions are added, e.g. wget's `--restrict-file-names`; nil
    /// (the default) sanitises them with ``FilenameSanitizer/sanitize(_:)``. See
    /// ``FileNameTransform`` for what it receives and the limits its result is held to.
    public var fileNameTransform: FileNameTransform?
    /// Fetch the body from this byte on and write it from the start of the file (wget's
    /// `--start-pos`): the request carries `Range: bytes=N-` and the answer must be a `206`
    /// starting exactly there, else the task fails with ``SessionError/badResponse`` and
    /// publishes nothing. Such a download is never continued: no resume state is kept, bytes
    /// another run left are not adopted (``continuePartial`` is ignored), it is not split, and
    /// a retry asks for the same range again, writing from the start. 0 (the default) or less
    /// fetches the whole body. Only for a GET without a body.
    public var startOffset: Int64 = 0

    /// A destination at `target`, with every other setting at its default.
    public init(_ target: Target) { self.target = target }

    /// This destination with a relative directory or file path made absolute against
    /// `workingDirectory`. A task does it itself, against the working directory of the moment it
    /// is made; a caller that makes many tasks from one destination can do it once instead.
    public func anchored(at workingDirectory: String) -> DownloadDestination {
        var copy = self
        switch target {
        case .directory(let path): copy.target = .directory(Self.absolutePath(path, in: workingDirectory))
        case .file(let path): copy.target = .file(Self.absolutePath(path, in: workingDirectory))
        case .standardOutput: break
        }
        return copy
    }

    /// `path` itself when absolute; else `path` inside `workingDirectory` (`.` and `./` dropped).
    static func absolutePath(_ path: String, in workingDirectory: String) -> String {
        if path.hasPrefix("/") || workingDirectory.isEmpty { return path }
        if path.isEmpty || path == "." { return workingDirectory }
        return DownloadPaths.join(workingDirectory, path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// Whether ``anchored(at:)`` would change anything.
    var isAnchored: Bool {
        switch target {
        case .directory(let path), .file(let path): path.hasPrefix("/")
        case .standardOutput: true
        }
    }

    /// A directory, by path.
    public static func directory(_ path: String) -> DownloadDestination { .init(.directory(path)) }
    /// A directory, by file URL.
    public static func directory(_ url: URL) -> DownloadDestination { .init(.directory(url.path(percentEncoded: false))) }
    /// A file, by path.
    public static func file(_ path: String) -> DownloadDestination { .init(.file(path)) }
    /// A file, by file URL.
    public static func file(_ url: URL) -> DownloadDestination { .init(.file(url.path(percentEncoded: false))) }
    /// The process's standard output.
    public static var standardOutput: DownloadDestination { .init(.standardOutput) }
}
