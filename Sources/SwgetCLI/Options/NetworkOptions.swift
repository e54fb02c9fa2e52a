import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import SwgetKit

/// Which addresses connections use.
struct NetworkOptions: ParsableArguments {
    @Flag(name: [.customShort("4"), .customLong("inet4-only"), .customLong("ipv4")], help: "Connect to IPv4 addresses only.")
    var ipv4Only = false

    @Flag(name: [.customShort("6"), .customLong("inet6-only"), .customLong("ipv6")], help: "Connect to IPv6 addresses only.")
    var ipv6Only = false

    @Option(name: [.customLong("bind-address"), .customLong("interface")],
            help: ArgumentHelp("Connect from this local IP address.", valueName: "ADDRESS"))
    var bindAddress: String?

    @Option(name: .customLong("dns-timeout"),
            help: ArgumentHelp("Give up looking up a host name after SECONDS (a network error, retried like one).", valueName: "SECONDS"))
    var dnsTimeout: Double?
}

extension NetworkOptions {
    func validate() throws {
        if ipv4Only && ipv6Only { throw ValidationError("-4 and -6 cannot be combined") }
        if let bindAddress, !Self.isIPAddress(bindAddress) {
            throw ValidationError("--bind-address takes an IP address, not '\(DisplayText.sanitize(bindAddress))'")
        }
        if let dnsTimeout, !(dnsTimeout > 0 && dnsTimeout <= 1e6) {
            throw ValidationError("--dns-timeout must be a positive number of seconds")
        }
    }

    func apply(to configuration: inout SessionConfiguration) {
        configuration.addressFamily = ipv4Only ? .ipv4 : ipv6Only ? .ipv6 : .any
        configuration.localAddress = bindAddress
        if let dnsTimeout { configuration.dnsTimeout = .milliseconds(Int64((dnsTimeout * 1000).rounded(.up))) }
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
