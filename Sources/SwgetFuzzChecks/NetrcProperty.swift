import SwgetKit

/// .netrc files. Properties: parsing never crashes; a lookup answers with an entry of the file
/// that names the host (or the `default` entry, only when no `machine` entry names it), and with
/// the login asked when one was.
///
/// `lookup(host:login:)` fills in the asked login when the entry has none (documented: a
/// `default password guest` entry serves any user), so the answer is "an entry of the file with
/// `login` filled in", not always a member of `entries`. The first version of this property
/// demanded membership and failed on exactly that (FuzzNetrc's first finding, a wrong property).
enum NetrcProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        guard let netrc = try? Netrc(parsing: text(input)) else { return }
        let hosts = ["example.com", netrc.entries.first?.machine ?? "x"]
        let logins: [String?] = [nil, netrc.entries.last?.login, "nobody-in-the-file"]
        for host in hosts {
            for login in logins {
                guard let found = netrc.lookup(host: host, login: login) else { continue }
                try require(isFromFile(found, in: netrc, asked: login), "lookup invented an entry: \(found)")
                if let login { try require(found.login == login, "lookup for \(login) answered \(found.login ?? "nil")") }
                if let machine = found.machine {
                    try require(asciiLowercased(machine) == asciiLowercased(host), "lookup for \(host) answered \(machine)")
                } else {
                    try require(!netrc.entries.contains { $0.machine.map(asciiLowercased) == asciiLowercased(host) },
                                "default entry used although a machine entry names \(host)")
                }
            }
        }
    }

    /// True when `found` is one of the file's entries, or one without a login given `login`.
    static func isFromFile(_ found: Netrc.Entry, in netrc: Netrc, asked login: String?) -> Bool {
        if netrc.entries.contains(found) { return true }
        guard let login, found.login == login else { return false }
        var original = found
        original.login = nil
        return netrc.entries.contains(original)
    }

    /// Host names compare without regard to ASCII case (only).
    static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }
}
