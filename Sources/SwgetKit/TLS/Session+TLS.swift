import NIOSSL

extension Session {
    /// The TLS part of a hop's connection settings: `task`'s answers to the server-trust and
    /// client-certificate challenges (through the delegate, when there is one) and its
    /// ``TaskEvent/tlsEstablished(_:)`` events. `pinned` false leaves out
    /// ``TLSSettings/pinnedPublicKey`` (an https proxy's connection: the pin is the origin's).
    func tlsConnector(for task: SessionTask, pinned: Bool = true) throws(SessionError) -> TLSConnector {
        let shared = try sessionTLS()
        let delegate = self.delegate
        let evaluator = shared.evaluator
        let pin = pinned ? shared.settings.pinnedPublicKey : nil
        let trust: @Sendable ([NIOSSLCertificate], String, Int) async -> TrustEvaluation = { [weak task] chain, host, port in
            let ders = chain.compactMap { try? $0.toDERBytes() }
            let pinMismatch = pin.flatMap { $0.mismatch(chain: ders) }
            guard let evaluator else {
                return TrustDecision.decide(evaluation: nil, disposition: .performDefaultHandling, pinMismatch: pinMismatch)
            }
            let verdict = await evaluator.evaluate(chain: chain, host: host)
            var disposition = TrustDisposition.performDefaultHandling
            // A pin mismatch fails whatever the delegate says: it is not asked then.
            if pinMismatch == nil, delegate != nil, let task {
                let challenge = ServerTrustChallenge(host: host, port: port, certificateChain: ders, defaultEvaluation: verdict)
                disposition = await task.decide { await $0.task(task, didReceive: challenge) } ?? .performDefaultHandling
            }
            return TrustDecision.decide(evaluation: verdict, disposition: disposition, pinMismatch: pinMismatch)
        }
        var clientCertificate: (@Sendable (String, Int) async -> ClientCertificateDisposition)?
        if delegate != nil {
            let decisions = shared.clientCertificates
            let proposed = shared.settings.clientIdentity
            clientCertificate = { [weak task] host, port in
                let owner = task
                return await decisions.decide(host: host, port: port) {
                    guard let task = owner else { return .performDefaultHandling }
                    let challenge = ClientCertificateChallenge(host: host, port: port, proposedIdentity: proposed)
                    return await task.decide { await $0.task(task, didReceive: challenge) } ?? .performDefaultHandling
                }
            }
        }
        return TLSConnector(shared: shared, trust: trust, clientCertificate: clientCertificate,
                            established: { [weak task] info in task?.emit(.tlsEstablished(info)) })
    }
}
