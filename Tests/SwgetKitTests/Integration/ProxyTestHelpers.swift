import Foundation
import SwgetKit
import SwgetTestSupport

/// Runs `body` with a started scripted proxy and stops it afterwards, whatever happens.
@discardableResult
func withScriptedProxy<T>(tls: TestCertificates.ServerIdentity? = nil,
                          _ script: @escaping @Sendable (ScriptedProxy.Head) -> ScriptedProxy.Answer,
                          _ body: (ScriptedProxy) async throws -> T) async throws -> T {
    let proxy = try await ScriptedProxy.start(tls: tls, script)
    do {
        let result = try await body(proxy)
        try await proxy.stop()
        return result
    } catch {
        try? await proxy.stop()
        throw error
    }
}

/// `Basic base64(user:password)`.
func basic(_ user: String, _ password: String) -> String {
    "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
}

/// The error `body` threw, or nil when it did not throw.
func sessionError(_ body: () async throws(SessionError) -> Void) async -> SessionError? {
    do throws(SessionError) {
        try await body()
        return nil
    } catch {
        return error
    }
}
