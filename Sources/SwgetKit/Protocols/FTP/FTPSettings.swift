/// How a session talks to FTP servers (``SessionConfiguration/ftp``): login, data connections,
/// TLS for `ftp://` URLs, and connection reuse. `ftps://` URLs always use implicit TLS (RFC 4217
/// §4's "implicit" mode: TLS from the first byte, port 990 by default).
///
/// Credentials are chosen per URL, first found wins: the URL's `user:password@` (percent-decoded),
/// then ``user``/``password``, then the ``netrc`` entry of the host, then anonymous with wget's
/// password (`-wget@`, or ``password`` when given). A user without a password takes the password
/// of its `.netrc` entry, if any, else an empty one.
public struct FTPSettings: Sendable, Equatable {
    /// TLS on `ftp://` URLs (RFC 4217 explicit mode: `AUTH TLS` after the greeting).
    public enum Security: Sendable, Equatable {
        /// Plain FTP (wget's default).
        case none
        /// Ask for TLS; continue in clear text when the server refuses (curl's `--ftp-ssl`).
        case tryTLS
        /// Ask for TLS and fail (exit 5) when the server refuses (curl's `--ssl-reqd`).
        case requireTLS
    }

    /// The login name when the URL names none (wget's `--ftp-user`); nil: `.netrc`, then
    /// anonymous.
    public var user: String?
    /// The password for ``user``, or for the anonymous login (wget's `--ftp-password`).
    public var password: String?
    /// Passive data connections (EPSV, then PASV), the default; false for active mode (the server
    /// connects back: EPRT, then PORT), wget's `--no-passive-ftp`.
    public var passive = true
    /// TLS for `ftp://` URLs.
    public var security = Security.none
    /// With TLS on the control connection, protect the data connections too (`PBSZ 0`, `PROT P`).
    /// false: only the control connection (curl's `--ftp-ssl-control`, wget's
    /// `--ftps-clear-data-connection`).
    public var protectsData = true
    /// Try EPSV/EPRT (RFC 2428) before PASV/PORT; false goes straight to PASV/PORT (curl's
    /// `--disable-epsv`).
    public var usesExtendedPassive = true
    /// Walk to the file's directory with one `CWD` per segment (wget's and curl's "multicwd")
    /// instead of sending whole paths. Whole paths (the default) save round trips and work with
    /// every server tested; some old servers need CWD.
    public var changesDirectories = false
    /// Keep logged-in control connections for later files of the same server, user and TLS
    /// mode within the session (closed after ``SessionConfiguration/idleConnectionTimeout``).
    public var reusesConnections = true

    /// Plain, passive, anonymous unless told otherwise.
    public init() {}
}
