import SwgetKit

/// Proxy URLs and no_proxy lists (environment or configuration). Properties: a parsed proxy has a
/// port in range and a non-empty host; a no_proxy list's canonical text parses back to an equal
/// list, and both decide the same for a host and port taken from the input; for names and IPv4
/// the decision agrees with a second formulation of the rule (``NoProxyReference``).
enum ProxyProperty {
    static func check(_ input: [UInt8]) throws(PropertyFailure) {
        var reader = FuzzReader(input)
        let port = Int(reader.byte()) << 8 | Int(reader.byte())
        let parts = text(reader.rest).split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        if let proxy = try? Proxy(parsing: parts[0]) {
            try require((1...65535).contains(proxy.port), "proxy port \(proxy.port)")
            try require(!proxy.host.isEmpty, "empty proxy host")
        }
        let list = parts.count > 1 ? parts[1] : parts[0]
        let host = parts.count > 2 ? parts[2] : "example.com"
        guard let noProxy = try? NoProxy(parsing: list) else { return }
        guard let again = try? NoProxy(parsing: noProxy.description) else {
            throw PropertyFailure(message: "canonical form \(noProxy.description.debugDescription) does not parse", file: #fileID, line: #line)
        }
        try require(again == noProxy, "canonical form \(noProxy.description.debugDescription) parses to another list")
        let decision = noProxy.matches(host: host, port: port)
        try require(again.matches(host: host, port: port) == decision, "matching differs")
        if let reference = NoProxyReference.decides(list: list, host: host, port: port) {
            try require(reference == decision, "\(list.debugDescription) for \(host):\(port): swget says \(decision), the reference \(reference)")
        }
    }
}
