/// A command the client sends on the control connection (RFC 959 §4.1, RFC 2228 / 4217 for
/// AUTH, PBSZ and PROT, RFC 2428 for EPSV and EPRT, RFC 3659 for SIZE, MDTM, REST, MLST, MLSD).
///
/// Arguments are sent as given: ``FTPControlMachine`` only builds commands from arguments already
/// checked to hold no CR, LF or NUL (``FTPPath``'s invariant, and the credentials' check at
/// login), so one command is always exactly one line.
enum FTPCommand: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// `USER name` (RFC 959 §4.1.1).
    case user(String)
    /// `PASS password`; hidden in ``description``.
    case pass(String)
    /// `ACCT account`, when the server answers 332; hidden in ``description``.
    case acct(String)
    /// `AUTH TLS` (RFC 4217 §4), or `AUTH SSL` for old servers.
    case auth(String)
    /// `PBSZ 0` (RFC 4217 §8: always 0 for TLS).
    case pbsz
    /// `PROT P`: protect the data connections (RFC 4217 §9).
    case protPrivate
    /// `TYPE I` (binary).
    case typeImage
    /// `PWD`: the login directory, for CWD mode.
    case pwd
    /// `CWD dir`: one directory segment (or the login directory to return to).
    case cwd(String)
    /// `SIZE path` (RFC 3659 §4).
    case size(String)
    /// `MDTM path` (RFC 3659 §3).
    case mdtm(String)
    /// `EPSV` (RFC 2428 §3).
    case epsv
    /// `PASV` (RFC 959 §4.1.2).
    case pasv
    /// `EPRT |1|host|port|` with the argument from ``FTPAddress/extendedPortArgument(host:port:)``.
    case eprt(String)
    /// `PORT h1,h2,h3,h4,p1,p2` with the argument from ``FTPAddress/portArgument(host:port:)``.
    case port(String)
    /// `REST offset` (RFC 3659 §5, stream mode).
    case rest(Int64)
    /// `RETR path`.
    case retr(String)
    /// `MLSD` with an optional directory (none: the current one).
    case mlsd(String?)
    /// `LIST` with an optional directory.
    case list(String?)
    /// `MLST` with an optional path.
    case mlst(String?)
    /// `QUIT`.
    case quit

    /// The command name ("RETR").
    var verb: String {
        switch self {
        case .user: "USER"
        case .pass: "PASS"
        case .acct: "ACCT"
        case .auth: "AUTH"
        case .pbsz: "PBSZ"
        case .protPrivate: "PROT"
        case .typeImage: "TYPE"
        case .pwd: "PWD"
        case .cwd: "CWD"
        case .size: "SIZE"
        case .mdtm: "MDTM"
        case .epsv: "EPSV"
        case .pasv: "PASV"
        case .eprt: "EPRT"
        case .port: "PORT"
        case .rest: "REST"
        case .retr: "RETR"
        case .mlsd: "MLSD"
        case .list: "LIST"
        case .mlst: "MLST"
        case .quit: "QUIT"
        }
    }

    /// The argument, if any.
    var argument: String? {
        switch self {
        case .user(let a), .pass(let a), .acct(let a), .auth(let a), .cwd(let a), .size(let a), .mdtm(let a), .eprt(let a),
             .port(let a), .retr(let a):
            a
        case .mlsd(let a), .list(let a), .mlst(let a): a.flatMap { $0.isEmpty ? nil : $0 }
        case .pbsz: "0"
        case .protPrivate: "P"
        case .typeImage: "I"
        case .rest(let offset): String(offset)
        case .pwd, .epsv, .pasv, .quit: nil
        }
    }

    /// The line without its CRLF: "RETR pub/file".
    var line: String {
        guard let argument else { return verb }
        return verb + " " + argument
    }

    /// The bytes to write: the line and CRLF.
    var wire: [UInt8] { Array(line.utf8) + [0x0D, 0x0A] }

    /// The line for logs and `-d` output, with the password and account hidden.
    var description: String {
        switch self {
        case .pass: "PASS ****"
        case .acct: "ACCT ****"
        default: line
        }
    }

    /// True when `text` can be an argument: no CR, LF or NUL.
    static func isSafeArgument(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }
}
