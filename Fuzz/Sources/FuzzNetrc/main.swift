// .netrc files. Property: parsing never crashes, and a lookup returns an entry of the file.
import FuzzSupport
import SwgetKit

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let netrc = try? Netrc(parsing: fuzzText(data, size)) else { return 0 }
    for host in ["example.com", netrc.entries.first?.machine ?? "x"] {
        if let entry = netrc.lookup(host: host) { require(netrc.entries.contains(entry), "lookup invented an entry") }
        if let entry = netrc.lookup(host: host, login: netrc.entries.last?.login) {
            require(netrc.entries.contains(entry), "lookup with login invented an entry")
        }
    }
    return 0
}

runFuzzer(fuzzOne)
