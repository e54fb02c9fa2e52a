// Proxy URLs and no_proxy lists (environment or configuration). Properties: a parsed proxy has a
// port in range and a non-empty host; a no_proxy list's canonical text parses back to an equal
// list, and both decide the same for a host and port taken from the input.
import FuzzSupport
import SwgetKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(data, size))
    let port = Int(reader.byte()) << 8 | Int(reader.byte())
    let text = String(decoding: reader.rest, as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    if let proxy = try? Proxy(parsing: parts[0]) {
        require((1...65535).contains(proxy.port), "proxy port \(proxy.port)")
        require(!proxy.host.isEmpty, "empty proxy host")
    }
    let list = parts.count > 1 ? parts[1] : parts[0]
    let host = parts.count > 2 ? parts[2] : "example.com"
    guard let noProxy = try? NoProxy(parsing: list) else { return 0 }
    guard let again = try? NoProxy(parsing: noProxy.description) else {
        require(false, "canonical form \(noProxy.description.debugDescription) does not parse")
        return 0
    }
    require(again == noProxy, "canonical form parses to another list")
    require(again.matches(host: host, port: port) == noProxy.matches(host: host, port: port), "matching differs")
    return 0
}

runFuzzer(fuzzOne)
