import Dispatch
import Synchronization
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and SIGTERM stop swget cleanly: running downloads are cancelled (their `.part` and
/// resume state are kept and flushed), the command says how to continue and exits 128+signal.
/// A second signal exits at once.
final class Interruption: @unchecked Sendable {  // immutable after init; the signal box is locked
    private final class Received: Sendable {
        let value = Mutex<Int32?>(nil)
    }

    private let received = Received()
    private let sources: [any DispatchSourceSignal]

    init(session: Session) {
        var sources: [any DispatchSourceSignal] = []
        let received = self.received
        for number in [SIGINT, SIGTERM] {
            _ = Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = received.value.withLock { value -> Bool in
                    defer { if value == nil { value = number } }
                    return value == nil
                }
                if first {
                    session.invalidateAndCancel()
                } else {
                    _exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Calls `handler` whenever the terminal is resized (SIGWINCH). Cancel the returned source
    /// when done.
    static func onResize(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        _ = Glibc.signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }

    /// The signal that interrupted the run, if any.
    var signal: Int32? { received.value.withLock { $0 } }
}
