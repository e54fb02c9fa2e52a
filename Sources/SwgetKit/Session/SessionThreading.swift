/// Where a session runs its transfers and calls its delegate: NSURLSession's `delegateQueue`,
/// in Swift concurrency's terms.
///
/// A transfer waits on its connection at every step: it hands a request to the event loop that
/// carries the connection, and the loop hands the answer back. On Swift's global executor each
/// handover wakes a thread on the other side; on the loop's own thread it is a function call
/// queued behind the network's. What runs there must not block, though: a callback that sleeps
/// or computes for long stalls every connection of the session.
public struct SessionThreading: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case concurrent, eventLoop
    }

    private let kind: Kind

    /// Transfers and delegate calls on Swift's global concurrent executor (the default): a
    /// delegate may block or compute at leisure, and connections are spread over NIO's loops.
    public static let concurrent = SessionThreading(kind: .concurrent)

    /// Each transfer, its connections and its delegate calls on the thread of one event loop of
    /// NIO's shared group: no thread switch per request. A task runs on the loop it is created
    /// from when that is one of the session's, otherwise on the next loop in turn; a new
    /// connection goes on the task's loop, and a reused one is taken from it first. For
    /// delegates that never block (a delegate isolated to an actor still runs on that actor).
    /// In a batch of 1,000 small files on one loop this took context switches from ~1,300 to
    /// ~60 and CPU time down by a fifth; the command spreads its batch over the loops
    /// (``Session/taskExecutors``).
    public static let eventLoop = SessionThreading(kind: .eventLoop)

    public var description: String { kind == .concurrent ? "concurrent" : "event loop" }
}
