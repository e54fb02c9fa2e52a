import SwgetKit

/// A TLS file named on the command line cannot be used: the one line to print, naming the option.
struct TLSSetupError: Error, CustomStringConvertible {
    let description: String
}

extension TLSOptions {
    /// Reads the files the options name (pins, CRLs, CA directories, the client identity, asking
    /// for its passphrase on the terminal when needed) and applies everything to `configuration`.
    /// Returns warnings to print (CA directory files skipped). Throws with one line naming the
    /// option when a file cannot be used.
    func load(into configuration: inout SessionConfiguration,
              passphrase prompt: (String) -> String? = PassphrasePrompt.read) throws(TLSSetupError) -> [String] {
        var warnings: [String] = []
        var tls = configuration.tls
        tls.additionalTrustRootFiles = caCertificate
        if noCheckCertificate { tls.verification = .none }
        if noSessionID { tls.resumesSessions = false }
        do {
            tls.versionPolicy = try versionPolicy()
        } catch {
            throw TLSSetupError(description: error.description)
        }
        if let pinnedPublicKey {
            do {
                tls.pinnedPublicKey = try PublicKeyPin(argument: pinnedPublicKey)
            } catch {
                throw TLSSetupError(description: error.description)
            }
        }
        for path in crlFile {
            do {
                tls.revocationLists += try CertificateRevocationList.load(path: path)
            } catch {
                throw TLSSetupError(description: "--crl-file: \(error.reason)")
            }
        }
        for path in caDirectory {
            do {
                let contents = try CADirectory.load(path: path)
                tls.additionalTrustRoots += contents.certificates
                warnings += contents.skipped.map { "--ca-directory: '\(path)/\($0.file)' skipped: \($0.reason)" }
            } catch {
                throw TLSSetupError(description: "--ca-directory: \(error.description)")
            }
        }
        tls.clientIdentity = try loadIdentity(prompt: prompt)
        configuration.tls = tls
        return warnings
    }

    /// The client identity of `--certificate`/`--cert`, `--private-key`, their types and
    /// passphrase; nil without a client certificate. An encrypted key without a passphrase is
    /// retried once with one read from the terminal.
    private func loadIdentity(prompt: (String) -> String?) throws(TLSSetupError) -> ClientIdentity? {
        guard let (file, given) = clientCertificate else { return nil }
        let certificateFormat = (try? certificateType.map(TLSFileFormat.init(parsing:))) ?? .pem
        let keyFormat = (try? privateKeyType.map(TLSFileFormat.init(parsing:))) ?? .pem
        func load(_ passphrase: String?) throws(ClientIdentityError) -> ClientIdentity {
            try ClientIdentity.load(certificateFile: file, certificateFormat: certificateFormat,
                                    privateKeyFile: privateKey, privateKeyFormat: keyFormat, passphrase: passphrase)
        }
        do {
            return try load(given)
        } catch let error where error.kind == .passphraseRequired {
            let keyFile = privateKey ?? file
            guard let typed = prompt("Enter the passphrase for '\(DisplayText.sanitize(keyFile))': ") else {
                throw TLSSetupError(description: "\(error.message), and there is no terminal to ask on (use --pass)")
            }
            do {
                return try load(typed)
            } catch {
                throw TLSSetupError(description: error.message)
            }
        } catch {
            throw TLSSetupError(description: error.message)
        }
    }
}
