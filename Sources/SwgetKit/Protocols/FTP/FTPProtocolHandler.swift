#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore

/// The built-in handler of `ftp://` and `ftps://` URLs (RFC 959 with RFC 2428's EPSV/EPRT,
/// RFC 3659's SIZE, MDTM, REST, MLST and MLSD, RFC 4217's FTPS), on the session's event loops.
///
/// It answers like an HTTP server would, so the download machinery (the `.part` file, resume
/// state, retries, progress) works unchanged:
/// - a file: `200` with `Content-Length` (SIZE) and `Last-Modified` (MDTM as an HTTP date), or,
///   for a request with `Range: bytes=N-` whose `If-Range` still matches the server's MDTM (see
///   ``FTPResumeCheck``) and a server that accepts `REST N`, `206` with
///   `Content-Range: bytes N-(size-1)/size`; a changed file or a refused REST gives `200` from
///   zero; every byte already held gives `416` with `Content-Range: bytes */size`. The body
///   streams from the data connection straight into the task's file.
/// - a directory (a URL ending in "/"): an HTML index like wget's `index.html`, or the listing as
///   the server sent it (MLSD, else LIST) with `Accept: text/plain`
///   (`Content-Type: text/plain; format=mlsd|list`).
/// - `HEAD` (`--spider`): `200` with the size and date from MLST (or SIZE), no body.
///
/// The response's `httpVersion` is "FTP". Failures: a refused login is
/// ``SessionError/authenticationFailed``; a permanent refusal (`550` and other 5yz) is
/// ``SessionError/ftpStatus`` (wget's exit 8); 4yz replies, `421`, broken connections and
/// timeouts are network failures the task retries (resuming); a server breaking the protocol is
/// ``SessionError/badResponse``; TLS refused or untrusted is a TLS failure.
///
/// Logged-in connections are kept for the session's next files on the same server
/// (``FTPSettings/reusesConnections``). A split download (`--split`) is not offered: each file
/// uses one data connection.
public struct FTPProtocolHandler: ProtocolHandler {
    /// The handler (it keeps no state: a session's FTP connections live in the session).
    public init() {}

    /// True for ftp and ftps URLs.
    public func canHandle(_ request: Request) -> Bool {
        let scheme = request.url.scheme?.lowercased()
        return scheme == "ftp" || scheme == "ftps"
    }

    /// Loads `request` as the type's documentation says, reporting to `client`.
    public func startLoading(_ request: Request, client: ProtocolClient) async {
        guard let task = client.task else {
            client.didFail(with: SessionError.misuse.with("the FTP handler loads requests of a session's tasks only"))
            return
        }
        do {
            let load = try FTPLoad(request: request, task: task, client: client)
            await load.run()
        } catch {
            client.didFail(with: error.at(request.url))
        }
    }

    /// True when the last segment of an `ftp://` or `ftps://` URL's path holds a wildcard (`*`,
    /// `?`, `[`): wget expands such URLs to the matching files (see
    /// ``Session/expandFTPGlob(_:)``).
    public static func hasGlob(_ url: URL) -> Bool {
        guard url.hasScheme("ftp") || url.hasScheme("ftps") else { return false }
        guard let path = try? FTPPath(urlPath: FTPRequestPlan.urlPath(of: url)), !path.isDirectory else { return false }
        return FTPGlob.hasWildcards(path.name)
    }
}
