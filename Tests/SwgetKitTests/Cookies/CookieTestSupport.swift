import Foundation
import Synchronization
@testable import SwgetKit

/// A clock the tests move by hand: "now" for `CookieStorage` and the parsers, never the wall clock.
final class CookieTestClock: Sendable {
    /// 2023-11-14T22:13:20Z.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    private let current = Mutex(CookieTestClock.start)

    var now: Date { current.withLock { $0 } }

    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// The closure `CookieStorage` takes.
    var closure: @Sendable () -> Date { { [self] in self.now } }
}

/// A URL from a literal the test controls.
func cookieURL(_ string: String) -> URL {
    guard let url = URL(string: string) else { fatalError("bad test URL \(string)") }
    return url
}

extension CookieStorage {
    /// A store with a test clock and the system public suffix list.
    static func testing(_ clock: CookieTestClock, policy: AcceptPolicy = .always, limits: Limits = .default,
                        loopbackIsSecure: Bool = true) -> CookieStorage {
        CookieStorage(acceptPolicy: policy, limits: limits, loopbackIsSecure: loopbackIsSecure, clock: clock.closure)
    }

    /// Stores one Set-Cookie value for `urlString` and returns its outcome.
    @discardableResult
    func set(_ header: String, at urlString: String, main: String? = nil) -> Outcome {
        setCookies(from: [header], for: cookieURL(urlString), mainDocumentURL: main.map(cookieURL)).first ?? .rejected(.noHost)
    }

    /// The Cookie header for `urlString`, "" when none.
    func header(_ urlString: String) -> String { cookieHeader(for: cookieURL(urlString)) ?? "" }
}

extension CookieStorage.Outcome {
    var isStored: Bool { if case .stored = self { true } else { false } }
    var rejection: CookieRejection? { if case .rejected(let reason) = self { reason } else { nil } }
    var cookie: Cookie? {
        switch self {
        case .stored(let cookie), .deleted(let cookie): cookie
        case .rejected: nil
        }
    }
}
