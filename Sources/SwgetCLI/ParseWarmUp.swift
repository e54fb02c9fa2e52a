import ArgumentParser
import Dispatch

/// Answers, on another core, the type questions ArgumentParser is about to ask the Swift
/// runtime while it parses the command line.
///
/// ArgumentParser reflects over the command and casts each option group: is its type
/// `CustomReflectable` (`Mirror`), a `ParsableCommand`, a `ParsableArguments`? The runtime
/// answers the first such question about a type by scanning every protocol conformance record
/// of the binary (about 6,700, some 25 µs) and remembers the answer for all threads. With 18
/// groups those 54 scans were a quarter of the parse, on the main thread, while the other
/// core waited. Asked here first, mostly before the parser gets to them (it goes through the
/// groups in order, this in reverse), the parser finds the answers remembered: over 31 one-file
/// runs the parse's lower quartile went from 4.8 to 4.1 ms and its median from 6.3 to 5.0 ms.
///
/// Only ever a speed-up: the answers are the runtime's, whoever asks first. A group missing
/// from ``groups`` is merely asked by the parser itself; `ParseWarmUpTests` keeps the list
/// equal to the command's `@OptionGroup`s.
enum ParseWarmUp {
    /// The types of ``SwgetCommand``'s option groups, in declaration order.
    static let groups: [Any.Type] = [
        InputOptions.self, DestinationOptions.self, LayoutOptions.self, ConditionOptions.self,
        OutputOptions.self, HTTPOptions.self, TLSOptions.self, HSTSOptions.self, AuthOptions.self,
        CookieOptions.self, ProxyOptions.self, NetworkOptions.self, TransferOptions.self,
        FTPOptions.self, LogOptions.self, WaitOptions.self, ConfigOptions.self, UploadOptions.self,
    ]

    static func start() {
        DispatchQueue.global().async {
            // `Mirror` comes first in the parse, the command and decode checks after it.
            for group in groups.reversed() { _ = isReflectable(group) }
            for group in groups { _ = kinds(of: group) }
        }
    }

    // Not inlined: each must reach the runtime as a dynamic cast of the type.
    @inline(never) static func isReflectable(_ type: Any.Type) -> Bool {
        type is any CustomReflectable.Type
    }

    @inline(never) static func kinds(of type: Any.Type) -> (command: Bool, arguments: Bool) {
        (type is any ParsableCommand.Type, type is any ParsableArguments.Type)
    }
}
