/// Alternative names for a file whose name is taken: "index.html", "index-1.html", "index-2.html", ...
public enum UniqueName {
    /// NSURLDownload's rule (`setDestination:allowOverwrite:` with NO): attempt 0 is `name`; attempt n>0
    /// puts "-n" before the extension: "index.html" -> "index-1.html", "archive.tar.gz" -> "archive-1.tar.gz"
    /// (.tar.gz/.tar.bz2/.tar.xz/.tar.zst count as one extension), "README" -> "README-1". The stem is shortened
    /// on a character boundary so that the result stays within 255 UTF-8 bytes.
    public static func candidate(_ name: String, attempt: Int) -> String {
        candidate(name, attempt: attempt, maxBytes: FilenameSanitizer.maxNameBytes)
    }

    /// `candidate(_:attempt:)` within `maxBytes` UTF-8 bytes (attempt 0 is returned unchanged).
    static func candidate(_ name: String, attempt: Int, maxBytes: Int) -> String {
        guard attempt > 0 else { return name }
        let suffix = "-\(attempt)"
        let (stem, ext) = FilenameSanitizer.splitExtension(name)
        let stemRoom = maxBytes - suffix.utf8.count - ext.utf8.count
        if !ext.isEmpty, stemRoom > 0 {
            return FilenameSanitizer.prefix(stem, maxBytes: stemRoom) + suffix + ext
        }
        return FilenameSanitizer.prefix(name[...], maxBytes: maxBytes - suffix.utf8.count) + suffix
    }
}
