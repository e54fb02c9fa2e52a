#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore

/// What a download knows about the bytes it holds, and the decisions that follow from it, as a
/// value: which range to ask for, what an answer means for the stored bytes, when a checkpoint
/// is due. ``DownloadTransfer`` performs the file operations these decisions call for;
/// DownloadStateTests tables them.
///
/// Invariant: `resume.bytesOnDisk` never exceeds what the part file durably holds of the
/// representation `resume`'s validators identify (see ``ResumeData``).
struct DownloadState: Sendable {
    /// Validators, length and the bytes known good; nil until an answer (or an earlier run)
    /// told them.
    var resume: ResumeData?
    /// The offset the request under way asked for; nil for a request from zero.
    private(set) var requestedOffset: Int64?
    /// Where this attempt's body starts in the file.
    private(set) var writeOffset: Int64 = 0
    /// The delegate's answer about decoding a gzip payload, asked once per task.
    var decodesPayload: Bool?
    /// The codings this attempt undoes (empty: bytes stored as sent).
    var decoding: [ContentCoding] = []
    /// Set when the server answered a segment with the whole file: one connection only.
    var segmentsDisabled = false
    /// The last answer replaced the held bytes with a whole new body (a 200 to a range).
    private(set) var restartsHeldBytes = false
    private var lastCheckpoint: Int64 = 0
    private var lastCheckpointTime: NIODeadline = .distantPast
    /// The state last written beside the part (or found there), while it claims any bytes.
    private var claimOnDisk: ResumeData?

    /// How the next request asks for the body.
    enum Plan: Equatable {
        /// From zero; the part file must be emptied first when it holds bytes.
        case fresh(truncate: Bool)
        /// `Range` (+ `If-Range`, `Accept-Encoding`) from `offset`.
        case resume(offset: Int64, fields: [ResumeNegotiation.HeaderPair])
        /// The stored bytes went to standard output already and cannot be taken back.
        case impossible(reason: String)
    }

    /// What to do with an answer.
    enum Verdict: Equatable {
        /// Write the body into the file from `offset` (0: replace whatever it held).
        case write(from: Int64)
        /// The stored bytes are worthless and this answer cannot replace them: empty the
        /// part and ask again without a range.
        case restart(reason: String)
        /// Every byte is already held (416 with our length): publish.
        case complete
        /// The answer cannot be used for a transfer to standard output.
        case fail(reason: String)
    }

    /// The plan for the next request. `toStandardOutput`: bytes already written there stay.
    mutating func plan(toStandardOutput: Bool) -> Plan {
        guard let resume else {
            requestedOffset = nil
            return .fresh(truncate: false)
        }
        switch ResumeNegotiation.plan(for: resume) {
        case .fresh:
            if toStandardOutput && resume.bytesOnDisk > 0 {
                return .impossible(reason: "cannot continue a transfer to standard output without validators")
            }
            requestedOffset = nil
            self.resume?.bytesOnDisk = 0
            self.resume?.segments = nil
            return .fresh(truncate: true)
        case .resume(let offset, let fields):
            requestedOffset = offset
            return .resume(offset: offset, fields: fields)
        }
    }

    /// Judges the final answer to the request made with the last plan, and records its
    /// validators. `now` dates the first checkpoint.
    mutating func judge(_ response: Response, originalURL: URL, sessionIdentifier: String?, toStandardOutput: Bool) -> Verdict {
        restartsHeldBytes = false
        guard requestedOffset != nil, let stored = resume else {
            if response.isSuccess { record(response, from: 0, originalURL: originalURL, sessionIdentifier: sessionIdentifier) }
            writeOffset = 0
            return .write(from: 0)
        }
        switch ResumeNegotiation.evaluate(status: response.statusCode, headers: response.headers, resuming: stored) {
        case .append(let offset):
            record(response, from: offset, continuing: true, originalURL: originalURL, sessionIdentifier: sessionIdentifier)
            return .write(from: offset)
        case .restartWithThisBody(let reason):
            if toStandardOutput { return .fail(reason: "the file changed on the server; cannot restart a transfer to standard output") }
            _ = reason
            restartsHeldBytes = true
            record(response, from: 0, originalURL: originalURL, sessionIdentifier: sessionIdentifier)
            return .write(from: 0)
        case .restartWithNewRequest(let reason):
            if toStandardOutput { return .fail(reason: "\(reason); cannot restart a transfer to standard output") }
            resume = nil  // nothing stored is worth anything now
            requestedOffset = nil
            return .restart(reason: reason)
        case .complete:
            return .complete
        case .notApplicable:
            writeOffset = 0
            return .write(from: 0)
        }
    }


    /// The decoding chosen for this attempt. A decoded body cannot be continued: its state never
    /// claims bytes.
    mutating func chooseDecoding(_ codings: [ContentCoding]) {
        decoding = codings
        if !codings.isEmpty { resume?.bytesOnDisk = 0 }
    }

