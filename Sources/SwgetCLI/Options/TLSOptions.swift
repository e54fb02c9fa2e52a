import ArgumentParser
import SwgetKit

/// TLS.
struct TLSOptions: ParsableArguments {
    @Option(name: [.customLong("ca-certificate"), .customLong("cacert")],
            help: ArgumentHelp("Trust the CA certificates in FILE (PEM) too.", valueName: "FILE"),
            completion: .file())
    var caCertificate: [String] = []

    @Flag(name: [.customLong("no-check-certificate"), .customLong("insecure"), .customShort("k")],
          help: "Do not verify the server's certificate.")
    var noCheckCertificate = false
}

extension TLSOptions {
    func apply(to configuration: inout SessionConfiguration) {
        configuration.tls.additionalTrustRootFiles = caCertificate
        if noCheckCertificate { configuration.tls.verification = .none }
    }
}
