#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// The files a run's stores come from and go back to: cookie files (`--load-cookies`,
/// `--save-cookies`) and the HSTS database. Loaded before the first request, saved after the
/// last; a bad line is a warning naming `FILE:LINE`, never fatal.
struct StoreFiles {
    let cookies: CookieOptions
    let hsts: HSTSOptions

    /// The HSTS database: `--hsts-file`, else `$XDG_DATA_HOME/swget/hsts` (`~/.local/share/swget/hsts`).
    var hstsPath: String? {
        if let file = hsts.hstsFile { return file }
        if let data = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), !data.isEmpty { return data + "/swget/hsts" }
        guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
        return home + "/.local/share/swget/hsts"
    }

    /// Fills the configuration's stores; `urls` receive the literal cookies of curl's
    /// `--cookie 'n=v'` (each for its own host).
    func load(into configuration: inout SessionConfiguration, urls: [URL], warn: (String) -> Void) throws {
        if cookies.noCookies {
            configuration.cookieStorage = nil
        } else if let storage = configuration.cookieStorage {
            let now = Date()
            for argument in cookies.loadCookies {
                if NetscapeCookieFile.isLiteral(argument) && access(argument, F_OK) != 0 {
                    for url in urls {
                        for cookie in NetscapeCookieFile.cookies(fromLiteral: argument, for: url, now: now) { storage.setCookie(cookie) }
                    }
                    continue
                }
                let contents: NetscapeCookieFile.Contents
                do {
                    contents = try NetscapeCookieFile.load(path: argument, now: now)
                } catch {
                    throw FileError(description: error.description)
                }
                for warning in contents.warnings { warn("\(argument):\(warning.line): \(warning.reason); line skipped") }
                for entry in contents.entries {
                    if case .rejected(let why) = storage.setCookie(entry.cookie) {
                        warn("\(argument):\(entry.line): \(why.description); cookie skipped")
                    }
                }
            }
        }
        if hsts.noHSTS {
            configuration.hsts = nil
        } else if let store = configuration.hsts, let path = hstsPath {
            do {
                for warning in try store.load(contentsOf: path) { warn("\(path):\(warning.line): \(warning.reason); line skipped") }
            } catch {
                warn("cannot read the HSTS database: \(error.description)")
            }
            store.markSaved()
        }
    }

    /// Writes what changed: the cookie jar, the HSTS database.
    func save(_ configuration: SessionConfiguration, warn: (String) -> Void) {
        if let path = cookies.saveCookies, let storage = configuration.cookieStorage {
            do {
                try NetscapeCookieFile.save(storage.cookiesToSave(keepSessionCookies: cookies.keepSessionCookies), to: path,
                                            includeSessionCookies: cookies.keepSessionCookies, now: Date())
            } catch {
                warn("cannot save cookies: \(error.description)")
            }
        }
        if let store = configuration.hsts, store.hasChanges, let path = hstsPath {
            do {
                try store.save(to: path)
            } catch {
                warn("cannot save the HSTS database: \(error.description)")
            }
        }
    }

    /// A file that cannot be used (exit 3).
    struct FileError: Error, CustomStringConvertible {
        let description: String
    }
}
