import NIOCore
import Synchronization

/// One send of a request body, as a connection writes it. The exchange makes one for every
/// request it sends (``ExchangeRunner``): data and forms are read again and files reopened, so a
/// redirect, a challenge or a retry sends the same bytes.
enum OutgoingBody: Sendable {
    /// Data, a file or a form: read on the event loop, one chunk each time the socket can take
    /// more (a `pread` per chunk for files, the same model as curl).
    case reader(BodyReader)
    /// A stream (``BodyStream``): the driver pulls its chunks and hands them to the connection,
    /// one at a time, as the socket takes them (``HTTPConnection/send(_:body:expectContinue:progress:)``).
    case stream(BodyStreamSlot, length: Int64?)

    /// The length to announce in `Content-Length`; nil sends the body chunked.
    var length: Int64? {
        switch self {
        case .reader(let reader): reader.contentLength
        case .stream(_, let length): length
        }
    }
}

/// Reports how much of a request body the socket took: `delta` bytes since the last report and
/// `total` so far. Called on the connection's event loop for the first chunk, then at most once
/// per `interval` while the body goes out, and once more when its last byte went (so the last
/// report has the whole length).
struct BodyProgress: Sendable {
    /// The least time between two reports.
    var interval: TimeAmount = .milliseconds(100)
    /// The callback (keep it short: it runs on the event loop).
    let report: @Sendable (_ delta: Int64, _ total: Int64) -> Void
}

/// The stream a request body comes from, across the sends of one task. A stream is handed to the
/// first send that really starts sending: a send that ends before its body went out (withheld
/// after `Expect: 100-continue` by a 401 or a redirect, or a keep-alive connection found closed)
/// leaves it untouched for the next send, so even standard input survives those.
final class BodyStreamSlot: Sendable {
    private let stream: Mutex<AsyncThrowingStream<[UInt8], any Error>?>

    init(_ stream: AsyncThrowingStream<[UInt8], any Error>) {
        self.stream = Mutex(stream)
    }

    /// The stream, the first time; nil afterwards (it was consumed, in part or whole).
    func take() -> AsyncThrowingStream<[UInt8], any Error>? {
        stream.withLock { stream in
            defer { stream = nil }
            return stream
        }
    }

    /// True once a send took the stream.
    var isTaken: Bool { stream.withLock { $0 == nil } }
}

/// The event loop's view of one request body being sent (owned by ``HTTPClientHandler``).
final class OutgoingSend {
    /// The reader of a data, file or form body; nil for a stream (and once the body ended).
    var reader: BodyReader?
    /// The announced length (a stream must yield exactly this many bytes); nil for chunked.
    let length: Int64?
    /// Bytes handed to the channel so far.
    var sent: Int64 = 0
    /// `sent` at the last progress report.
    var reported: Int64 = 0
    var lastReport: NIODeadline
    let progress: BodyProgress?
    /// Inside the read-and-write loop (writes can re-enter through writability changes).
    var pumping = false
    /// A stream's driver waits to hear whether the body may start.
    var startWaiter: EventLoopPromise<Bool>?
    /// A stream's driver waits for the socket to take more.
    var writableWaiter: EventLoopPromise<Bool>?

    init(_ body: OutgoingBody, progress: BodyProgress?, now: NIODeadline) {
        if case .reader(let reader) = body { self.reader = reader }
        self.length = body.length
        self.progress = progress
        // The first chunk is reported at once: whoever watches learns that bytes went.
        self.lastReport = now - (progress?.interval ?? .zero)
    }
}
