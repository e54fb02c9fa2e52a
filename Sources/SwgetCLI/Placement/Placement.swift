#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SwgetKit

/// Where each job's file goes, and what its request asks for because of that: the directory
/// layout (``DirectoryLayout``, wget's -x family) and wget's timestamping (`-N`: the file of the same name is
/// replaced only when the server's is newer or of another size).
struct Placement: Sendable {
    /// The destination every job starts from (`-O`, `-P`, collisions, naming rules).
    var base: DownloadDestination
    var layout = DirectoryLayout()
    /// `-N`.
    var timestamping = false
    /// `--no-if-modified-since` turns this off: the answer's `Last-Modified` is compared instead.
    var sendsIfModifiedSince = true

    /// The request and destination for `request`.
    func place(_ request: Request) -> (Request, DownloadDestination) {
        var request = request
        var destination = base
        guard case .directory(let prefix) = base.target else { return (request, destination) }
        let directory = layout.directories(for: request.url)
            .reduce(prefix) { $0.hasSuffix("/") ? $0 + $1 : $0 + "/" + $1 }
        destination.target = .directory(directory)
        guard timestamping else { return (request, destination) }
        // wget's -N names files after the URL and replaces the older copy.
        destination.collision = .replace
        destination.useContentDisposition = false
        let name = SuggestedFilename.fromURL(request.url, defaultName: base.defaultPageName, transform: base.fileNameTransform)
        var info = stat()
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            var validator = CacheValidator(lastModified: Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)),
                                           length: Int64(info.st_size))
            validator.sendsIfModifiedSince = sendsIfModifiedSince
            request.cachePolicy = .reloadRevalidatingCacheData(validator)
        }
        return (request, destination)
    }
}
