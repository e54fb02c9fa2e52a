#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the session's stores give each hop and learn from each answer: cookies, credentials
/// sent before a challenge, HSTS. The request itself is still built by ``HopRequest``; this
/// only supplies its ``HopContext``.
extension ExchangeRunner {
    /// The stores' contribution to the request for `request.url` (cookies, a credential).
    func context(for request: Request) -> HopContext {
        var context = HopContext()
        if task.originalRequest.shouldHandleCookies, let cookies = session.configuration.cookieStorage {
            context.cookie = cookies.cookieHeader(for: request.url)
        }
        if let answer = pendingAuthorization, answer.field.caseInsensitiveEquals("Proxy-Authorization") {
            // A 407 to a request in absolute form: the proxy's credential, for every later request.
            proxyAuthorization = answer.value
            pendingAuthorization = nil
        } else if let answer = pendingAuthorization {
            context.authorization = answer
            pendingAuthorization = nil
        } else if let preemptive = Self.preemptiveAuthorization(for: request, task: task) {
            context.authorization = (preemptive.field, preemptive.value)
            authentication.sentPreemptively(preemptive)
        }
        return context
    }

    /// The stores' contribution to a segment's request (a range of the resource a split download
    /// is on, at the hop its exchange reached): the cookies for its URL, and the credential its
    /// protection space accepted (or Basic before any challenge, when the configuration says so).
    static func segmentContext(for request: Request, task: SessionTask) -> HopContext {
        var context = HopContext()
        if task.originalRequest.shouldHandleCookies, let cookies = task.session.configuration.cookieStorage {
            context.cookie = cookies.cookieHeader(for: request.url)
        }
        if let preemptive = preemptiveAuthorization(for: request, task: task) {
            context.authorization = (preemptive.field, preemptive.value)
        }
        return context
    }

    /// A credential the storage already saw accepted by this protection space, or Basic for the
    /// request's own credential when the configuration sends it before any challenge.
    private static func preemptiveAuthorization(for request: Request, task: SessionTask) -> PreemptiveAuthorization? {
        // Read in place: `let configuration = …` would copy the whole configuration (about 700
        // bytes and a retain per stored reference) once per request.
        let session = task.session
        // Most requests have nothing to send: no stored credential, none of their own. Say so
        // before the URL is taken apart (once per request of a batch).
        let own = session.configuration.sendsCredentialsPreemptively ? Self.ownCredential(of: task.originalRequest) : nil
        guard own != nil || session.configuration.credentialStorage.holdsCredentials,
              let target = try? HTTPTarget(request.url) else { return nil }
        let origin = target.origin
        let uri = Self.requestTarget(request.url)
        if let stored = session.configuration.credentialStorage.preemptiveAuthorization(
            host: origin.host, port: origin.port, scheme: origin.scheme, isProxy: false,
            method: request.sentMethod, uri: uri, body: .empty) {
            return stored
        }
        guard let credential = own, Origin(task.originalRequest.url).isSame(as: origin) else { return nil }
        let space = ProtectionSpace(host: origin.host, port: origin.port, scheme: origin.scheme, realm: nil,
                                    authenticationMethod: .httpBasic, isProxy: false)
        return try? PreemptiveAuthorization.basic(credential, for: space)
    }

    /// Learns from an answer: its cookies, its HSTS policy.
    func absorb(_ response: Response) {
        if task.originalRequest.shouldHandleCookies, let cookies = session.configuration.cookieStorage {
            let values = response.headers.values(for: "Set-Cookie")
            if !values.isEmpty {
                cookies.setCookies(from: values, for: response.url, mainDocumentURL: task.originalRequest.url)
            }
        }
        if let hsts = session.configuration.hsts, response.url.hasScheme("https"),
           let header = response.headers["Strict-Transport-Security"], let host = response.url.host {
            _ = hsts.learn(header: header, host: host, port: response.url.port ?? 443,
                           overTrustedTLS: session.configuration.tls.verification == .full
                               && !task.status.withLockedValue { $0.trustOverridden })
        }
    }

    /// An answer that is not a challenge: the credentials sent were accepted.
    func accepted() {
        for accepted in authentication.succeeded() {
            session.configuration.credentialStorage.remember(accepted)
        }
    }

    /// The credential a request carries for its own origin: the request's ``Request/credential``,
    /// else the URL's `user:password@` (percent-decoded).
    static func ownCredential(of request: Request) -> Credential? {
        if let credential = request.credential { return credential }
        guard let user = request.url.user(percentEncoded: false), !user.isEmpty else { return nil }
        return Credential(user: user, password: request.url.password(percentEncoded: false) ?? "", persistence: .forSession)
    }

    /// The origin-form request target (path and query), as Digest signs it.
    static func requestTarget(_ url: URL) -> String {
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return target
    }
}
