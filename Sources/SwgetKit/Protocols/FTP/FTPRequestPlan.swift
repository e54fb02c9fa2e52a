#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an `ftp://` or `ftps://` request asks of a server, read from the request alone (pure):
/// the job, how a directory is answered, and what the resume state says about bytes already
/// held (from the `Range` and `If-Range` fields the download machinery sends).
///
/// - `GET` of a file → ``FTPControlMachine/Job/retrieve(_:)``; `GET` of a directory (a URL ending
///   in "/", or `;type=d`) → ``FTPControlMachine/Job/list(_:)``; `HEAD` (`--spider`) →
///   ``FTPControlMachine/Job/probe(_:)``. Other methods are refused (no uploads over FTP yet).
/// - `If-Range` carries the `Last-Modified` date this handler reported (MDTM as an HTTP date):
///   it becomes the stored MDTM of ``FTPResumeCheck``. An entity tag (FTP has none) or an
///   unreadable date cannot validate anything, so the bytes held are not continued. A `Range`
///   without `If-Range` is the machinery's unvalidated resume (a known total length it checks
///   itself, or `-c` on a file another tool left).
struct FTPRequestPlan: Equatable, Sendable {
    /// How a directory listing is answered.
    enum ListingForm: Equatable, Sendable {
        /// An HTML index with links, as wget's `index.html` (the default).
        case htmlIndex
        /// The listing as the server sent it, as wget's `.listing` (`Accept: text/plain`).
        case raw
    }

    /// The control connection's job.
    let job: FTPControlMachine.Job
    /// For listings: the body's form.
    let listingForm: ListingForm
    /// What the request says about bytes held (offset 0 when none).
    let stored: FTPResumeCheck.Stored

    /// The plan for `request`; a URL the FTP code cannot use is a usage failure.
    init(_ request: Request) throws(SessionError) {
        let path: FTPPath
        do {
            path = try FTPPath(urlPath: Self.urlPath(of: request.url))
        } catch {
            throw SessionError.unsupportedURL.with(error.description)
        }
        switch request.sentMethod {
        case "GET":
            job = path.isDirectory || path.typeCode == "d" ? .list(path) : .retrieve(path)
        case "HEAD":
            job = .probe(path)
        default:
            throw SessionError.unsupportedURL.with("FTP URLs support downloads only (GET and HEAD, not \(DisplayText.sanitize(request.method)))")
        }
        listingForm = Self.listingForm(accept: request.headers["Accept"])
        stored = Self.stored(RangeRequest(request.headers))
    }

    /// The path of an FTP URL as sent, with what a parser took for a query: FTP URLs have no
    /// query (RFC 1738 §3.2), so a "?" belongs to the path (a glob's wildcard, a name), as wget
    /// reads them.
    static func urlPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        guard let query = url.query(percentEncoded: true) else { return path }
        return path + "?" + query
    }

    /// `text/plain` listed before (or without) `text/html` asks for the raw listing.
    static func listingForm(accept: String?) -> ListingForm {
        guard let accept else { return .htmlIndex }
        for item in accept.split(separator: ",") {
            let media = item.split(separator: ";", maxSplits: 1).first.map { $0.trimmingOWS.lowercased() } ?? ""
            if media == "text/plain" { return .raw }
            if media == "text/html" || media == "*/*" || media == "text/*" { return .htmlIndex }
        }
        return .htmlIndex
    }

    /// The resume state a range request carries.
    static func stored(_ range: RangeRequest) -> FTPResumeCheck.Stored {
        guard range.offset > 0 else { return FTPResumeCheck.Stored(bytesOnDisk: 0) }
        guard let validator = range.ifRange else {
            return FTPResumeCheck.Stored(bytesOnDisk: range.offset, acceptsUnvalidated: true)
        }
        // Not an MDTM we reported: "" is no FTP time, so the check restarts.
        let modified = HTTPDate.parse(validator).flatMap {
            FTPTimestamp(secondsSince1970: Int64($0.timeIntervalSince1970.rounded(.down)))
        }
        return FTPResumeCheck.Stored(bytesOnDisk: range.offset, modified: modified?.timeVal ?? "")
    }

    /// What the driver answers to the metadata of a retrieval.
    enum Decision: Equatable, Sendable {
        /// Transfer from this byte (0: all of it).
        case transfer(from: Int64)
        /// Every byte is held already: answer 416 with the size, transfer nothing.
        case complete(size: Int64)
    }

    /// Decides with ``FTPResumeCheck`` against the server's SIZE and MDTM. A resume needs the
    /// size (the 206's `Content-Range` states the total), so without SIZE the file comes whole.
    func decide(_ info: FTPControlMachine.FileInfo) -> Decision {
        switch FTPResumeCheck.decide(stored, current: info) {
        case .fresh, .restart:
            return .transfer(from: 0)
        case .resume(let offset):
            return info.size == nil ? .transfer(from: 0) : .transfer(from: offset)
        case .complete:
            return .complete(size: info.size ?? stored.bytesOnDisk)
        }
    }
}

