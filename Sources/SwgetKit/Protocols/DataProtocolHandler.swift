#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The built-in handler of `data:` URLs (RFC 2397): the payload is the body, the media type
/// (with its charset) the `Content-Type`; `Range: bytes=N-` is honoured like a file's, so the
/// download machinery treats it like any resource. A download names the file "data" plus the
/// media type's extension ("data.txt"), unless the caller chose a name (`-O`).
///
/// Failures: a malformed URL (no comma, bad percent-encoding or base64) is
/// ``SessionError/unsupportedURL``; methods other than `GET` and `HEAD` too.
public struct DataProtocolHandler: ProtocolHandler {
    /// The handler.
    public init() {}

    /// True for data URLs.
    public func canHandle(_ request: Request) -> Bool {
        request.url.scheme?.lowercased() == "data"
    }

    /// Loads `request` as the type's documentation says, reporting to `client`.
    public func startLoading(_ request: Request, client: ProtocolClient) async {
        let method = request.sentMethod
        guard method == "GET" || method == "HEAD" else {
            return client.didFail(with: SessionError.unsupportedURL.with("data: URLs can only be read (GET or HEAD)").at(request.url))
        }
        let data: DataURL
        do {
            data = try DataURL(request.url.absoluteString)
        } catch {
            return client.didFail(with: SessionError.unsupportedURL.with(error.description).at(request.url))
        }
        let length = Int64(data.bytes.count)
        // A data: URL cannot change: any range of it is valid.
        let answer = RangeAnswer.decide(RangeRequest(request.headers), length: length, validatorMatches: true)
        let response = answer.response(url: request.url, length: length, extra: ["Content-Type": data.contentType],
                                       headOnly: method == "HEAD")
        guard await client.didReceive(response), method == "GET" else { return client.didFinishLoading() }
        if case .whole = answer {
            await client.didLoad(bytes: data.bytes)
        } else if case .partial(let offset) = answer {
            await client.didLoad(bytes: Array(data.bytes[Int(offset)...]))
        }
        client.didFinishLoading()
    }
}
