#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// curl's conditional downloads: by date (`--time-cond`) and by entity tag (`--etag-compare`,
/// with `--etag-save` to keep the tag for next time).
struct ConditionOptions: ParsableArguments {
    // Unconditional: "-DATE" is a value, not an option.
    @Option(name: [.customShort("z"), .customLong("time-cond")], parsing: .unconditional,
            help: ArgumentHelp("Download only when the server's file is newer than DATE, or than FILE's modification time (If-Modified-Since); -DATE asks for a file not modified since (If-Unmodified-Since). curl's -z.",
                               valueName: "DATE|FILE"))
    var timeCond: String?

    @Option(name: .customLong("etag-save"),
            help: ArgumentHelp("After a download, write the response's ETag to FILE (an empty file when there is none), for --etag-compare.",
                               valueName: "FILE"),
            completion: .file())
    var etagSave: String?

    @Option(name: .customLong("etag-compare"),
            help: ArgumentHelp("Download only when the server's ETag differs from the one in FILE (If-None-Match); no condition when FILE is missing or empty.",
                               valueName: "FILE"),
            completion: .file())
    var etagCompare: String?
}

extension ConditionOptions {
    func validate() throws {
        if let timeCond, TimeCondition(timeCond, modificationTime: Self.modificationTime) == nil {
            throw ValidationError("--time-cond: '\(DisplayText.sanitize(timeCond))' is neither a date nor an existing file")
        }
        if etagCompare != nil, let timeCond, timeCond.hasPrefix("-") {
            throw ValidationError("--etag-compare cannot be combined with --time-cond -DATE (a file that changed and one that did not)")
        }
    }

    /// The condition of every request, from `--time-cond` and the tag read from
    /// `--etag-compare`'s file (see ``storedEntityTag()``).
    func cachePolicy(entityTag: String?) -> CachePolicy? {
        let condition = timeCond.flatMap { TimeCondition($0, modificationTime: Self.modificationTime) }
        if let condition, condition.direction == .older { return condition.cachePolicy }
        guard condition != nil || entityTag != nil else { return nil }
        return .reloadRevalidatingCacheData(CacheValidator(lastModified: condition?.date, entityTag: entityTag))
    }

    /// The entity tag kept in `--etag-compare`'s file: its first line, trimmed; nil when the
    /// option is absent or the file is missing or empty (no condition, as a first run of
    /// `--etag-compare F --etag-save F` needs). A file that exists but cannot be read, or holds
    /// a line no header can carry, is an error line.
    func storedEntityTag() throws(TagFileError) -> String? {
        guard let path = etagCompare else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard let text = TextFile.read(path, limit: 64 * 1024) else { throw TagFileError(path: path, reason: "cannot be read") }
        let line = Substring(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let tag = (line.hasSuffix("\r") ? line.dropLast() : line).trimmingSpaces
        guard !tag.isEmpty else { return nil }
        guard tag.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw TagFileError(path: path, reason: "does not hold an entity tag")
        }
        return tag
    }

    /// Writes the ETag of `response` to `--etag-save`'s file (empty when it has none).
    func saveEntityTag(of response: Response) throws(TagFileError) {
        guard let path = etagSave else { return }
        let text = response.headers["ETag"].map { $0 + "\n" } ?? ""
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw TagFileError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard SaveHeaders.writeAll(fd, Array(text.utf8)) else {
            throw TagFileError(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// A file's modification time, nil when there is no such file.
    static func modificationTime(_ path: String) -> Date? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
    }
}

/// An `--etag-compare` or `--etag-save` file that cannot be used (exit 3).
struct TagFileError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "\(DisplayText.sanitize(path)): \(DisplayText.sanitize(reason))" }
}
