internal import CNIOBoringSSL
import NIOConcurrencyHelpers
import NIOSSL

/// What BoringSSL tells about one connection that NIOSSL does not pass on: the cipher suite,
/// whether the session was resumed, and the sessions to keep (see ``TLSSessionCache``). Each
/// https connection gets its own `NIOSSLContext`, so these hooks live on that context's
/// `SSL_CTX`: its ex_data holds this object, released when the context is freed.
///
/// Reaching the `SSL_CTX`: NIOSSL keeps it private (its first stored property, `sslContext`).
/// ``install(on:)`` reads that field and accepts it only if BoringSSL's app data of the pointer
/// read is the `NIOSSLContext` itself (NIOSSL stores it there for its own callbacks); any other
/// layout leaves the hooks out, and connections simply do not resume or name their cipher.
final class TLSContextHooks: Sendable {
    /// The origin, for the session cache.
    let key: TLSSessionCache.Key
    /// Where sessions are kept and offered; nil when resumption is off.
    let cache: TLSSessionCache?
    /// Filled by BoringSSL's info callback: whether the handshake started, and how it ended.
    private let outcome = NIOLockedValueBox<(started: Bool, cipher: String?, resumed: Bool)>((false, nil, false))

    init(host: String, port: Int, cache: TLSSessionCache?) {
        self.key = TLSSessionCache.Key(host: host, port: port)
        self.cache = cache
    }

    /// The negotiated cipher suite's IANA name, once the handshake is done.
    var cipherSuite: String? { outcome.withLockedValue { $0.cipher } }
    /// Whether the handshake resumed a session.
    var sessionResumed: Bool { outcome.withLockedValue { $0.resumed } }

    /// Installs the hooks on `context`'s `SSL_CTX`. Returns false (and changes nothing) when the
    /// `SSL_CTX` cannot be reached safely. Call once, before the context makes a connection.
    @discardableResult
    func install(on context: NIOSSLContext) -> Bool {
        guard Self.exDataIndex >= 0, let ctx = Self.sslContext(of: context) else { return false }
        let retained = Unmanaged.passRetained(self).toOpaque()
        guard SSL_CTX_set_ex_data(ctx, Self.exDataIndex, retained) == 1 else {
            Unmanaged<TLSContextHooks>.fromOpaque(retained).release()
            return false
        }
        SSL_CTX_set_info_callback(ctx, tlsInfoCallback)
        if cache != nil {
            _ = SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL)
            SSL_CTX_sess_set_new_cb(ctx, tlsNewSessionCallback)
        }
        return true
    }

    /// The hooks of the context `ssl` belongs to.
    static func of(_ ssl: OpaquePointer?) -> TLSContextHooks? {
        guard let ssl, let ctx = SSL_get_SSL_CTX(ssl), let raw = SSL_CTX_get_ex_data(ctx, exDataIndex) else { return nil }
        return Unmanaged<TLSContextHooks>.fromOpaque(raw).takeUnretainedValue()
    }

    fileprivate func handshakeStarting(_ ssl: OpaquePointer) {
        // Only before the first handshake: BoringSSL aborts on SSL_set_session after it.
        let first = outcome.withLockedValue { outcome -> Bool in
            defer { outcome.started = true }
            return !outcome.started
        }
        if first { _ = cache?.offer(to: ssl, for: key) }
    }

    fileprivate func handshakeDone(_ ssl: OpaquePointer) {
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_standard_name($0) }.map { String(cString: $0) }
        let resumed = SSL_session_reused(ssl) == 1
        outcome.withLockedValue { $0 = (true, cipher, resumed) }
    }

    fileprivate func newSession(_ session: OpaquePointer) -> Bool {
        guard let cache else { return false }
        cache.store(session, for: key)
        return true
    }

    /// Our ex_data slot on every `SSL_CTX`; its free callback drops the hooks' retain.
    static let exDataIndex: Int32 = SSL_CTX_get_ex_new_index(0, nil, nil, nil, tlsHooksFree)

    /// NIOSSL's `SSL_CTX` pointer, read from the private stored property and checked against
    /// BoringSSL's app data (which NIOSSL sets to the `NIOSSLContext`).
    static func sslContext(of context: NIOSSLContext) -> OpaquePointer? {
        let object = Unmanaged.passUnretained(context).toOpaque()
        // A Swift class instance starts with its metadata pointer and reference counts (two
        // words); the first stored property follows.
        let candidate = object.load(fromByteOffset: 2 * MemoryLayout<UInt>.size, as: UInt.self)
        guard candidate >= 1 << 16, candidate % UInt(MemoryLayout<UInt>.alignment) == 0,
              let ctx = OpaquePointer(bitPattern: candidate),
              SSL_CTX_get_ex_data(ctx, 0) == object else { return nil }
        return ctx
    }
}

/// `SSL_CB_HANDSHAKE_START`: offer a kept session; `SSL_CB_HANDSHAKE_DONE`: note the outcome.
private func tlsInfoCallback(_ ssl: OpaquePointer?, _ type: Int32, _ value: Int32) {
    guard let ssl, let hooks = TLSContextHooks.of(ssl) else { return }
    if type & SSL_CB_HANDSHAKE_START != 0 { hooks.handshakeStarting(ssl) }
    if type & SSL_CB_HANDSHAKE_DONE != 0 { hooks.handshakeDone(ssl) }
}

/// A server issued a session: keep it (returning 1 hands BoringSSL's reference to the cache).
private func tlsNewSessionCallback(_ ssl: OpaquePointer?, _ session: OpaquePointer?) -> Int32 {
    guard let session, let hooks = TLSContextHooks.of(ssl) else { return 0 }
    return hooks.newSession(session) ? 1 : 0
}

/// The `SSL_CTX` is freed: release the hooks it held.
private func tlsHooksFree(_ parent: UnsafeMutableRawPointer?, _ pointer: UnsafeMutableRawPointer?,
                          _ data: OpaquePointer?, _ index: Int32, _ argl: Int,
                          _ argp: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    Unmanaged<TLSContextHooks>.fromOpaque(pointer).release()
}
