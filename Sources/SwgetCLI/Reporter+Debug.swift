import SwgetKit

/// `-d`: what the library tells a debug log, as lines people can read and paste into a bug
/// report without leaking a secret: credentials (`Authorization`, `Proxy-Authorization`,
/// `Cookie`) become `***`, URL passwords too, and every text is sanitised for a terminal.
extension Reporter {
    func debug(_ task: SessionTask, _ event: DebugEvent) {
        guard options.debug, options.indicator != .json else { return }
        say(Self.debugText(event))
    }

    /// The lines for one debug event (no final newline).
    static func debugText(_ event: DebugEvent) -> String {
        switch event {
        case let .connected(host, port, address, proxy):
            let peer = address.map { " (\($0))" } ?? ""
            let via = proxy.map { " through proxy \(URLDisplay.maskedString($0))" } ?? ""
            return DisplayText.sanitize("Connected to \(HostText.endpoint(host, port: port))\(peer)\(via).")
        case let .reusingConnection(host, port):
            return DisplayText.sanitize("Reusing the connection to \(HostText.endpoint(host, port: port)).")
        case let .requestSent(method, target, version, headers):
            return requestText(method: method, target: target, version: version, headers: headers)
        }
    }

    /// A request head as wget's `-d` prints it, between `---request begin---` and
    /// `---request end---`, secrets masked.
    static func requestText(method: String, target: String, version: String, headers: HeaderFields) -> String {
        var lines = ["---request begin---", DisplayText.sanitize("\(method) \(URLDisplay.maskedString(target)) \(version)")]
        for field in headers {
            lines.append(DisplayText.sanitize("\(field.name): \(maskedValue(name: field.name, value: field.value))"))
        }
        lines.append("---request end---")
        return lines.joined(separator: "\n")
    }

    /// The fields whose values are secrets.
    static let secretFields: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// A field's value for a log: `***` for a secret, URL passwords masked otherwise.
    static func maskedValue(name: String, value: String) -> String {
        secretFields.contains(name.lowercased()) ? "***" : URLDisplay.maskedString(value)
    }

}
