import ArgumentParser
import SwgetKit

/// Cookies: on by default, in memory for the run (wget); files in the Netscape format curl and
/// wget share.
struct CookieOptions: ParsableArguments {
    @Flag(name: .customLong("no-cookies"), help: "Neither send nor keep cookies.")
    var noCookies = false

    @Option(name: [.customLong("load-cookies"), .customLong("cookie")],
            help: ArgumentHelp("Load cookies from FILE (Netscape format); curl's --cookie also takes 'name=value; n2=v2'.",
                               valueName: "FILE"),
            completion: .file())
    var loadCookies: [String] = []

    @Option(name: [.customLong("save-cookies"), .customLong("cookie-jar")],
            help: ArgumentHelp("Save the cookies to FILE at the end (Netscape format, mode 0600).", valueName: "FILE"),
            completion: .file())
    var saveCookies: String?

    @Flag(name: .customLong("keep-session-cookies"), help: "Save session cookies too (they have no expiry).")
    var keepSessionCookies = false
}

extension CookieOptions {
    func validate() throws {
        if noCookies && (!loadCookies.isEmpty || saveCookies != nil) {
            throw ValidationError("--no-cookies cannot be combined with --load-cookies or --save-cookies")
        }
    }
}
