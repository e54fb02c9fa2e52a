/// wget's `--start-pos` (``DownloadDestination/startOffset``) as a pure decision: what the
/// request asks for, and whether an answer can be written from the start of the file.
enum StartOffset {
    /// The header field that asks for the body from `offset` on.
    static func fields(_ offset: Int64) -> [(name: String, value: String)] {
        [("Range", "bytes=\(offset)-")]
    }

    /// Why a final answer to `Range: bytes=offset-` cannot be saved as the bytes from `offset`
    /// on; nil when it can (a `206` whose `Content-Range` starts at `offset`) or when it is not
    /// a success (the usual error handling applies: a `416` is an error status).
    static func problem(status: Int, contentRange: String?, offset: Int64) -> String? {
        guard (200..<300).contains(status) else { return nil }
        guard status == 206 else {
            return "the server ignored the range from byte \(offset) and answered \(status)"
        }
        guard let range = contentRange.flatMap(ContentRange.init), let first = range.first else {
            return "the server's partial answer has no usable Content-Range"
        }
        guard first == offset else {
            return "the server's partial answer starts at byte \(first), not at byte \(offset)"
        }
        return nil
    }
}
