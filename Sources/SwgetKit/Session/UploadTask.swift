#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A data task whose request carries a body from data, a file or a stream: the counterpart of
/// NSURLSessionUploadTask. The body goes out with flat memory (a file is read in chunks as the
/// socket takes them; a stream is pulled chunk by chunk), reported by
/// ``TaskEvent/sentBodyData(bytesSent:totalBytesSent:totalBytesExpectedToSend:)``; the answer's
/// body comes as ``TaskEvent/data(_:)`` events (or collected by ``Session/upload(for:from:)``).
///
/// What the engine does with the body:
/// - `Content-Length` when the length is known, chunked otherwise; `Expect: 100-continue` for
///   bodies of ``SessionConfiguration/expectContinueThreshold`` bytes and more.
/// - Redirects: 301 and 302 turn a POST into a GET without the body, 303 anything but HEAD;
///   307 and 308 send the body again (files are reopened, streams remade or asked of
///   ``SessionDelegate/task(_:needNewBodyStreamFor:)``).
/// - Retries: only idempotent methods (PUT, DELETE …) with a body that can be sent again are
///   retried once sent; a POST is retried only when no connection could be made
///   (see ``SessionConfiguration/retryPolicy``).
public final class UploadTask: DataTask, @unchecked Sendable {}

extension Session {
    /// A suspended task sending `data` as the body of `request` (whose own body is ignored):
    /// NSURLSession's `uploadTask(with:from:)`. Set the method (POST, PUT …) on the request.
    public func uploadTask(with request: Request, from data: Data) -> UploadTask {
        uploadTask(with: request, body: .data(Array(data)))
    }

    /// A suspended task sending the file at `fileURL` as the body of `request` (whose own body
    /// is ignored), with its length as `Content-Length`: NSURLSession's
    /// `uploadTask(with:fromFile:)`. The file is opened when the request is sent (again for a
    /// 307/308 redirect or a retry); a file that cannot be opened, or is not a regular file, fails
    /// the task with a ``SessionError/Category/fileIO`` error before anything is sent.
    public func uploadTask(with request: Request, fromFile fileURL: URL) -> UploadTask {
        uploadTask(with: request, body: .file(path: fileURL.path(percentEncoded: false)))
    }

    /// A suspended task sending `request` with the body it carries (a ``BodyStream``, a form,
    /// data or a file): NSURLSession's `uploadTask(withStreamedRequest:)`.
    public func uploadTask(withStreamedRequest request: Request) -> UploadTask {
        register { UploadTask(session: self, identifier: $0, request: request, collects: false) }
    }

    /// Sends `data` as the body of `request` and returns the answer's whole body with the final
    /// response (NSURLSession's `upload(for:from:)`). Events still come, except `data`. An
    /// error status is a response, not an error. Cancelling the calling Swift task cancels the
    /// transfer.
    @concurrent public func upload(for request: Request, from data: Data) async throws(SessionError) -> (Data, Response) {
        try await upload(request, body: .data(Array(data)))
    }

    /// Sends the file at `fileURL` as the body of `request` and returns the answer's whole body
    /// with the final response (NSURLSession's `upload(for:fromFile:)`).
    @concurrent public func upload(for request: Request, fromFile fileURL: URL) async throws(SessionError) -> (Data, Response) {
        try await upload(request, body: .file(path: fileURL.path(percentEncoded: false)))
    }

    private func uploadTask(with request: Request, body: RequestBody) -> UploadTask {
        var request = request
        request.body = body
        return register { UploadTask(session: self, identifier: $0, request: request, collects: false) }
    }

    private func upload(_ request: Request, body: RequestBody) async throws(SessionError) -> (Data, Response) {
        var request = request
        request.body = body
        let task = register { UploadTask(session: self, identifier: $0, request: request, collects: true) }
        try await Self.await(task)
        guard let response = task.response else { throw SessionError.badResponse.with("no response") }
        return (Data(task.collectedBody), response)
    }
}
