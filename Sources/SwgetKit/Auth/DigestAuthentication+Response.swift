/// The request body as Digest's `qop=auth-int` needs it: H(entity-body) (RFC 7616 §3.4.3).
/// Bodies stream, so the digest may be computed ahead (``DigestHash/Hasher``) or be unavailable.
public enum DigestEntityBody: Sendable, Hashable {
    /// No body (GET, HEAD...): the digest of zero bytes.
    case empty
    /// A body held in memory.
    case bytes([UInt8])
    /// Digests computed by the caller, by hash function (lowercase hex).
    case precomputed([DigestHash: String])
    /// A streamed body whose digest is not known: `auth-int` cannot be used.
    case unavailable

    /// H(entity-body) with `hash`, or nil when unknown.
    public func digest(_ hash: DigestHash) -> String? {
        switch self {
        case .empty: hash.hex([UInt8]())
        case .bytes(let bytes): hash.hex(bytes)
        case .precomputed(let digests): digests[hash]
        case .unavailable: nil
        }
    }
}

/// What is kept to answer with one server nonce again: the challenge, the client nonce and the
/// last nonce count used. Reusing a nonce with the next count (RFC 7616 §3.4: `nc` counts the
/// requests sent with one nonce) lets later requests to a protection space authenticate without
/// a new challenge. The cnonce stays the same for the nonce's life, which the `-sess` algorithms
/// need (their A1 is fixed by the first cnonce) and the others allow.
struct DigestNonceState: Sendable, Hashable {
    /// The challenge that gave the nonce.
    public let challenge: DigestChallenge
    /// The client nonce used with it.
    public let cnonce: String
    /// The last `nc` sent with this nonce; 0 before the first request.
    public private(set) var nonceCount: UInt32

    /// The state for `challenge` with client nonce `cnonce`; `nonceCount` is the last count used.
    public init(challenge: DigestChallenge, cnonce: String, nonceCount: UInt32 = 0) {
        self.challenge = challenge
        self.cnonce = cnonce
        self.nonceCount = nonceCount
    }

    /// Counts one more request and returns its `Authorization` value. Throws
    /// ``DigestAuthenticationError/nonceCountExhausted`` after 2³²−1 requests, and what
    /// ``DigestAuthentication/authorization(challenge:user:password:method:uri:nonceCount:cnonce:body:)``
    /// throws (then the count is not advanced).
    public mutating func nextAuthorization(user: String, password: String, method: String, uri: String,
                                           body: DigestEntityBody) throws(DigestAuthenticationError) -> String {
        guard nonceCount < UInt32.max else { throw .nonceCountExhausted }
        let value = try DigestAuthentication.authorization(challenge: challenge, user: user, password: password, method: method,
                                                           uri: uri, nonceCount: nonceCount + 1, cnonce: cnonce, body: body)
        nonceCount += 1
        return value
    }
}

/// Digest access authentication (RFC 7616): the `Authorization` value for a challenge.
public enum DigestAuthentication {
    /// A client nonce: 16 bytes from `generator`, hex-encoded (32 characters, no quoting needed).
    public static func makeCnonce(using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return DigestHash.hexString(bytes)
    }

