#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A task whose body streams into a file: the counterpart of NSURLSessionDownloadTask, with
/// NSURLDownload's destination rules. Bytes go to `NAME.part` beside the final name and are
/// renamed to `NAME` only when the body is complete; on failure the `.part` stays, and the
/// error's ``SessionError/resumeData`` continues it. The transfer itself is
/// ``DownloadTransfer``.
///
/// Unlike NSURLSession, the file is published under its final name (not handed over as a
/// temporary file to move), and an answer with an error status publishes nothing unless
/// ``DownloadDestination/keepsErrorResponses`` asks for it.
public final class DownloadTask: SessionTask, @unchecked Sendable {
    /// Where the body goes (relative directories made absolute when the task was created).
    public let destination: DownloadDestination
    /// The resume data the task was made from, if any.
    let resumeData: ResumeData?

    /// What the transfer found out, for the properties below.
    struct Findings {
        var location: String?
        var skippedExistingFile: String?
        var notModified = false
        var partialFile: String?
        var decoding: BodyDecoding?
        var decodedCodings: [ContentCoding] = []
        var decodedBytes: Int64?
        /// The resume data of the bytes held right now, and the part's descriptor to sync
        /// before handing it out (for `cancelProducingResumeData()` inside a decision).
        var held: ResumeData?
        var heldDescriptor: Int32?
    }

    let findings = NIOLockedValueBox(Findings())

    init(session: Session, identifier: Int, request: Request, destination: DownloadDestination, resumeData: ResumeData? = nil) {
        self.destination = Self.absolute(destination)
        self.resumeData = resumeData
        super.init(session: session, identifier: identifier, request: request)
    }

    /// Where the finished file was published, once the task succeeded (`/dev/stdout` for
    /// standard output).
    public var location: URL? { findings.withLockedValue { $0.location }.map(Self.fileURL) }
    /// Set instead of ``location`` when the collision policy was ``DownloadDestination/Collision/skip``
    /// and the file already existed: the task succeeded without downloading.
    public var skippedExistingFile: URL? { findings.withLockedValue { $0.skippedExistingFile }.map(Self.fileURL) }
    /// True when the request's ``CachePolicy/reloadRevalidatingCacheData(_:)`` found the
    /// caller's copy current (a 304, or an unchanged 200): the task succeeded without a file.
    public var isNotModified: Bool { findings.withLockedValue { $0.notModified } }
    /// The `.part` file a failed task left behind, if any.
    public var partialFile: URL? { findings.withLockedValue { $0.partialFile }.map(Self.fileURL) }
    /// How the response's body was judged for decoding (the one decision, made once per
    /// response): content codings to undo, a gzip payload, an unsupported coding.
    public var decoding: BodyDecoding? { findings.withLockedValue { $0.decoding } }
    /// The codings undone on the way to the file (content codings, or a gzip payload the
    /// delegate chose to decode); empty when the bytes were stored as sent.
    public var decodedCodings: [ContentCoding] { findings.withLockedValue { $0.decodedCodings } }
    /// The size of the decoded file, for a decoded body (``SessionTask/countOfBytesReceived``
    /// counts the bytes as sent).
    public var countOfBytesDecoded: Int64? { findings.withLockedValue { $0.decodedBytes } }

    /// Cancels the task and returns what continues it later (nil when nothing is worth keeping).
    /// May be called from any callback of the task; inside one of its decisions it returns the
    /// bytes held at that moment (synced to disk first).
    public func cancelProducingResumeData() async -> ResumeData? {
        if CallbackContext.deciding == ObjectIdentifier(self) {
            let (held, fd) = findings.withLockedValue { ($0.held, $0.heldDescriptor) }
            if let fd { fdatasync(fd) }
            cancel()
            return held
        }
        cancel()
        return await outcome()?.resumeData
    }

    override func transfer() async -> SessionError? {
        await DownloadTransfer(task: self).run()
    }

    /// A file URL for a path.
    static func fileURL(_ path: String) -> URL { URL(filePath: path) }

    /// The destination with a relative path made absolute from the working directory now, so
    /// that resume data works from anywhere.
    static func absolute(_ destination: DownloadDestination) -> DownloadDestination {
        if destination.isAnchored { return destination }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return destination }
        return destination.anchored(at: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
