import Foundation
import Synchronization
import SwgetKit
import SwgetTestSupport

/// A delegate that records every event as a short string, so tests can assert the life cycle,
/// and answers decisions as told.
final class RecordingDelegate: SessionDelegate {
    let events = Mutex<[String]>([])
    let data = Mutex<[UInt8]>([])
    let trust: TrustDisposition
    let followRedirects: Bool
    let cancelResponses: Bool

    init(trust: TrustDisposition = .performDefaultHandling, followRedirects: Bool = true, cancelResponses: Bool = false) {
        self.trust = trust
        self.followRedirects = followRedirects
        self.cancelResponses = cancelResponses
    }

    var log: [String] { events.withLock { $0 } }
    private func record(_ s: String) { events.withLock { $0.append(s) } }

    func task(_ task: SessionTask, didReceive challenge: ServerTrustChallenge) async -> TrustDisposition {
        record("challenge \(challenge.host) \(challenge.defaultEvaluation == .trusted ? "trusted" : "untrusted")")
        return trust
    }
    func task(_ task: SessionTask, willPerformRedirection response: Response, newRequest: Request) async -> RedirectDecision {
        record("redirect \(response.statusCode) \(newRequest.url.path)")
        return followRedirects ? .follow(newRequest) : .refuse
    }
    func task(_ task: SessionTask, didReceive response: Response) async -> ResponseDisposition {
        return cancelResponses ? .cancel : .allow
    }
    func task(_ task: SessionTask, didEmit event: TaskEvent) async {
        switch event {
        case .response(let response):
            record("response \(response.statusCode)")
        case .data(let data):
            self.data.withLock { $0 += data }
        case .destinationCreated(let url):
            record("created \(url.lastPathComponent)")
        case .wroteData:
            events.withLock { events in
                if events.last?.hasPrefix("progress") != true { events.append("progress") }
            }
        case .finishedDownloading(let url):
            record("finished \(url.lastPathComponent)")
        case .completed(let error):
            record("complete \(error.map { "\($0.category)" } ?? "ok")")
        case .resumed(let offset, _):
            record("resumed \(offset)")
        case .restarted:
            record("restarted")
        case .willRetry, .redirected, .warning, .proxyTunnel, .tlsEstablished, .debug, .sentBodyData:
            break
        }
    }
}

func request(_ url: String) -> Request {
    guard let request = Request(string: url) else { fatalError("bad URL \(url)") }
    return request
}

func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}

func contents(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

func contents(_ url: URL?) -> [UInt8]? {
    url.flatMap { contents($0.path) }
}

func files(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// Runs `body` with a started test server and stops it afterwards, whatever happens.
@discardableResult
func withServer<T>(tls: TestCertificates.ServerIdentity? = nil,
                   _ handler: @escaping @Sendable (TestRequest) -> TestResponse,
                   _ body: (TestServer) async throws -> T) async throws -> T {
    let server = try await TestServer.start(tls: tls, handler: handler)
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

/// A short fingerprint of a byte array (length and FNV-1a hash): failed comparisons print
/// this instead of megabytes of numbers.
func fingerprint(_ bytes: [UInt8]?) -> String {
    guard let bytes else { return "nil" }
    var hash: UInt64 = 0xcbf29ce484222325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
    return "\(bytes.count) bytes #\(String(hash, radix: 16))"
}

func fingerprint(_ data: Data?) -> String {
    fingerprint(data.map { [UInt8]($0) })
}
