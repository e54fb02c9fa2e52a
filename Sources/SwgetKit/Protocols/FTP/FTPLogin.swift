#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The login an FTP URL gets (pure), first found wins:
/// 1. the URL's `user:password@` (percent-decoded; a user without a password takes the password
///    of its `.netrc` entry, else an empty one);
/// 2. ``FTPSettings/user`` with ``FTPSettings/password`` (same rule for a missing password);
/// 3. the `.netrc` entry of the host (``Netrc/lookup(host:login:)``: `machine`, else `default`),
///    when it names a login;
/// 4. anonymous, with ``FTPSettings/password`` or wget's `-wget@`.
///
/// The `.netrc` account (`ACCT`) goes with a login taken from, or matching, its entry.
struct FTPLogin: Equatable, Sendable {
    var user: String
    var password: String
    var account: String?

    /// The login for `url` under `settings`, with the session's ``SessionConfiguration/netrc``.
    static func resolve(url: URL, settings: FTPSettings, netrc: Netrc?) -> FTPLogin {
        let host = url.host(percentEncoded: false) ?? ""
        if let user = url.user(percentEncoded: false), !user.isEmpty {
            return named(user, password: url.password(percentEncoded: false), host: host, netrc: netrc)
        }
        if let user = settings.user, !user.isEmpty {
            return named(user, password: settings.password, host: host, netrc: netrc)
        }
        if let entry = netrc?.lookup(host: host), let user = entry.login, !user.isEmpty {
            return FTPLogin(user: user, password: entry.password ?? "", account: entry.account)
        }
        return FTPLogin(user: "anonymous", password: settings.password ?? FTPControlMachine.Configuration.anonymousPassword)
    }

    private static func named(_ user: String, password: String?, host: String, netrc: Netrc?) -> FTPLogin {
        let entry = netrc?.lookup(host: host, login: user)
        let matching = entry?.login == user ? entry : nil
        if let password { return FTPLogin(user: user, password: password, account: matching?.account) }
        if let matching, let password = matching.password {
            return FTPLogin(user: user, password: password, account: matching.account)
        }
        let anonymous = user.lowercased() == "anonymous" || user.lowercased() == "ftp"
        return FTPLogin(user: user, password: anonymous ? FTPControlMachine.Configuration.anonymousPassword : "")
    }
}