    /// A client nonce from the system's secure generator.
    public static func makeCnonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeCnonce(using: &generator)
    }

    /// The qop to answer with: `auth` when offered (it needs no body), else `auth-int`, nil for an
    /// RFC 2069 challenge without `qop`.
    public static func chooseQOP(_ challenge: DigestChallenge) -> DigestQOP? {
        if challenge.qopOptions.isEmpty { return nil }
        return challenge.qopOptions.contains(.auth) ? .auth : .authInt
    }

    /// The `Authorization` (or `Proxy-Authorization`) value answering `challenge` for the request
    /// `method uri` (§3.4), the nonce's `nonceCount`-th use, with client nonce `cnonce`:
    ///
    /// ```
    /// Digest username="Mufasa", realm="…", uri="/dir/index.html", algorithm=SHA-256, nonce="…",
    ///        nc=00000001, cnonce="…", qop=auth, response="…", opaque="…"
    /// ```
    ///
    /// - A1 = user ":" realm ":" password; for `-sess`, H(A1) ":" nonce ":" cnonce (§3.4.2).
    /// - A2 = method ":" uri, plus ":" H(body) for `auth-int` (§3.4.3).
    /// - response = H(H(A1) ":" nonce ":" nc ":" cnonce ":" qop ":" H(A2)); without `qop`
    ///   (RFC 2069), H(H(A1) ":" nonce ":" H(A2)) and no nc, cnonce or qop are sent.
    /// - The user name is sent hashed as H(user ":" realm) when the challenge asks (`userhash`,
    ///   §3.4.4), as a quoted-string when it is printable ASCII, else as RFC 8187's
    ///   `username*=UTF-8''…` (§3.4). User and password are UTF-8 (§4).
    /// - `uri` is the request-target as sent (origin-form, or absolute-form through a proxy).
    public static func authorization(challenge: DigestChallenge, user: String, password: String, method: String, uri: String,
                                     nonceCount: UInt32, cnonce: String, body: DigestEntityBody) throws(DigestAuthenticationError) -> String {
        let hash = challenge.algorithm.hash
        let qop = chooseQOP(challenge)
        if qop == nil, challenge.algorithm.isSession {
            throw .unsupportedQOP("none, with \(challenge.algorithm.rawValue)")
        }
        var ha1 = hash.hex("\(user):\(challenge.realm):\(password)")
        if challenge.algorithm.isSession {
            ha1 = hash.hex("\(ha1):\(challenge.nonce):\(cnonce)")
        }
        var a2 = "\(method):\(uri)"
        if qop == .authInt {
            guard let bodyDigest = body.digest(hash) else { throw .bodyDigestUnavailable }
            a2 += ":\(bodyDigest)"
        }
        let ha2 = hash.hex(a2)
        let nc = formatNonceCount(nonceCount)
        let response: String = if let qop {
            hash.hex("\(ha1):\(challenge.nonce):\(nc):\(cnonce):\(qop.rawValue):\(ha2)")
        } else {
            hash.hex("\(ha1):\(challenge.nonce):\(ha2)")
        }

        var fields: [String] = []
        if challenge.userhash {
            fields.append("username=\(quoted(hash.hex("\(user):\(challenge.realm)")))")
        } else if user.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields.append("username=\(quoted(user))")
        } else {
            fields.append("username*=UTF-8''\(extValueEncoded(user))")
        }
        fields.append("realm=\(quoted(challenge.realm))")
        fields.append("uri=\(quoted(uri))")
        fields.append("algorithm=\(challenge.algorithm.rawValue)")
        fields.append("nonce=\(quoted(challenge.nonce))")
        if let qop {
            fields.append("nc=\(nc)")
            fields.append("cnonce=\(quoted(cnonce))")
            fields.append("qop=\(qop.rawValue)")
        }
        fields.append("response=\(quoted(response))")
        if let opaque = challenge.opaque { fields.append("opaque=\(quoted(opaque))") }
        if challenge.userhash { fields.append("userhash=true") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// `nc`: eight lowercase hex digits (§3.4).
    static func formatNonceCount(_ count: UInt32) -> String {
        let digits = String(count, radix: 16)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// A quoted-string (RFC 9110 §5.6.4) with `"` and `\` escaped. Control characters other than
    /// HTAB never reach it (the challenge's values are checked, the user name is not quoted
    /// unless printable), but are dropped here too so that a header can never be split.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F { continue }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 8187 §3.2.1 value-chars: attr-char as is, every other byte of the UTF-8 as %XX.
    static func extValueEncoded(_ text: String) -> String {
        let attrChars = Set("!#$&+-.^_`|~".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            let isAlnum = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
            if isAlnum || attrChars.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
