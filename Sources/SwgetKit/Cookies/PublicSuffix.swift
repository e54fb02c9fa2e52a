import CPSL

/// The Public Suffix List, reached through the system libpsl (Debian's libpsl-dev): which domains are
/// controlled by a registry (`com`, `co.uk`) or by a hosting provider (`github.io`), so that a cookie
/// can never be set for all of them (RFC 6265bis §5.7 step 9; the list itself is
/// https://publicsuffix.org/list/). The list is never copied into this code.
///
/// `system` uses libpsl's newest data: `psl_latest`, which picks the more recent of the list built into
/// the library and the publicsuffix package's file (`/usr/share/publicsuffix/…`) when that is installed,
/// else `psl_builtin()`. Both ICANN and private sections apply, with the list's implicit `*` rule: an
/// unknown top-level label (`localhost`, `internal`) is itself a public suffix, as in browsers.
///
/// Input is normalised before it reaches libpsl: lowercased (Unicode, so `BÜCHER.de` and `bücher.de`
/// agree; libpsl maps U-labels to punycode itself, so `рф` and `xn--p1ai` agree too) and without one
/// trailing dot (`co.uk.` is `co.uk`). IP addresses are never public suffixes and have no registrable
/// domain. Lookups are read-only on a loaded list, so one instance is shared by all threads.
public final class PublicSuffixList: Sendable {
    /// The list libpsl considers newest on this machine (see the type's description).
    public static let system = PublicSuffixList(context: PSLContext(pointer: psl_latest(nil), owned: true))

    /// Longest domain handed to libpsl; longer strings are answered conservatively without it.
    static let maxDomainBytes = 1024

    private let context: PSLContext

    private init(context: PSLContext) { self.context = context }

    /// Loads a list from a file in the Public Suffix List's text format (`public_suffix_list.dat`) or in
    /// libpsl's DAFSA format (`public_suffix_list.dafsa`). Returns nil when the file cannot be read or
    /// holds no rules. Meant for tests and for users who ship their own list.
    public convenience init?(contentsOfFile path: String) {
        guard let pointer = psl_load_file(path) else { return nil }
        self.init(context: PSLContext(pointer: pointer, owned: true))
    }

    deinit {
        if context.owned, let pointer = context.pointer { psl_free(pointer) }
    }

    /// True when `domain` is a public suffix: `com`, `co.uk`, `github.io`, `kawasaki.jp`'s wildcard
    /// children, or any unknown top-level label. The empty string, a string with a NUL byte and a domain
    /// longer than 1,024 bytes count as public suffixes (nothing may be set for them); IP addresses do
    /// not (cookies for an IP address are matched exactly, never as a suffix).
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard let name = Self.normalised(domain) else { return true }
        if CookieMatching.isIPAddress(name) { return false }
        guard let pointer = context.pointer ?? psl_builtin() else { return false }
        return psl_is_public_suffix2(pointer, name, Int32(PSL_TYPE_ANY)) != 0
    }

    /// The registrable domain of `host` (its public suffix plus one label: `www.example.co.uk` →
    /// `example.co.uk`, `a.b.github.io` → `b.github.io`), normalised as described above; nil when `host`
    /// is a public suffix itself, an IP address, or not usable.
    public func registrableDomain(_ host: String) -> String? {
        guard let name = Self.normalised(host), !CookieMatching.isIPAddress(name) else { return nil }
        guard let pointer = context.pointer ?? psl_builtin() else { return nil }
        return name.withCString { start -> String? in
            // libpsl answers with a pointer into the string it was given.
            guard let found = psl_registrable_domain(pointer, start) else { return nil }
            let offset = found - start
            guard offset >= 0, offset <= name.utf8.count else { return nil }
            return String(decoding: name.utf8.dropFirst(offset), as: UTF8.self)
        }
    }

    /// Lowercased, one trailing dot removed; nil when empty, too long or holding a NUL.
    static func normalised(_ domain: String) -> String? {
        var name = domain.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= maxDomainBytes, !name.containsByte(0) else { return nil }
        return name
    }
}

/// libpsl's context pointer. The context is immutable once loaded and libpsl's lookups only read it,
/// so sharing it between threads is safe.
private struct PSLContext: @unchecked Sendable {
    let pointer: OpaquePointer?
    let owned: Bool
}
