/// FTP's counterpart of HTTP's `If-Range` (``ResumeNegotiation``), as a pure function: may the
/// bytes on disk be continued with `REST`, given what was stored when they were written (the
/// file's SIZE and MDTM) and what the server says now?
///
/// The rule never splices bytes of two versions: every validator that was stored must be
/// reported again and be equal (MDTM to the second); a part with no stored validator continues
/// only when the caller accepts unvalidated resumes (`-c` on a file another tool left, as wget
/// does). Bytes beyond the current size restart; exactly the current size is complete.
enum FTPResumeCheck {
    /// What the resume state holds about the bytes on disk.
    struct Stored: Equatable, Sendable {
        /// Good bytes at the start of the part file.
        var bytesOnDisk: Int64
        /// SIZE when the bytes were written (``ResumeData/expectedLength``).
        var size: Int64?
        /// MDTM's time-val when the bytes were written (``ResumeData/lastModified``, stored as
        /// ``FTPTimestamp/timeVal``).
        var modified: String?
        /// Continue even without a validator (``ResumeData/acceptsUnvalidatedRange``).
        var acceptsUnvalidated = false

        /// The state from its parts.
        init(bytesOnDisk: Int64, size: Int64? = nil, modified: String? = nil, acceptsUnvalidated: Bool = false) {
            self.bytesOnDisk = bytesOnDisk
            self.size = size
            self.modified = modified
            self.acceptsUnvalidated = acceptsUnvalidated
        }

        /// The FTP validators of a download's resume data.
        init(_ data: ResumeData) {
            self.init(bytesOnDisk: data.bytesOnDisk, size: data.expectedLength, modified: data.lastModified,
                      acceptsUnvalidated: data.acceptsUnvalidatedRange)
        }
    }

    /// What to do.
    enum Decision: Equatable, Sendable {
        /// Nothing on disk: transfer from byte 0.
        case fresh
        /// `REST offset` and append.
        case resume(offset: Int64)
        /// The bytes cannot be trusted: truncate and transfer from byte 0.
        case restart(reason: String)
        /// Every byte is already on disk: skip the transfer and finish the file.
        case complete
    }

    /// Decides for `stored` against the server's current `SIZE`/`MDTM`.
    static func decide(_ stored: Stored, current: FTPControlMachine.FileInfo) -> Decision {
        guard stored.bytesOnDisk > 0 else { return .fresh }
        var validated = false
        if let size = stored.size {
            guard let now = current.size else { return .restart(reason: "the server no longer reports the file's size") }
            guard now == size else { return .restart(reason: "the file's size changed (\(size) → \(now) bytes)") }
            validated = true
        }
        if let text = stored.modified {
            guard let then = FTPTimestamp(timeVal: text) else {
                return .restart(reason: "the stored modification time is not an FTP time")
            }
            guard let now = current.modified else {
                return .restart(reason: "the server no longer reports the modification time")
            }
            guard now.sameSecond(as: then) else { return .restart(reason: "the file changed on the server (modified \(now))") }
            validated = true
        }
        guard validated || stored.acceptsUnvalidated else {
            return .restart(reason: "cannot confirm the file is unchanged (no size or modification time)")
        }
        if let size = current.size {
            if stored.bytesOnDisk > size { return .restart(reason: "more bytes on disk (\(stored.bytesOnDisk)) than the file holds (\(size))") }
            if stored.bytesOnDisk == size { return .complete }
        }
        return .resume(offset: stored.bytesOnDisk)
    }
}
