/// One request as the test server received it.
public struct TestRequest: Sendable {
    /// The method as sent ("GET", "HEAD", ...).
    public let method: String
    /// The request target as sent: path and query (or an absolute URI, for a proxy request).
    public let uri: String
    /// `uri` without its query.
    public let path: String
    /// "HTTP/1.1" or "HTTP/1.0".
    public let version: String
    /// Every header line, in order, names spelled as received.
    public let headers: [(String, String)]
    /// The decoded body (de-chunked when the client sent it chunked).
    public let body: [UInt8]
    /// Which accepted connection carried this request: 0 for the first connection, then 1, 2...
    public let connectionID: Int

    public init(
        method: String,
        uri: String,
        version: String = "HTTP/1.1",
        headers: [(String, String)],
        body: [UInt8] = [],
        connectionID: Int = 0
    ) {
        self.method = method
        self.uri = uri
        self.path = String(uri.prefix { $0 != "?" })
        self.version = version
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }

    /// The query part of `uri` (after "?"), or nil when there is none.
    public var query: String? {
        guard let mark = uri.firstIndex(of: "?") else { return nil }
        return String(uri[uri.index(after: mark)...])
    }
}
