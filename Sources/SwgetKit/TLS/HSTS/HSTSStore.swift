#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The Known HSTS Hosts of a session (RFC 6797 §8): learned from `Strict-Transport-Security`
/// headers received over trusted HTTPS, consulted before every request to turn `http://` URLs
/// into `https://` ones.
///
/// Rules (RFC 6797 §8.1–§8.3), and where swget follows wget:
/// - Learned only from a response received over HTTPS whose certificate chain was verified
///   (`overTrustedTLS`): never over plain HTTP, never with verification off, and never for an IP
///   literal host (§8.1.1, §8.3 item 1). Only the first header field of a response is passed in.
/// - Hosts are compared in lowercase ASCII without a trailing dot. Hosts that are not plain
///   ASCII domain names (IDNs in Unicode form, hosts with odd characters) are neither learned nor
///   matched: the caller passes A-labels.
/// - A host matches an entry congruently (same name) or as a subdomain of an entry that has
///   `includeSubDomains` (§8.2); every superdomain is checked, the congruent one first.
/// - `max-age=0` removes the host's own entry (§6.1.1, §8.1); a new value replaces the entry and
///   restarts its lifetime from `now` (§8.1 item 1).
/// - An entry expires `maxAge` seconds after it was created; expired entries are treated as
///   absent and dropped when met.
/// - A policy covers the host on every port (RFC 6797 §8.3): the port is only remembered for
///   wget's file format (0 = the default port, 443), where wget keys entries by port.
/// - At most ``capacity`` entries: storing a new host into a full store first drops expired
///   entries, then the entry that expires soonest.
///
/// The store is in memory; ``HSTSFile`` reads and writes wget's database format. Time comes from
/// the injected clock unless a call passes `now`.
public final class HSTSStore: Sendable {
    /// The process-wide store that default and background sessions share (ephemeral sessions
    /// get one of their own).
    public static let shared = HSTSStore()

    /// One Known HSTS Host.
    public struct Entry: Sendable, Hashable {
        /// The host name: lowercase ASCII, no trailing dot.
        public var host: String
        /// The port the policy was received on, as wget records it: 0 for the default (443).
        public var port: Int
        /// Whether subdomains are covered too.
        public var includeSubDomains: Bool
        /// When the policy was received, in seconds since 1970-01-01 UTC.
        public var created: Int64
        /// Its lifetime in seconds (0...``StrictTransportSecurity/maximumMaxAge``).
        public var maxAge: Int64

        /// An entry; nothing is validated until it is loaded into a store.
        public init(host: String, port: Int = 0, includeSubDomains: Bool, created: Int64, maxAge: Int64) {
            self.host = host
            self.port = port
            self.includeSubDomains = includeSubDomains
            self.created = created
            self.maxAge = maxAge
        }

        /// The last second the entry is valid (saturating).
        public var expires: Int64 { created.addingReportingOverflow(maxAge).overflow ? .max : created + maxAge }

        /// Whether the entry has expired at `now` (seconds since 1970).
        public func isExpired(at now: Int64) -> Bool { expires < now }
    }

    /// What ``learn(header:host:port:overTrustedTLS:now:)`` did.
    public enum LearnOutcome: Sendable, Equatable {
        /// A new Known HSTS Host.
        case stored
        /// The host's entry got the new lifetime and `includeSubDomains`.
        case updated
        /// `max-age=0` removed the host's entry.
        case removed
        /// Nothing changed.
        case ignored(IgnoreReason)
    }

    /// Why a header was not learned.
    public enum IgnoreReason: Sendable, Equatable, CustomStringConvertible {
        /// Plain HTTP, verification off, or an untrusted chain (RFC 6797 §8.1).
        case notOverTrustedTLS
        /// The host is an IP literal (RFC 6797 §8.1.1).
        case ipAddress
        /// The host is not a plain ASCII domain name.
        case invalidHost
        /// The header did not parse (the field is ignored, RFC 6797 §8.1).
        case invalidHeader(StrictTransportSecurity.ParseError)
        /// `max-age=0` for a host that has no entry.
        case nothingToRemove

        /// One line, for a debug log.
        public var description: String {
            switch self {
            case .notOverTrustedTLS: "not received over verified HTTPS"
            case .ipAddress: "the host is an IP address"
            case .invalidHost: "the host is not a plain domain name"
            case .invalidHeader(let error): error.description
            case .nothingToRemove: "max-age=0 for an unknown host"
            }
        }
    }