/// The HTTP-like heads the FTP handler reports, and the errors it fails with (pure).
enum FTPAnswers {
    /// The validator fields of a file: `Last-Modified` (MDTM as an IMF-fixdate).
    static func validators(_ info: FTPControlMachine.FileInfo) -> HeaderFields {
        var fields = HeaderFields()
        if let modified = info.modified {
            fields.set("Last-Modified", CookieDate.format(Date(timeIntervalSince1970: TimeInterval(modified.secondsSince1970))))
        }
        return fields
    }

    /// The head of a transfer whose bytes start at `offset` (206 when it continues held bytes,
    /// 200 from zero).
    static func retrieval(url: URL, info: FTPControlMachine.FileInfo, offset: Int64) -> Response {
        guard let size = info.size else {
            return Response(url: url, statusCode: 200, reasonPhrase: "OK", httpVersion: "FTP",
                            headers: validators(info), expectedContentLength: nil)
        }
        let answer: RangeAnswer = offset > 0 && offset < size ? .partial(offset: offset) : .whole
        return answer.response(url: url, length: size, extra: validators(info)).asFTP
    }

    /// The head saying every byte is held already (the download machinery's "complete").
    static func complete(url: URL, info: FTPControlMachine.FileInfo, size: Int64) -> Response {
        RangeAnswer.unsatisfiable.response(url: url, length: size, extra: validators(info)).asFTP
    }

    /// The head of a probe (`HEAD`): the size and date when the server told them, no body.
    static func probe(url: URL, info: FTPControlMachine.FileInfo?) -> Response {
        var headers = validators(info ?? .init())
        if let size = info?.size { headers.set("Content-Length", String(size)) }
        if info?.kind == .directory { headers.set("Content-Type", "text/html; charset=utf-8") }
        return Response(url: url, statusCode: 200, reasonPhrase: "OK", httpVersion: "FTP", headers: headers,
                        expectedContentLength: 0)
    }

    /// The head of a listing body of `length` bytes.
    static func listing(url: URL, length: Int, form: FTPRequestPlan.ListingForm, format: FTPListingFormat) -> Response {
        let type = switch form {
        case .htmlIndex: "text/html; charset=utf-8"
        case .raw: "text/plain; charset=utf-8; format=\(format == .mlsd ? "mlsd" : "list")"
        }
        return Response(url: url, statusCode: 200, reasonPhrase: "OK", httpVersion: "FTP",
                        headers: ["Content-Type": type, "Content-Length": String(length)], expectedContentLength: Int64(length))
    }

    /// The session error of a failed job or connection. Server refusals quote the reply.
    static func error(_ failure: FTPFailure) -> SessionError {
        var message = DisplayText.sanitize(failure.message)
        if let code = failure.reply?.code, !message.contains(String(code)) { message += " (reply \(code))" }
        switch failure.kind {
        case .authentication: return SessionError.authenticationFailed.with(message)
        case .notFound, .serverError: return SessionError.ftpStatus.with(message)
        case .transient, .network: return SessionError.connectionClosed.with(message)
        case .protocolViolation: return SessionError.badResponse.with(message)
        case .tls: return SessionError.tlsHandshake.with(message)
        case .unsupported: return SessionError.unsupportedURL.with(message)
        }
    }
}

extension Response {
    /// The same head, labelled as an FTP answer.
    var asFTP: Response {
        Response(url: url, originalURL: originalURL, statusCode: statusCode, reasonPhrase: reasonPhrase, httpVersion: "FTP",
                 headers: headers, expectedContentLength: expectedContentLength)
    }
}
