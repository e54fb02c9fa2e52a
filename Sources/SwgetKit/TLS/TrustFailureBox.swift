import NIOConcurrencyHelpers

/// Carries the trust callback's verdict to the handler so a refused handshake is reported with
/// its reason rather than as a generic TLS alert.
final class TrustFailureBox: Sendable {
    private let storage = NIOLockedValueBox<String?>(nil)
    var reason: String? { storage.withLockedValue { $0 } }
    func record(_ reason: String) { storage.withLockedValue { $0 = reason } }
}
