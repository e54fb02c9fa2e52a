import NIOCore
import NIOHTTP1

/// How a request's body goes out, as the driver asks for it.
enum RequestBodyMode: Equatable, Sendable {
    /// No body: head and end in one write.
    case none
    /// The body follows the head at once.
    case immediate
    /// The head carries `Expect: 100-continue`; the body waits for `100 Continue` or the
    /// driver's timer (RFC 9110 §10.1.1).
    case expectContinue
}

/// The request body's side of one exchange.
///
/// ```
/// none ──sendRequest(.immediate)──────► sending ──bodyEnded──► none
/// none ──sendRequest(.expectContinue)─► awaitingContinue ──100 / timer──► sending
/// awaitingContinue, sending ──final head, failure──► withheld (the connection is not reused)
/// ```
///
/// Invariants: the body is written only in `sending`; a connection whose body was withheld or
/// cut short never carries another request (the server may still be waiting for the bytes
/// its `Content-Length` announced, or read the next request as body).
enum RequestBodyPhase: Equatable, Sendable {
    /// No body, or every byte and the end were handed to the channel.
    case none
    /// The head went with `Expect: 100-continue`; the body waits.
    case awaitingContinue
    /// The body is being written.
    case sending
    /// A final answer (or a failure) came before the body was complete: not sent, or cut short.
    case withheld

    /// The body has bytes still to send.
    var isUnfinished: Bool { self == .awaitingContinue || self == .sending }
}

extension HTTP1ConnectionStateMachine {
    /// A 1xx head other than 101 (those come before the final answer).
    static func isInformational(_ status: UInt) -> Bool {
        (100..<200).contains(status) && status != 101
    }

    /// The continue timer fired: a server that ignores `Expect` gets the body anyway.
    mutating func continueTimedOut() -> Action {
        guard requestBody == .awaitingContinue, case .awaitingHead = state else { return .none }
        requestBody = .sending
        return .startBody
    }

    /// The socket took more of the body: activity for the idle check (a slow upload is not a
    /// silent server).
    mutating func bodyProgressed(now: NIODeadline) {
        guard requestBody == .sending else { return }
        noteActivity(now)
    }

    /// The last byte of the body and its end were handed to the channel.
    mutating func bodyEnded(now: NIODeadline) -> Action {
        guard requestBody == .sending else { return .none }
        requestBody = .none
        noteActivity(now)
        return .none
    }

    /// The body could not be read (a file error, a failing stream): the request cannot be
    /// completed, so the exchange fails and the connection closes.
    mutating func bodyFailed(_ error: SessionError) -> Action {
        guard requestBody.isUnfinished else { return .none }
        return fail(error)
    }

    /// True while body bytes may be written.
    var isSendingBody: Bool { requestBody == .sending }

    /// A 1xx head while the request waits for its answer.
    mutating func continueReceived(status: UInt) -> Action {
        guard status == 100, requestBody == .awaitingContinue else { return .none }
        requestBody = .sending
        return .startBody
    }

    /// A final head before the body was complete (a 401, 407, 417, a redirect, an error; or a
    /// server that answers without reading): the body is withheld, the answer delivered, and
    /// the connection never reused.
    mutating func finalAnswerBeforeBody(_ head: HTTPResponseHead) -> Action {
        requestBody = .withheld
        poison()
        return .withholdBodyAndSucceedHead(head)
    }
}