    /// The default bound on the number of entries.
    public static let defaultCapacity = 10_000
    /// The most entries the store holds (at least 1).
    public let capacity: Int

    private struct State {
        var entries: [String: Entry] = [:]
        var changed = false
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> Date

    /// An empty store holding at most `capacity` entries, telling time with `clock`.
    public init(capacity: Int = HSTSStore.defaultCapacity, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    private func seconds(_ now: Date?) -> Int64 {
        let value = (now ?? clock()).timeIntervalSince1970
        guard value.isFinite else { return 0 }
        return Int64(max(min(value.rounded(.down), 9.0e15), -9.0e15))
    }

    /// The `https://` URL to use instead of `url` when `url` is `http://` to a Known HSTS Host
    /// (RFC 6797 §8.3), else nil. An explicit port 80 becomes 443; another explicit port is kept;
    /// no port is added when there was none. Expired entries met on the way are removed.
    public func upgrade(_ url: URL, now: Date? = nil) -> URL? {
        // An empty store answers before the URL is taken apart (its scheme and host cost
        // ~1,800 instructions, twice per download).
        guard !state.withLock({ $0.entries.isEmpty }), let scheme = url.scheme, scheme.lowercased() == "http",
              let rawHost = url.host(percentEncoded: false), policy(for: rawHost, now: now) != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = "https"
        if components.port == 80 { components.port = 443 }
        return components.url
    }

    /// The entry that makes `host` a Known HSTS Host at `now` (congruent first, then the nearest
    /// superdomain with `includeSubDomains`), or nil.
    public func policy(for host: String, now: Date? = nil) -> Entry? {
        // An empty store (most runs, for most of a run) needs no normalised name: that was 2% of
        // the CPU of a batch of small http downloads.
        guard !state.withLock({ $0.entries.isEmpty }),
              let name = HSTSHostName.normalized(host), !HSTSHostName.isIPAddress(name) else { return nil }
        let time = seconds(now)
        return state.withLock { state -> Entry? in
            var candidate = Substring(name)
            var congruent = true
            while true {
                let key = String(candidate)
                if let entry = state.entries[key] {
                    if entry.isExpired(at: time) {
                        state.entries[key] = nil
                        state.changed = true
                    } else if congruent || entry.includeSubDomains {
                        return entry
                    }
                }
                guard let dot = candidate.firstIndex(of: ".") else { return nil }
                candidate = candidate[candidate.index(after: dot)...]
                congruent = false
                if candidate.isEmpty { return nil }
            }
        }
    }

    /// Notes the `Strict-Transport-Security` header `header` received from `host` (RFC 6797 §8.1).
    /// `overTrustedTLS` must be true only for a response over HTTPS whose certificate chain was
    /// verified and trusted; `port` is the connection's port.
    @discardableResult
    public func learn(header: String, host: String, port: Int = 443, overTrustedTLS: Bool, now: Date? = nil) -> LearnOutcome {
        guard overTrustedTLS else { return .ignored(.notOverTrustedTLS) }
        let policy: StrictTransportSecurity
        do {
            policy = try StrictTransportSecurity(parsing: header)
        } catch {
            return .ignored(.invalidHeader(error))
        }
        return learn(policy, host: host, port: port, overTrustedTLS: overTrustedTLS, now: now)
    }

    /// Notes an already parsed policy; the same rules as ``learn(header:host:port:overTrustedTLS:now:)``.
    @discardableResult
    public func learn(_ policy: StrictTransportSecurity, host: String, port: Int = 443, overTrustedTLS: Bool,
                      now: Date? = nil) -> LearnOutcome {
        guard overTrustedTLS else { return .ignored(.notOverTrustedTLS) }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if HSTSHostName.isIPAddress(bare.lowercased()) { return .ignored(.ipAddress) }
        guard let name = HSTSHostName.normalized(host) else { return .ignored(.invalidHost) }
        let time = seconds(now)
        let entry = Entry(host: name, port: port == 443 || !(1...65535).contains(port) ? 0 : port,
                          includeSubDomains: policy.includeSubDomains, created: time, maxAge: policy.maxAge)
        return state.withLock { state -> LearnOutcome in
            let existing = state.entries[name]
            if policy.maxAge == 0 {
                guard existing != nil else { return .ignored(.nothingToRemove) }
                state.entries[name] = nil
                state.changed = true
                return .removed
            }
            if existing != nil {
                state.entries[name] = entry
                state.changed = true
                return .updated
            }
            makeRoom(in: &state, at: time)
            state.entries[name] = entry
            state.changed = true
            return .stored
        }
    }

    /// Drops expired entries, then the soonest-expiring ones, until one more entry fits.
    private func makeRoom(in state: inout State, at time: Int64) {
        guard state.entries.count >= capacity else { return }
        state.entries = state.entries.filter { !$0.value.isExpired(at: time) }
        while state.entries.count >= capacity {
            guard let victim = state.entries.values.min(by: { ($0.expires, $0.host) < ($1.expires, $1.host) }) else { return }
            state.entries[victim.host] = nil
        }
    }

    /// Adds entries read from a file (``HSTSFile``). Entries with an invalid or IP host, a
    /// non-positive `max-age`, or expired at `now` are skipped; for a host already known, the
    /// more recently created entry wins (wget's merge rule). When more than ``capacity`` remain,
    /// the latest-expiring ones are kept. Returns how many entries were taken. Loading does not
    /// mark the store as changed.
    @discardableResult
    public func load(_ entries: [Entry], now: Date? = nil) -> Int {
        let time = seconds(now)
        return state.withLock { state -> Int in
            var taken = 0
            for var entry in entries {
                guard let name = HSTSHostName.normalized(entry.host), !HSTSHostName.isIPAddress(name),
                      entry.maxAge > 0, entry.created >= 0 else { continue }
                entry.host = name
                entry.maxAge = min(entry.maxAge, StrictTransportSecurity.maximumMaxAge)
                if !(0...65535).contains(entry.port) || entry.port == 443 { entry.port = 0 }
                guard !entry.isExpired(at: time) else { continue }
                if let existing = state.entries[name], existing.created >= entry.created { continue }
                state.entries[name] = entry
                taken += 1
            }
            if state.entries.count > capacity {
                let kept = state.entries.values.sorted { ($0.expires, $1.host) > ($1.expires, $0.host) }.prefix(capacity)
                state.entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.host, $0) })
            }
            return taken
        }
    }

    /// The entries not expired at `now`, sorted by host.
    public func entries(now: Date? = nil) -> [Entry] {
        let time = seconds(now)
        return state.withLock { $0.entries.values.filter { !$0.isExpired(at: time) } }.sorted { $0.host < $1.host }
    }

    /// How many entries the store holds (expired ones not yet dropped included).
    public var count: Int { state.withLock { $0.entries.count } }

    /// Whether entries were learned, updated or removed since creation or ``markSaved()``.
    public var hasChanges: Bool { state.withLock { $0.changed } }

    /// Records that the current entries were saved.
    public func markSaved() { state.withLock { $0.changed = false } }

    /// Forgets `host`'s own entry (not its superdomains'). Returns whether there was one.
    @discardableResult
    public func remove(host: String) -> Bool {
        guard let name = HSTSHostName.normalized(host) else { return false }
        return state.withLock { state -> Bool in
            guard state.entries.removeValue(forKey: name) != nil else { return false }
            state.changed = true
            return true
        }
    }
}

