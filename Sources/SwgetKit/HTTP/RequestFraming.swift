/// How a request's body is announced in its head, decided from the method, the body's length
/// and the caller's `Expect` field: a pure value, tested by RequestFramingTests.
///
/// - `Content-Length` when the length is known (RFC 9112 §6.2), `Transfer-Encoding: chunked`
///   when it is not (a stream of unknown length, RFC 9112 §7.1).
/// - No body: nothing, except `Content-Length: 0` for POST, PUT and PATCH, whose bodies mean
///   something (RFC 9110 §8.6: "A user agent SHOULD send Content-Length in a request when the
///   method defines a meaning for enclosed content").
/// - `Expect: 100-continue` (RFC 9110 §10.1.1) for a body of `threshold` bytes or more, or of
///   unknown length, as curl does. The caller's own `Expect` field decides instead when there is
///   one: empty sends none (curl's `-H 'Expect:'`), `100-continue` waits for any body, another
///   expectation is sent as given without waiting.
struct RequestFraming: Equatable, Sendable {
    /// The framing field.
    enum Length: Equatable, Sendable {
        /// No body and no field.
        case none
        /// `Content-Length: n`.
        case known(Int64)
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    let length: Length
    /// The head carries `Expect: 100-continue` and the body waits for `100 Continue`.
    let expectContinue: Bool
    /// Whether a body follows the head at all.
    let hasBody: Bool

    /// `bodyLength`: nil without a body, `.some(nil)` for a body of unknown length.
    init(method: String, bodyLength: Int64??, expect: [String], threshold: Int64?) {
        guard case .some(let length) = bodyLength else {
            let meaningful = ["POST", "PUT", "PATCH"].contains { $0.caseInsensitiveEquals(method) }
            self.length = meaningful ? .known(0) : .none
            self.expectContinue = false
            self.hasBody = false
            return
        }
        self.hasBody = true
        self.length = length.map { .known(max(0, $0)) } ?? .chunked
        let own = expect.map(\.trimmingOWS)
        if !own.isEmpty {
            // The caller's field: "100-continue" asks for the wait, "" for none.
            self.expectContinue = own.contains { $0.caseInsensitiveEquals("100-continue") } && length != 0
        } else if let threshold, threshold >= 0 {
            self.expectContinue = length.map { $0 >= threshold && $0 > 0 } ?? true
        } else {
            self.expectContinue = false
        }
    }
}
