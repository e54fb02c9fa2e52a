#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry of an FTP directory (``Session/listFTPDirectory(_:)``).
public struct FTPDirectoryEntry: Sendable, Equatable {
    /// What the entry is.
    public enum Kind: Sendable, Equatable {
        case file
        case directory
        /// A symbolic link (its target, when the listing told it).
        case symbolicLink(target: String?)
        /// Anything else (devices, sockets, types a server invented).
        case other
    }

    /// The bare name (never empty, ".", "..", or holding "/" or NUL).
    public let name: String
    /// What the entry is: a file, a directory, a symbolic link or something else.
    public let kind: Kind
    /// Bytes, when the listing states them.
    public let size: Int64?
    /// The modification time: exact and in UTC from MLSD; from LIST, the server's local clock
    /// at minute precision, its year sometimes guessed.
    public let modified: Date?

    init(_ entry: FTPListEntry) {
        name = entry.name
        switch entry.kind {
        case .file: kind = .file
        case .directory: kind = .directory
        case .symlink(let target): kind = .symbolicLink(target: target)
        case .other, .unknown: kind = .other
        }
        size = entry.size
        modified = entry.modified.map { Date(timeIntervalSince1970: TimeInterval($0.secondsSince1970)) }
    }
}

extension Session {
    /// The entries of the FTP directory at `url` (an `ftp://` or `ftps://` URL ending in "/"),
    /// as the server lists them (MLSD, else LIST in the Unix or Windows format), through a data
    /// task of this session (its login rules, TLS and trust challenge apply). Lines no format
    /// explains are skipped.
    @concurrent public func listFTPDirectory(_ url: URL) async throws(SessionError) -> [FTPDirectoryEntry] {
        var request = Request(url: url)
        request.headers.set("Accept", "text/plain")
        let (body, response) = try await data(for: request)
        guard response.statusCode == 200 else {
            throw SessionError.badResponse.with("the directory listing was answered with \(response.statusCode)").at(url)
        }
        let format: FTPListingFormat = response.headers["Content-Type"]?.contains("format=list") == true ? .list : .mlsd
        let seconds = Int64(Date().timeIntervalSince1970.rounded(.down))
        guard let now = FTPTimestamp(secondsSince1970: seconds) else { return [] }
        do {
            return try FTPListing.parse(Array(body), format: format, now: now).map(FTPDirectoryEntry.init)
        } catch {
            throw SessionError.badResponse.with(error.description).at(url)
        }
    }

    /// wget's FTP globbing: for a URL whose last path segment holds a wildcard
    /// (``FTPProtocolHandler/hasGlob(_:)``: `ftp://host/pub/*.iso`), lists the directory and
    /// returns a copy of `request` for each matching file or symbolic link, in name order
    /// (`fnmatch(3)` rules, see the command's documentation); other requests come back alone.
    /// No match is an ``SessionError/ftpStatus`` failure ("no file matches").
    @concurrent public func expandFTPGlob(_ request: Request) async throws(SessionError) -> [Request] {
        guard FTPProtocolHandler.hasGlob(request.url) else { return [request] }
        let path: FTPPath
        do {
            path = try FTPPath(urlPath: FTPRequestPlan.urlPath(of: request.url))
        } catch {
            throw SessionError.unsupportedURL.with(error.description).at(request.url)
        }
        guard let glob = FTPGlob(path.name) else {
            throw SessionError.unsupportedURL.with("the wildcard pattern is too long").at(request.url)
        }
        guard let base = Self.directoryPrefix(of: request.url.absoluteString), let directory = URL(string: base) else {
            throw SessionError.unsupportedURL.with("cannot find the directory of the pattern").at(request.url)
        }
        let matches = try await listFTPDirectory(directory).filter { entry in
            switch entry.kind {
            case .file, .symbolicLink: glob.matches(entry.name)
            case .directory, .other: false
            }
        }
        guard !matches.isEmpty else {
            throw SessionError.ftpStatus.with("no file matches '\(DisplayText.sanitize(path.name))'").at(request.url)
        }
        return matches.map(\.name).sorted().compactMap { name in
            guard let url = URL(string: base + FTPDirectoryIndex.percentEncode(name)) else { return nil }
            var copy = request
            copy.url = url
            return copy
        }
    }

    /// "ftp://u@h:21/pub/" of "ftp://u@h:21/pub/*.iso?x#y": everything up to the last "/" of the
    /// path (the authority ends at the first "/" after "//"; the path at "?" or "#").
    static func directoryPrefix(of url: String) -> String? {
        let bytes = Array(url.utf8)
        var index = 0
        while index + 2 < bytes.count, !(bytes[index] == 0x3A && bytes[index + 1] == 0x2F && bytes[index + 2] == 0x2F) { index += 1 }
        guard index + 2 < bytes.count else { return nil }
        guard let pathStart = bytes[(index + 3)...].firstIndex(of: 0x2F) else { return nil }
        let pathEnd = bytes[pathStart...].firstIndex { $0 == 0x3F || $0 == 0x23 } ?? bytes.count
        guard let slash = bytes[pathStart..<pathEnd].lastIndex(of: 0x2F) else { return nil }
        return String(decoding: bytes[...slash], as: UTF8.self)
    }
}
