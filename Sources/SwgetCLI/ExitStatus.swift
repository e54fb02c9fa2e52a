import SwgetKit

/// wget's exit codes. With several URLs, the most severe one wins: 2 beats 3 beats … beats 8,
/// and the generic 1 counts only when nothing more specific happened (wget's rule).
enum ExitStatus: Int32, Comparable, Sendable {
    case success = 0
    case generic = 1
    case usage = 2
    case fileIO = 3
    case network = 4
    case tlsVerification = 5
    case authentication = 6
    case `protocol` = 7
    case serverError = 8

    /// Maps a session error to its exit code (the single place where this happens).
    init(_ error: SessionError) {
        switch error.category {
        case .fileIO: self = .fileIO
        case .network: self = .network
        case .tls: self = .tlsVerification
        case .protocol: self = .protocol
        case .httpStatus: self = .serverError
        case .authentication: self = .authentication
        default: self = .generic
        }
    }

    /// Higher is more severe.
    private var severity: Int {
        switch self {
        case .success: 0
        case .generic: 1
        default: 100 - Int(rawValue)
        }
    }

    static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.severity < rhs.severity }
}
