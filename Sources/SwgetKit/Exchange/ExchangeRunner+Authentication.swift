#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Challenges (401, and 407 from a proxy spoken to in absolute form) through the task's
/// ``AuthenticationState``: the delegate decides first; default handling takes the credential
/// storage, then the request's own credential (only at its own origin), then `.netrc`.
extension ExchangeRunner {
    /// Runs the challenge through the machine; true when the request is to be sent again with
    /// the credential (``pendingAuthorization``), false when the challenge is the final answer.
    func authenticate(_ response: Response, challenges: [AuthChallenge], isProxy: Bool, request: Request) async -> Bool {
        guard let target = try? HTTPTarget(request.url) else { return false }
        // Digest signs CONNECT with the tunnel's authority (RFC 9110 §9.3.6), anything else with its target.
        let isConnect = request.sentMethod == "CONNECT"
        let uri = isConnect ? target.hostField.contains(":") ? target.hostField : "\(target.hostField):\(target.origin.port)"
                            : Self.requestTarget(request.url)
        // A proxy's challenge is for the proxy's own protection space (NSURLProtectionSpace's
        // proxy host and port), never the origin's.
        var space = (host: target.origin.host, port: target.origin.port, scheme: target.origin.scheme)
        if isProxy {
            guard let proxy = session.configuration.proxy?.proxy(for: request.url) else { return false }
            space = (proxy.host, proxy.port, proxy.kind == .https ? "https" : "http")
        }
        let challenged = ChallengedRequest(host: space.host, port: space.port, scheme: space.scheme,
                                           method: request.sentMethod, uri: uri,
                                           body: Self.digestBody(request.body, for: challenges))
        var action = authentication.challenged(status: response.statusCode, challenges: challenges, request: challenged)
        while true {
            switch action {
            case .retry(let field, let value):
                pendingAuthorization = (field, value)
                return true
            case .fail(let failure):
                authenticationFailure = failure
                task.status.withLockedValue { $0.authenticationFailure = failure }
                return false
            case .askForCredential(var challenge):
                challenge.failureResponse = response
                if challenge.proposedCredential == nil {
                    challenge.proposedCredential = session.configuration.credentialStorage.defaultCredential(for: challenge.protectionSpace)
                }
                let asked = challenge
                let answer = await task.decide { await $0.task(self.task, didReceive: asked) } ?? .performDefaultHandling
                switch answer {
                case .useCredential(let credential):
                    action = authentication.credentialDecided(.use(credential))
                case .rejectProtectionSpace:
                    action = authentication.credentialDecided(.rejectProtectionSpace)
                case .cancelAuthenticationChallenge:
                    task.cancel()
                    return false
                case .performDefaultHandling:
                    action = authentication.credentialDecided(defaultCredential(for: challenge, request: request).map { .use($0) } ?? .noCredential)
                }
            }
        }
    }

    /// Default handling: a credential not refused yet, from the storage, the request itself
    /// (its own origin only: credentials never follow a redirect to another origin), `.netrc`.
    /// `request` is the challenged one: a proxy's credential is that of the proxy its URL goes
    /// through, never another proxy's.
    private func defaultCredential(for challenge: AuthenticationChallenge, request: Request) -> Credential? {
        let space = challenge.protectionSpace
        let refused = challenge.previousFailureCount > 0 ? challenge.proposedCredential : nil
        let configuration = session.configuration
        var candidates: [Credential] = []
        if let stored = configuration.credentialStorage.defaultCredential(for: space) { candidates.append(stored) }
        candidates += configuration.credentialStorage.credentials(for: space).values.sorted { ($0.user ?? "") < ($1.user ?? "") }
        if space.isProxy {
            if let proxy = configuration.proxy?.proxy(for: request.url), proxy.host == space.host, proxy.port == space.port,
               let credentials = proxy.credentials {
                candidates.append(Credential(user: credentials.user, password: credentials.password, persistence: .forSession))
            }
        } else {
            let own = Origin(task.originalRequest.url)
            let atOwnOrigin = own.host == space.host && own.port == space.port && own.scheme == space.scheme
            if atOwnOrigin, var credential = Self.ownCredential(of: task.originalRequest) {
                // A URL naming a user without a password takes that user's `.netrc` password
                // (wget, curl).
                let request = task.originalRequest
                if request.credential == nil, request.url.password(percentEncoded: false) == nil, let user = credential.user,
                   let entry = configuration.netrc?.lookup(host: space.host, login: user),
                   entry.login == user, let password = entry.password {
                    credential = Credential(user: user, password: password, persistence: .forSession)
                }
                candidates.append(credential)
            }
            // The URL's user names the `.netrc` entry at its own origin only.
            let login = atOwnOrigin ? task.originalRequest.url.user(percentEncoded: false) : nil
            if let entry = configuration.netrc?.lookup(host: space.host, login: login), let password = entry.password {
                candidates.append(Credential(user: entry.login ?? login ?? "", password: password, persistence: .forSession))
            }
        }
        return candidates.first { $0 != refused }
    }
}

extension ExchangeRunner {
    /// A proxy answered CONNECT with 407: the challenge goes through the same machine; true when
    /// the tunnel is to be asked for again with the credential.
    func answerProxyChallenge(_ response: Response, request: Request) async -> Bool {
        let challenges = AuthChallenge.parse(fields: response.headers.values(for: "Proxy-Authenticate"))
        guard !challenges.isEmpty else { return false }
        var connect = request
        connect.method = "CONNECT"
        guard await authenticate(response, challenges: challenges, isProxy: true, request: connect),
              let answer = pendingAuthorization else { return false }
        pendingAuthorization = nil
        proxyAuthorization = answer.value
        return true
    }
}
