import NIOConcurrencyHelpers

/// One readable line for a TLS handshake that failed for a reason other than the server's
/// certificate (that one is the trust evaluation's): NIOSSL reports BoringSSL's error queue, whose
/// text ends in a reason code (`…:SSL routines:OPENSSL_internal:TLSV1_ALERT_PROTOCOL_VERSION at
/// …/tls_record.cc:491`). The code is picked out of the text (never more than the first 4 KiB
/// are looked at) and the usual ones are said in words; any other shows as the bare code in
/// lower case; a text without one is cut to 200 characters.
enum TLSHandshakeFailure {
    /// Reason codes and what they mean for a client.
    static let known: [String: String] = [
        "TLSV1_ALERT_PROTOCOL_VERSION": "no TLS version in common with the server",
        "UNSUPPORTED_PROTOCOL": "no TLS version in common with the server",
        "WRONG_VERSION_NUMBER": "the server does not speak TLS here, or no TLS version in common",
        "NO_SHARED_CIPHER": "no cipher suite in common with the server",
        "NO_CIPHER_MATCH": "no cipher suite in common with the server",
        "SSLV3_ALERT_HANDSHAKE_FAILURE": "the server refused the handshake (no cipher suite or parameters in common?)",
        "TLSV13_ALERT_CERTIFICATE_REQUIRED": "the server requires a client certificate",
        "SSLV3_ALERT_BAD_CERTIFICATE": "the server refused the client certificate",
        "TLSV1_ALERT_UNKNOWN_CA": "the server does not trust the client certificate's issuer",
        "SSLV3_ALERT_CERTIFICATE_EXPIRED": "the server refused the client certificate as expired",
        "TLSV1_ALERT_ACCESS_DENIED": "the server denied access to this client certificate",
        "CERT_CB_ERROR": "no client certificate was given: the client-certificate challenge was cancelled",
        "TLSV1_ALERT_INTERNAL_ERROR": "the server reported an internal error",
    ]

    /// The first error of a connection's handshake, kept for its setup (thread-safe).
    final class Box: Sendable {
        private let storage = NIOLockedValueBox<SessionError?>(nil)

        /// The failure as a session error, nil when none was recorded.
        var error: SessionError? { storage.withLockedValue { $0 } }

        /// Keeps the first error (a ``SessionError`` as it is, anything else described).
        func record(_ error: Error) {
            let failure = (error as? SessionError) ?? SessionError.tlsHandshake.with("TLS handshake failed: \(describe(String(describing: error)))")
            storage.withLockedValue { if $0 == nil { $0 = failure } }
        }
    }

    /// The line for `error`'s description.
    static func describe(_ text: String) -> String {
        let text = String(text.prefix(4096))
        guard let code = reasonCode(in: text) else { return String(text.prefix(200)) }
        return known[code] ?? code.lowercased().replacingUnderscores
    }

    /// The reason code after `OPENSSL_internal:`: upper-case letters, digits and underscores.
    static func reasonCode(in text: String) -> String? {
        guard let marker = text.firstRange(of: "OPENSSL_internal:") else { return nil }
        let code = text[marker.upperBound...].prefix { ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }
        return code.isEmpty ? nil : String(code)
    }
}

private extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
