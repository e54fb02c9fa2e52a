import ArgumentParser
import SwgetKit

/// FTP: logins, data connections, TLS for ftp:// URLs and globbing. The `.netrc` file
/// (`--netrc-file`, `--no-netrc`) is read once by ``AuthOptions`` for HTTP and FTP alike.
struct FTPOptions: ParsableArguments {
    @Option(name: .customLong("ftp-user"),
            help: ArgumentHelp("Log in to FTP servers as USER when the URL names no user (default: .netrc, else anonymous).",
                               valueName: "USER"))
    var ftpUser: String?

    @Option(name: .customLong("ftp-password"),
            help: ArgumentHelp("The FTP password (for --ftp-user, or the anonymous login's instead of -wget@).", valueName: "PASSWORD"))
    var ftpPassword: String?

    @Flag(name: .customLong("no-passive-ftp"), help: "Active FTP: the server connects back to swget (EPRT, then PORT).")
    var noPassiveFTP = false

    @Flag(name: .customLong("ftp-pasv"), help: "Passive FTP (EPSV, then PASV): the default; cancels --no-passive-ftp.")
    var ftpPassive = false

    @Option(name: .customLong("ftp-port"),
            help: ArgumentHelp("Active FTP, as curl's option; swget listens on the control connection's own address whatever ADDRESS says.",
                               valueName: "ADDRESS"))
    var ftpPort: String?

    @Flag(name: .customLong("disable-epsv"), help: "Do not try EPSV/EPRT (RFC 2428): PASV/PORT only.")
    var disableEPSV = false

    @Option(name: .customLong("ftp-method"),
            help: ArgumentHelp("How paths reach the server: nocwd (whole paths, the default) or multicwd (CWD to each directory).",
                               valueName: "METHOD"))
    var ftpMethod: String?

    @Flag(name: [.customLong("ftp-ssl"), .customLong("ssl")],
          help: "Ask for TLS on ftp:// URLs (AUTH TLS); go on in clear text if the server refuses. ftps:// is always TLS.")
    var ftpSSL = false

    @Flag(name: [.customLong("ssl-reqd"), .customLong("ftp-ssl-reqd")],
          help: "Require TLS on ftp:// URLs: fail (exit 5) if the server refuses AUTH TLS.")
    var sslRequired = false

    @Flag(name: .customLong("ftp-ssl-control"), help: "Ask for TLS on ftp:// URLs for the login only; data connections in clear text.")
    var sslControl = false

    @Flag(name: .customLong("ftps-clear-data-connection"), help: "With FTPS, leave data connections unencrypted (no PROT P).")
    var clearDataConnection = false

    @Flag(inversion: .prefixedNo,
          help: "Expand wildcards (*, ?, [...]) in the last segment of ftp:// URLs to the matching files (default: on).")
    var glob = true
}

extension FTPOptions {
    func validate() throws {
        if let ftpMethod, !["nocwd", "multicwd", "singlecwd"].contains(ftpMethod.lowercased()) {
            throw ValidationError("invalid --ftp-method '\(ftpMethod)': expected nocwd or multicwd")
        }
        for value in [ftpUser, ftpPassword].compactMap({ $0 }) where value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw ValidationError("FTP user names and passwords cannot hold line breaks")
        }
    }

    func apply(to configuration: inout SessionConfiguration) {
        var ftp = configuration.ftp
        ftp.user = ftpUser
        ftp.password = ftpPassword
        ftp.passive = ftpPassive || (!noPassiveFTP && ftpPort == nil)
        ftp.usesExtendedPassive = !disableEPSV
        ftp.changesDirectories = ftpMethod.map { $0.lowercased() != "nocwd" } ?? false
        if sslRequired {
            ftp.security = .requireTLS
        } else if ftpSSL || sslControl {
            ftp.security = .tryTLS
        }
        ftp.protectsData = !(sslControl || clearDataConnection)
        configuration.ftp = ftp
    }
}
