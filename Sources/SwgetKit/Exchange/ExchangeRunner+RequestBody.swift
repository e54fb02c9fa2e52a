#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request body through the hops of a task: opened for every send, framed, reported, and
/// replayed when a 307/308 redirect, an authentication challenge or a retry needs it again.
///
/// - Data and forms are read again and files reopened for each send (a file that vanished or
///   became unreadable fails that send with a file error).
/// - A stream is made once and kept until a send really starts sending it: a body withheld
///   after `Expect: 100-continue` (a 401, a redirect answered before the body) or a keep-alive
///   connection found closed leave it for the next send. Once consumed, a replayable stream is
///   made again; a single-use one (standard input) is asked of the delegate
///   (``SessionDelegate/task(_:needNewBodyStreamFor:)``, NSURLSession's `needNewBodyStream`),
///   and without an answer the task fails with ``SessionError/bodyNotReplayable``.
extension ExchangeRunner {
    /// `body` opened for one send of `request`.
    func openBody(_ body: RequestBody, for request: Request) async throws(SessionError) -> OutgoingBody {
        guard case .stream(let stream) = body else {
            do {
                guard let reader = try body.makeReader() else { throw SessionError.fileIO.with("the request body cannot be read") }
                return .reader(reader)
            } catch let error as BodyReadError {
                throw SessionError.fileIO.with(error.description).errno(error.errno)
            } catch {
                throw SessionError.fileIO.with("the request body cannot be read")
            }
        }
        if let slot = bodyStream, !slot.isTaken { return .stream(slot, length: stream.length) }
        let first = bodyStream == nil
        var made = first || stream.isReplayable ? stream.makeStream() : nil
        if made == nil {
            let task = self.task
            made = await task.decide { await $0.task(task, needNewBodyStreamFor: request) } ?? nil
        }
        guard let made else {
            let reason = first
                ? "the request body stream was already used by another request"
                : "the request body was read from a stream that cannot be read twice (such as standard input), "
                    + "so it cannot be sent again to \(resendReason)"
            throw SessionError.bodyNotReplayable.with(reason)
        }
        let slot = BodyStreamSlot(made)
        bodyStream = slot
        return .stream(slot, length: stream.length)
    }

    /// How `wire` announces `body`: `Content-Length` or chunked, with `Expect: 100-continue`
    /// for large bodies (``SessionConfiguration/expectContinueThreshold``), never again once the
    /// server refused the expectation with 417 (the caller's `Expect` field is then dropped too).
    func framing(of wire: Request, body: OutgoingBody?) -> RequestFraming {
        let length: Int64?? = body.map { .some($0.length) } ?? .none
        return RequestFraming(method: wire.method, bodyLength: length,
                              expect: expectRefused ? [] : wire.headers.values(for: "Expect"),
                              threshold: expectRefused ? nil : session.configuration.expectContinueThreshold)
    }

    /// Progress of `body` as ``TaskEvent/sentBodyData(bytesSent:totalBytesSent:totalBytesExpectedToSend:)``
    /// events (at most about ten a second, and one with the total); each send counts from zero.
    /// Without a body (a GET after a 303) the counts go back to zero.
    func bodyProgress(_ body: OutgoingBody?) -> BodyProgress? {
        let task = self.task
        let expected = body?.length
        task.status.withLockedValue {
            $0.bytesSent = 0
            $0.bytesExpectedToSend = expected
        }
        guard body != nil else { return nil }
        return BodyProgress { delta, total in
            task.status.withLockedValue { $0.bytesSent = total }
            task.emit(.sentBodyData(bytesSent: delta, totalBytesSent: total, totalBytesExpectedToSend: expected))
        }
    }

    /// True when `body` was (at least in part) consumed by the send that used it: a stream taken.
    func sentBody(_ body: OutgoingBody?) -> Bool {
        if case .stream(let slot, _) = body { return slot.isTaken }
        return false
    }

    /// True when `request` may go again on a new connection after a reused one closed under
    /// it: nothing of a stream body was consumed, and either no body byte went out or the
    /// method is idempotent (RFC 9110 §9.2.2). A POST whose body had started is never sent
    /// twice behind the caller's back: the server may have acted on it.
    func mayResend(_ request: Request, body: OutgoingBody?) -> Bool {
        Self.mayResend(method: request.method, streamConsumed: sentBody(body), bytesSent: task.countOfBytesSent)
    }

    /// The rule of ``mayResend(_:body:)`` as a pure function (tabled by UploadPlumbingTests).
    static func mayResend(method: String, streamConsumed: Bool, bytesSent: Int64) -> Bool {
        guard !streamConsumed else { return false }
        return bytesSent == 0 || TaskAttempts.isIdempotent(method)
    }

    /// The body as Digest's `qop=auth-int` needs it (RFC 7616 §3.4.3): bytes in memory as they
    /// are; a file or form is read and hashed, once per hash function, only when a challenge
    /// offers `auth-int` alone; a stream's digest is unavailable (the challenge is then left out).
    static func digestBody(_ body: RequestBody?, for challenges: [AuthChallenge]) -> DigestEntityBody {
        guard let body else { return .empty }
        switch body {
        case .data(let bytes): return .bytes(bytes)
        case .stream: return .unavailable
        case .file, .multipart: break
        }
        let hashes = Set(challenges.compactMap { try? DigestChallenge($0) }
            .filter { DigestAuthentication.chooseQOP($0) == .authInt }
            .map(\.algorithm.hash))
        guard !hashes.isEmpty else { return .unavailable }
        var hashers = hashes.map { (hash: $0, hasher: DigestHash.Hasher($0)) }
        do {
            guard var reader = try body.makeReader() else { return .unavailable }
            defer { reader.close() }
            var buffer = [UInt8](repeating: 0, count: BodyReader.defaultChunkSize)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                if count == 0 { break }
                buffer.withUnsafeBytes { bytes in
                    let chunk = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                    for index in hashers.indices { hashers[index].hasher.update(chunk) }
                }
            }
        } catch {
            return .unavailable
        }
        return .precomputed(Dictionary(uniqueKeysWithValues: hashers.map { ($0.hash, $0.hasher.finalize()) }))
    }
}
