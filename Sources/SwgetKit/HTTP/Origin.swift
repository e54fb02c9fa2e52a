#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Scheme, host and port: the unit that credentials and connections belong to.
struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = (url.host ?? "").lowercased()
        port = url.port ?? Self.defaultPort(scheme: scheme)
    }

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }

    /// The port of an http or https URL that names none.
    static func defaultPort(scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    func isSame(as other: Origin) -> Bool { self == other }

    var description: String { "\(scheme)://\(host):\(port)" }
}
