import NIOCore

/// A NIO event loop as a Swift task executor: work that prefers it runs on the loop's thread,
/// beside the connections it drives.
///
/// The transfers of a session with ``SessionThreading/eventLoop`` threading run here. On Swift's
/// global pool every request crosses threads twice: the task hands the request to the loop, and
/// the loop hands the answer back, each crossing a wake-up of a sleeping thread. On the loop, a
/// task that sends a request and awaits its answer only queues work on its own thread.
///
/// Code that runs here must not block: a blocking call stalls every connection of the loop.
/// SwgetKit's own blocking work is short file-system calls (open, link, a small write), the
/// kind the loop already does when it writes a streamed body. The session's delegate is called
/// here too, and has the same duty (``SessionThreading/eventLoop``).
final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
    let eventLoop: EventLoop

    init(_ eventLoop: EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
