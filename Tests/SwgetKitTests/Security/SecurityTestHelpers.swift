import Foundation
import Synchronization
import SwgetKit
import SwgetTestSupport

/// Shared pieces of the security regression tests (issue 10): two origins, a request that
/// carries credentials, and a delegate that keeps the warnings.
enum Security {
    /// The user's origin-bound fields, as `-H` would add them.
    static let credentials = [("Authorization", "Bearer X"), ("Cookie", "c=1")]

    /// `url` with the user's `Authorization` and `Cookie` fields.
    static func credentialed(_ url: String) -> Request {
        var made = request(url)
        for (name, value) in credentials { made.headers.add(name, value) }
        return made
    }

    /// Runs `body` with two servers on two ports of 127.0.0.1 (two origins): `second` is
    /// started first, so the first server's handler can redirect to it.
    static func withTwoOrigins<T>(
        second: @escaping @Sendable (TestRequest) -> TestResponse,
        first: @escaping @Sendable (_ secondBaseURL: String, TestRequest) -> TestResponse,
        _ body: (_ first: TestServer, _ second: TestServer) async throws -> T
    ) async throws -> T {
        try await withServer(second) { secondServer in
            let base = secondServer.baseURL
            return try await withServer({ first(base, $0) }) { firstServer in
                try await body(firstServer, secondServer)
            }
        }
    }
}

extension TestRequest {
    /// The origin-bound fields this request carried (name: value), in order.
    var credentialFields: [String] {
        headers.filter { ["authorization", "cookie", "proxy-authorization"].contains($0.0.lowercased()) }
            .map { "\($0.0): \($0.1)" }
    }
}

/// A delegate that keeps every warning and the count of retries, and follows redirects.
final class WarningRecorder: SessionDelegate {
    let warnings = Mutex<[String]>([])
    let retries = Mutex(0)

    var all: [String] { warnings.withLock { $0 } }

    func task(_ task: SessionTask, didEmit event: TaskEvent) async {
        switch event {
        case .warning(let text): warnings.withLock { $0.append(text) }
        case .willRetry: retries.withLock { $0 += 1 }
        default: break
        }
    }
}
