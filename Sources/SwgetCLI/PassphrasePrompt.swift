#if canImport(Glibc)
import Glibc
#endif

/// Asks for a secret on the terminal, without echo: the passphrase of an encrypted client key
/// when none was given (`--pass`, `--cert FILE:PASSWORD`), as OpenSSL's prompt does for wget and
/// curl.
///
/// Only when standard input is a terminal: the prompt goes to stderr, echo is turned off while
/// the line is read (at most ``maximumLength`` bytes; the rest of a longer line is read and
/// dropped) and restored afterwards, also when SIGINT, SIGTERM, SIGHUP or SIGQUIT interrupt the
/// prompt (the signal then ends the process as it would have). Without a terminal there is no
/// prompt: the caller reports that a passphrase is needed.
enum PassphrasePrompt {
    /// The longest passphrase read.
    static let maximumLength = 1024

    /// The line typed after `prompt` (without its newline), or nil when standard input is not a
    /// terminal or is closed before a newline.
    static func read(_ prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        savedTerminal = original
        let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        let previous = signals.map { signal($0, restoreTerminalAndDie) }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            for (number, handler) in zip(signals, previous) { signal(number, handler) }
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else { return nil }
        Terminal.write(prompt)
        return readLine(from: STDIN_FILENO)
    }

    /// Bytes up to a newline (kept at most `maximumLength`), decoded as UTF-8; nil at end of
    /// input before a newline or on a read error.
    private static func readLine(from fd: Int32) -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { break }
            if line.count < maximumLength { line.append(byte) }
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
}

/// The terminal settings to put back if a signal arrives while echo is off (read by the signal
/// handler, which may not touch anything else).
nonisolated(unsafe) private var savedTerminal = termios()

/// Restores the terminal (tcsetattr is async-signal-safe), then lets the signal end the process.
private func restoreTerminalAndDie(_ number: Int32) {
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal)
    signal(number, SIG_DFL)
    raise(number)
}