    /// Body bytes up to `total` are in the file; returns the state to save when a checkpoint
    /// is due (background sessions): once a second, or after 256 KiB for the first one and
    /// 64 MiB after that, so a kill -9 on a fast link loses little and a small file finishes
    /// without a single sync.
    mutating func progressed(to total: Int64, now: NIODeadline, checkpoints: Bool) -> ResumeData? {
        guard decoding.isEmpty else { return nil }  // decoded bytes are never continued
        resume?.bytesOnDisk = total
        guard checkpoints, total > lastCheckpoint else { return nil }
        let bytesDue = lastCheckpoint == 0 ? Self.firstCheckpointBytes : Self.checkpointBytes
        guard now - lastCheckpointTime >= .seconds(1) || total - lastCheckpoint >= bytesDue else { return nil }
        lastCheckpointTime = now
        lastCheckpoint = total
        return resume
    }

    /// The written ranges of a segmented transfer; returns the state to save when due (or
    /// `force`d).
    mutating func segmentsWritten(_ completed: [ByteRange], now: NIODeadline, checkpoints: Bool, force: Bool) -> ResumeData? {
        resume?.segments = completed
        resume?.bytesOnDisk = completed.first.map { $0.start == 0 ? $0.end : 0 } ?? 0
        guard checkpoints, force || now - lastCheckpointTime >= .seconds(1) else { return nil }
        lastCheckpointTime = now
        return resume
    }

    /// `data` was written beside the part file (or found there when the download began); nil:
    /// the state there was removed.
    mutating func saved(_ data: ResumeData?) {
        claimOnDisk = data.flatMap { Self.furthestClaim(of: $0) > 0 ? $0 : nil }
    }

    /// The part file is about to be cut to `offset` bytes (a restart, or a single connection
    /// continuing a segmented part from its first gap). From here on the state claims nothing
    /// at or after `offset`: no segments, at most `offset` bytes. Returns the state to write
    /// beside the part *before* the cut when the one there claims more; otherwise a kill -9
    /// between the cut and the next checkpoint would leave a state describing bytes the part no
    /// longer holds, and once the part grew again (segments write all over it) the next run
    /// would trust them and publish zeros.
    mutating func cut(to offset: Int64) -> ResumeData? {
        if resume?.segments != nil { resume?.segments = nil }
        if let held = resume?.bytesOnDisk, held > offset { resume?.bytesOnDisk = offset }
        lastCheckpoint = min(lastCheckpoint, offset)
        guard var onDisk = claimOnDisk, Self.furthestClaim(of: onDisk) > offset else { return nil }
        onDisk = resume ?? onDisk
        onDisk.segments = nil
        onDisk.bytesOnDisk = min(onDisk.bytesOnDisk, offset)
        return onDisk
    }

    /// One past the last byte `data` says the part holds.
    private static func furthestClaim(of data: ResumeData) -> Int64 {
        max(data.bytesOnDisk, data.segments?.last?.end ?? 0)
    }

    /// The part file was just created: the first checkpoint is due a second from now.
    mutating func startedFile(now: NIODeadline) {
        lastCheckpointTime = now
        lastCheckpoint = 0
    }

    static let checkpointBytes: Int64 = 64 << 20
    static let firstCheckpointBytes: Int64 = 256 << 10

    /// Starts (or continues) the resume state from an answer whose body begins at `offset`.
    /// `continuing`: the answer continues the stored bytes (a validated range), so what is held
    /// stays held, even from byte 0: a segment map whose first piece is still empty keeps its
    /// later ranges.
    private mutating func record(_ response: Response, from offset: Int64, continuing: Bool = false, originalURL: URL,
                                 sessionIdentifier: String?) {
        writeOffset = offset
        let keeps = continuing || offset > 0
        let total: Int64? = response.statusCode == 206
            ? ContentRange(response.headers["Content-Range"] ?? "")?.total
            : response.expectedContentLength
        let finalURL = URLDisplay.masked(response.url).absoluteString
        var data = resume ?? ResumeData(originalURL: URLDisplay.masked(originalURL).absoluteString, finalURL: finalURL,
                                        etag: nil, lastModified: nil, expectedLength: nil, bytesOnDisk: 0,
                                        partPath: "", finalPath: "", sessionIdentifier: sessionIdentifier)
        data.finalURL = finalURL
        data.etag = response.headers["ETag"] ?? (keeps ? data.etag : nil)
        data.lastModified = response.headers["Last-Modified"] ?? (keeps ? data.lastModified : nil)
        data.expectedLength = total ?? (keeps ? data.expectedLength : nil)
        data.bytesOnDisk = offset
        data.acceptsUnvalidatedRange = false
        if !keeps {
            data.contentEncoding = BodyDecoding.normalizedEncoding(response.headers["Content-Encoding"])
            data.segments = nil
        }
        resume = data
    }
}
