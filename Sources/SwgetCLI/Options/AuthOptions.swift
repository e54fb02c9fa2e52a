import ArgumentParser
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// Credentials: wget's names first, curl's where wget has none.
struct AuthOptions: ParsableArguments {
    @Option(name: [.customShort("u"), .customLong("user")],
            help: ArgumentHelp("Log in as USER (with :PASSWORD, curl's form) to each URL's own server.", valueName: "USER[:PASSWORD]"))
    var user: String?

    @Option(name: .customLong("password"), help: ArgumentHelp("The password for --user.", valueName: "PASSWORD"))
    var password: String?

    @Option(name: .customLong("http-user"), help: ArgumentHelp("Like --user, for HTTP only.", valueName: "USER"))
    var httpUser: String?

    @Option(name: .customLong("http-password"), help: ArgumentHelp("Like --password, for HTTP only.", valueName: "PASSWORD"))
    var httpPassword: String?

    @Flag(name: .customLong("ask-password"), help: "Ask for the password on the terminal (not echoed).")
    var askPassword = false

    @Option(name: .customLong("netrc-file"),
            help: ArgumentHelp("Read credentials from FILE instead of ~/.netrc.", valueName: "FILE"), completion: .file())
    var netrcFile: String?

    @Flag(name: .customLong("no-netrc"), help: "Do not read ~/.netrc.")
    var noNetrc = false

    @Flag(name: .customLong("auth-no-challenge"),
          help: "Send Basic credentials with the first request instead of waiting for the server to ask.")
    var authNoChallenge = false
}

extension AuthOptions {
    func validate() throws {
        if askPassword && (password != nil || httpPassword != nil) {
            throw ValidationError("--ask-password cannot be combined with --password")
        }
        if netrcFile != nil && noNetrc { throw ValidationError("--netrc-file and --no-netrc cannot be combined") }
    }

    /// The credential for every URL's own origin, from --user/--password, --http-user/--http-password
    /// or the terminal. Throws a usage error when --ask-password has no terminal.
    func credential() throws -> Credential? {
        var name = httpUser ?? user
        var secret = httpPassword ?? password
        if let given = name, secret == nil, let colon = given.firstIndex(of: ":"), httpUser == nil {
            // curl's -u user:password
            name = String(given[..<colon])
            secret = String(given[given.index(after: colon)...])
        }
        guard let name else {
            if askPassword { throw ValidationError("--ask-password needs --user") }
            return nil
        }
        if askPassword { secret = try Self.promptPassword(for: name) }
        return Credential(user: name, password: secret ?? "", persistence: .forSession)
    }

    /// The `.netrc` entries: `--netrc-file`, else `~/.netrc` (absent is fine), none with --no-netrc.
    /// A malformed file is an error (exit 2); one readable by others gets a warning.
    func netrc(warn: (String) -> Void) throws -> Netrc? {
        guard !noNetrc else { return nil }
        let path: String
        if let netrcFile {
            path = netrcFile
        } else {
            guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
            path = home + "/.netrc"
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            if netrcFile != nil { throw ValidationError("cannot read \(path): \(String(cString: strerror(errno)))") }
            return nil
        }
        guard let text = TextFile.read(path, limit: 1 << 20) else {
            throw ValidationError("cannot read \(path)")
        }
        if Netrc.isExposed(mode: UInt32(info.st_mode)) {
            warn("warning: \(path) is readable by others; it holds passwords (chmod 600 \(path))")
        }
        do {
            return try Netrc(parsing: text)
        } catch {
            throw ValidationError("\(path):\(error.line): \(error.description)")
        }
    }

    func apply(to configuration: inout SessionConfiguration) {
        configuration.sendsCredentialsPreemptively = authNoChallenge
    }

    /// Reads a password from the terminal without echoing it.
    static func promptPassword(for user: String) throws -> String {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { throw ValidationError("--ask-password needs a terminal") }
        defer { close(tty) }
        var original = termios()
        guard tcgetattr(tty, &original) == 0 else { throw ValidationError("--ask-password needs a terminal") }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(tty, TCSAFLUSH, &silent)
        defer { _ = tcsetattr(tty, TCSAFLUSH, &original) }
        let prompt = Array("Password for user '\(DisplayText.sanitize(user))': ".utf8)
        _ = prompt.withUnsafeBytes { write(tty, $0.baseAddress, $0.count) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != 10, byte != 13, bytes.count < 4096 { bytes.append(byte) }
        _ = write(tty, "\n", 1)
        return String(decoding: bytes, as: UTF8.self)
    }
}
