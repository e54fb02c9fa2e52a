import Synchronization
import Testing
@testable import SwgetKit

/// The session cache's first-handshake gate and the client-certificate answers: concurrency
/// without sockets (no sleeps: every wait is for an event the test causes).
@Suite("TLS: first-handshake gate and client-certificate answers")
struct TLSSessionGateTests {
    /// Waits until `condition` holds, yielding in between (bounded).
    static func eventually(_ condition: () -> Bool) async {
        for _ in 0..<100_000 where !condition() { await Task.yield() }
    }

    @Test func onlyTheFirstConnectionHandshakesWhileTheOthersWait() async {
        let cache = TLSSessionCache()
        let first = await cache.admit(host: "Example.ORG", port: 443)
        #expect(first != nil)
        let admitted = GateCounter()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let ticket = await cache.admit(host: "example.org", port: 443)
                    admitted.add()
                    return ticket == nil
                }
            }
            // Another origin (other port) is not held up.
            #expect(await cache.admit(host: "example.org", port: 8443) != nil)
            for _ in 0..<1000 { await Task.yield() }
            #expect(admitted.value == 0, "nobody passes before the first handshake is done")
            first?.release()
            for await waitedWithoutTicket in group { #expect(waitedWithoutTicket) }
        }
        #expect(admitted.value == 5)
        // After that, nobody waits and nobody is first again.
        #expect(await cache.admit(host: "example.org", port: 443) == nil)
    }

    @Test func aCancelledWaiterGoesOnAtOnce() async {
        let cache = TLSSessionCache()
        let first = await cache.admit(host: "h", port: 1)
        let waiter = Task { await cache.admit(host: "h", port: 1) }
        for _ in 0..<1000 { await Task.yield() }
        waiter.cancel()
        #expect(await waiter.value == nil)
        _ = first
    }

    @Test func droppingTheTicketOpensTheGate() async {
        let cache = TLSSessionCache()
        var first = await cache.admit(host: "h", port: 1)
        #expect(first != nil)
        let waiter = Task { await cache.admit(host: "h", port: 1) }
        first = nil  // a connection that failed before its pipeline existed
        #expect(await waiter.value == nil)
        _ = first
    }

    @Test func forgottenOriginsReleaseTheirWaiters() async {
        let cache = TLSSessionCache()
        let first = await cache.admit(host: "h0", port: 1)
        let waiter = Task { await cache.admit(host: "h0", port: 1) }
        for _ in 0..<1000 { await Task.yield() }
        for index in 1...TLSSessionCache.maximumOrigins { _ = await cache.admit(host: "h\(index)", port: 1) }
        #expect(await waiter.value == nil)
        _ = first
    }

    @Test func theDelegateIsAskedOncePerHostAndPort() async {
        let decisions = ClientCertificateDecisions()
        let asked = GateCounter()
        let gate = Gate()
        let ask: @Sendable () async -> ClientCertificateDisposition = {
            asked.add()
            await withCheckedContinuation { continuation in gate.park(continuation) }
            return .continueWithoutIdentity
        }
        await withTaskGroup(of: ClientCertificateDisposition.self) { group in
            for _ in 0..<8 { group.addTask { await decisions.decide(host: "HOST", port: 443, ask: ask) } }
            await Self.eventually { gate.isParked }
            gate.open()
            for await answer in group { #expect(answer == .continueWithoutIdentity) }
        }
        #expect(asked.value == 1)
        #expect(await decisions.decide(host: "host", port: 443) { .cancel } == .continueWithoutIdentity)
        #expect(await decisions.decide(host: "host", port: 444) { .performDefaultHandling } == .performDefaultHandling)
    }

    @Test func aCancelIsNotRemembered() async {
        let decisions = ClientCertificateDecisions()
        #expect(await decisions.decide(host: "h", port: 1) { .cancel } == .cancel)
        #expect(await decisions.decide(host: "h", port: 1) { .continueWithoutIdentity } == .continueWithoutIdentity)
        #expect(await decisions.decide(host: "h", port: 1) { .cancel } == .continueWithoutIdentity)
    }

    @Test func answersAreBounded() async {
        let decisions = ClientCertificateDecisions()
        for port in 0...ClientCertificateDecisions.maximumEntries {
            _ = await decisions.decide(host: "h", port: port) { .continueWithoutIdentity }
        }
        // The oldest answer was forgotten: asked again.
        #expect(await decisions.decide(host: "h", port: 0) { .cancel } == .cancel)
        #expect(await decisions.decide(host: "h", port: ClientCertificateDecisions.maximumEntries) { .cancel } == .continueWithoutIdentity)
    }

    @Test func dispositionsChooseTheIdentity() throws {
        #expect(ClientCertificateDisposition.continueWithoutIdentity.identity(proposed: nil) == nil)
        #expect(ClientCertificateDisposition.performDefaultHandling.identity(proposed: nil) == nil)
        #expect(ClientCertificateDisposition.cancel.identity(proposed: nil) == nil)
        let challenge = ClientCertificateChallenge(host: "Example.COM", port: 8443, proposedIdentity: nil)
        #expect(challenge.protectionSpace.authenticationMethod == .clientCertificate)
        #expect(challenge.protectionSpace.host == "example.com")
        #expect(challenge.protectionSpace.scheme == "https")
    }
}

/// A thread-safe counter the concurrent tasks of a test share.
private final class GateCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

/// Holds one suspended continuation until the test opens it.
private final class Gate: Sendable {
    private let parked = Mutex<CheckedContinuation<Void, Never>?>(nil)
    var isParked: Bool { parked.withLock { $0 != nil } }
    func park(_ continuation: CheckedContinuation<Void, Never>) { parked.withLock { $0 = continuation } }
    func open() { parked.withLock { $0?.resume(); $0 = nil } }
}