/// Host-name rules shared by the HSTS store and file.
enum HSTSHostName {
    /// `host` in lowercase ASCII without brackets or one trailing dot, when it is a plain domain
    /// name or an IP literal: 1–253 bytes, labels of 1–63 letters, digits, '-' or '_'. Else nil.
    static func normalized(_ host: String) -> String? {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]"), name.count >= 2 {
            name = String(name.dropFirst().dropLast())
            return isIPAddress(name) ? name : nil
        }
        if name.hasSuffix(".") { name.removeLast() }
        guard (1...253).contains(name.utf8.count) else { return nil }
        if name.contains(":") { return isIPAddress(name) ? name : nil }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.utf8.count),
                  label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F })
            else { return nil }
        }
        return name
    }

    /// Whether `host` (lowercase, no brackets) is an IPv4 or IPv6 literal, including the numeric
    /// forms URL parsers read as IPv4 (`127.1`, `0x7f.0.0.1`: a last label that is a number).
    static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        if host.contains(":") { return inet_pton(AF_INET6, host, &buffer) == 1 }
        if inet_pton(AF_INET, host, &buffer) == 1 { return true }
        let trimmed = host.hasSuffix(".") ? String(host.dropLast()) : host
        guard let last = trimmed.split(separator: ".", omittingEmptySubsequences: false).last, !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        if last.hasPrefix("0x") { return last.dropFirst(2).utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) } }
        return false
    }
}
