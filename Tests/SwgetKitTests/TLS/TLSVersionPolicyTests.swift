import NIOSSL
import Testing
@testable import SwgetKit

@Suite("TLS: version bounds and cipher lists")
struct TLSVersionPolicyTests {
    typealias V = TLSVersionPolicy.Version
    typealias E = TLSVersionPolicyError

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        var secureProtocol: String?
        var minimums: [V] = []
        var maximum: String?
        var ciphers: String?
        /// (minimum, maximum, cipher list) or the error.
        let expected: Result<Triple, E>
        var testDescription: String { name }
    }

    struct Triple: Equatable, Sendable {
        let minimum: V
        let maximum: V?
        let ciphers: String?
    }

    static func ok(_ minimum: V, _ maximum: V? = nil, _ ciphers: String? = nil) -> Result<Triple, E> {
        .success(Triple(minimum: minimum, maximum: maximum, ciphers: ciphers))
    }

    static let pfs = TLSVersionPolicy.forwardSecrecyCiphers

    static let cases: [Case] = [
        Case(name: "defaults", expected: ok(.tls1_2)),
        Case(name: "--secure-protocol=auto", secureProtocol: "auto", expected: ok(.tls1_2)),
        Case(name: "--secure-protocol=TLSv1_2", secureProtocol: "TLSv1_2", expected: ok(.tls1_2)),
        Case(name: "--secure-protocol=tlsv1_3", secureProtocol: "tlsv1_3", expected: ok(.tls1_3)),
        Case(name: "--secure-protocol=PFS", secureProtocol: "PFS", expected: ok(.tls1_2, nil, pfs)),
        Case(name: "PFS with --ciphers", secureProtocol: "PFS", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256",
             expected: ok(.tls1_2, nil, "ECDHE-ECDSA-AES128-GCM-SHA256")),
        Case(name: "--secure-protocol=TLSv1", secureProtocol: "TLSv1", expected: .failure(.insecureVersion("TLSv1"))),
        Case(name: "--secure-protocol=TLSv1_1", secureProtocol: "TLSv1_1", expected: .failure(.insecureVersion("TLSv1_1"))),
        Case(name: "--secure-protocol=SSLv3", secureProtocol: "SSLv3", expected: .failure(.insecureVersion("SSLv3"))),
        Case(name: "--secure-protocol=bogus", secureProtocol: "TLSv9", expected: .failure(.unknownProtocol("TLSv9"))),
        Case(name: "--tlsv1 / --tlsv1.0 raise nothing", minimums: [.tls1_0], expected: ok(.tls1_2)),
        Case(name: "--tlsv1.1 raises nothing", minimums: [.tls1_1], expected: ok(.tls1_2)),
        Case(name: "--tlsv1.2", minimums: [.tls1_2], expected: ok(.tls1_2)),
        Case(name: "--tlsv1.3", minimums: [.tls1_3], expected: ok(.tls1_3)),
        Case(name: "the highest minimum wins", secureProtocol: "TLSv1_2", minimums: [.tls1_3, .tls1_0], expected: ok(.tls1_3)),
        Case(name: "--tls-max 1.2", maximum: "1.2", expected: ok(.tls1_2, .tls1_2)),
        Case(name: "--tls-max 1.3", maximum: "1.3", expected: ok(.tls1_2, .tls1_3)),
        Case(name: "--tls-max default", maximum: "default", expected: ok(.tls1_2)),
        Case(name: "--tls-max 1.1", maximum: "1.1", expected: .failure(.insecureVersion("TLS 1.1"))),
        Case(name: "--tls-max 1.0", maximum: "1.0", expected: .failure(.insecureVersion("TLS 1.0"))),
        Case(name: "--tls-max 1.4", maximum: "1.4", expected: .failure(.unknownVersion("1.4"))),
        Case(name: "--tls-max empty", maximum: "", expected: .failure(.unknownVersion(""))),
        Case(name: "--tlsv1.3 --tls-max 1.2", minimums: [.tls1_3], maximum: "1.2",
             expected: .failure(.unsatisfiable(minimum: .tls1_3, maximum: .tls1_2))),
        Case(name: "TLSv1_3 with --tls-max 1.3", secureProtocol: "TLSv1_3", maximum: "1.3", expected: ok(.tls1_3, .tls1_3)),
        Case(name: "--ciphers", ciphers: "ECDHE+AESGCM:!aNULL", expected: ok(.tls1_2, nil, "ECDHE+AESGCM:!aNULL")),
        Case(name: "--ciphers empty", ciphers: "", expected: .failure(.invalidCipherList)),
        Case(name: "--ciphers control character", ciphers: "A\nB", expected: .failure(.invalidCipherList)),
        Case(name: "--ciphers non-ASCII", ciphers: "ÄES", expected: .failure(.invalidCipherList)),
        Case(name: "--ciphers too long", ciphers: String(repeating: "A:", count: 1500), expected: .failure(.invalidCipherList)),
    ]

    @Test(arguments: cases)
    func resolve(_ c: Case) {
        let result = Result { () throws(E) -> Triple in
            let secureProtocol = try c.secureProtocol.map { s throws(E) in try TLSVersionPolicy.SecureProtocol(parsing: s) } ?? .auto
            let policy = try TLSVersionPolicy(secureProtocol: secureProtocol, minimums: c.minimums, maximum: c.maximum, ciphers: c.ciphers)
            return Triple(minimum: policy.minimum, maximum: policy.maximum, ciphers: policy.cipherList)
        }
        #expect(result == c.expected)
        if case .failure(let error) = result { #expect(!error.description.contains("\n")) }
    }

    @Test func configuresNIOSSL() throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        let before = configuration.cipherSuites
        TLSVersionPolicy().configure(&configuration)
        #expect(configuration.minimumTLSVersion == .tlsv12 && configuration.maximumTLSVersion == nil)
        #expect(configuration.cipherSuites == before)
        try TLSVersionPolicy(minimums: [.tls1_3], maximum: "1.3", ciphers: "AES128-GCM-SHA256").configure(&configuration)
        #expect(configuration.minimumTLSVersion == .tlsv13 && configuration.maximumTLSVersion == .tlsv13)
        #expect(configuration.cipherSuites == "AES128-GCM-SHA256")
    }

    struct CipherCase: CustomTestStringConvertible, Sendable {
        let list: String
        /// Selected suite IDs, or nil when the list must be refused as malformed.
        let suites: Set<UInt16>?
        var testDescription: String { list.isEmpty ? "(empty)" : list }
    }

    static let cipherCases: [CipherCase] = [
        CipherCase(list: "ECDHE-RSA-AES128-GCM-SHA256", suites: [0xC02F]),
        CipherCase(list: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", suites: [0xC02F]),
        CipherCase(list: "NOT-A-CIPHER:ECDHE-RSA-AES128-GCM-SHA256", suites: [0xC02F]),
        CipherCase(list: "NOT-A-CIPHER", suites: []),
        CipherCase(list: "TLS_AES_128_GCM_SHA256", suites: []),
        CipherCase(list: "!ALL", suites: []),
        CipherCase(list: "ALL:!ALL:AES", suites: []),
        CipherCase(list: "ALL:-ALL:AESGCM+ECDSA", suites: [0xC02B, 0xC02C]),
        CipherCase(list: "RSA+AESGCM", suites: [0x009C, 0x009D]),
        CipherCase(list: "RSA+ECDHE", suites: []),
        CipherCase(list: "3DES", suites: [0x000A]),
        CipherCase(list: "ECDHE+AES128:-SHA1", suites: [0xC02B, 0xC02F]),
        CipherCase(list: "AES128+ECDHE+TLSv1.2", suites: [0xC02B, 0xC02F]),
        // BoringSSL skips a rule whose version alias comes before a versionless alias.
        CipherCase(list: "ECDHE+TLSv1.2+AES128", suites: []),
        CipherCase(list: "ECDHE-RSA-AES128-SHA256", suites: [0xC027]),
        CipherCase(list: "ECDHE+SHA1+TLSv1.2", suites: []),
        CipherCase(list: "TLSv1+TLSv1.2", suites: []),
        CipherCase(list: "DEFAULT", suites: Set(CipherStringModel.suites.filter { !$0.deprecated }.map(\.id))),
        CipherCase(list: "DEFAULT:!PSK:!RSA:!aECDSA", suites: [0xC013, 0xC014, 0xC02F, 0xC030, 0xC035, 0xC036, 0xCCA8, 0xCCAC]),
        CipherCase(list: "ALL:@STRENGTH", suites: Set(CipherStringModel.suites.filter { !$0.deprecated }.map(\.id))),
        CipherCase(list: "CHACHA20, AESGCM+aRSA;  AES256+PSK", suites: [0xCCA8, 0xCCA9, 0xCCAC, 0x009C, 0x009D, 0xC02F, 0xC030, 0x008D]),
        CipherCase(list: TLSVersionPolicy.forwardSecrecyCiphers,
                   suites: [0xC02B, 0xC02C, 0xC02F, 0xC030, 0xCCA8, 0xCCA9, 0xCCAC, 0xC009, 0xC00A, 0xC013, 0xC014, 0xC035, 0xC036]),
        CipherCase(list: "ECDHE+", suites: nil),
        CipherCase(list: "!", suites: nil),
        CipherCase(list: "-:AES", suites: nil),
        CipherCase(list: "AES=1", suites: nil),
        CipherCase(list: "@SECLEVEL=2:AES", suites: nil),
        CipherCase(list: "[AES|CHACHA20]", suites: nil),
        CipherCase(list: "AES|CHACHA20", suites: nil),
        CipherCase(list: "AES/GCM", suites: nil),
    ]

    @Test(arguments: cipherCases)
    func cipherStrings(_ c: CipherCase) throws {
        switch CipherStringModel.select(c.list) {
        case .success(let suites):
            #expect(suites == c.suites)
            if !suites.isEmpty { #expect(try Self.boringSSLSelection(c.list) == suites) }
        case .failure:
            #expect(c.suites == nil)
        }
        let policy = Result { () throws(E) in try TLSVersionPolicy(ciphers: c.list) }
        switch c.suites {
        case nil: #expect(policy.map(\.cipherList) == .failure(.invalidCipherList))
        case let suites? where suites.isEmpty: #expect(policy.map(\.cipherList) == .failure(.noKnownCipher(c.list)))
        default: #expect(policy.map(\.cipherList) == .success(c.list))
        }
    }

    /// The TLS 1.2 suites BoringSSL itself selects for `list` (only for lists it accepts: NIOSSL
    /// stops the process on the others).
    static func boringSSLSelection(_ list: String) throws -> Set<UInt16> {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([])
        configuration.cipherSuites = list
        return Set(configuration.cipherSuiteValues.map(\.rawValue).filter { $0 >> 8 != 0x13 })
    }

    /// Random lists built from names, aliases, operators and junk: whenever the model accepts a
    /// list, BoringSSL must accept it and select exactly the same suites.
    @Test func theModelAgreesWithBoringSSL() throws {
        var words = Array(CipherStringModel.aliases.keys) + CipherStringModel.suites.flatMap(\.names)
        words += ["DEFAULT", "MD5", "aNULL", "eNULL", "SHA256", "SHA384", "TLS_AES_128_GCM_SHA256", "junk", "ECDHE-RSA"]
        var state: UInt64 = 0x5EED_17
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var checked = 0
        for _ in 0..<3000 {
            let elements = (0..<(1 + next(4))).map { _ in
                ["", "", "!", "-", "+"][next(5)] + (0..<(1 + next(2))).map { _ in words[next(words.count)] }.joined(separator: "+")
            }
            let list = elements.joined(separator: [":", ",", " ", ";"][next(4)])
            guard case .success(let suites) = CipherStringModel.select(list), !suites.isEmpty else { continue }
            #expect(try Self.boringSSLSelection(list) == suites, "\(list)")
            checked += 1
        }
        #expect(checked > 500)
    }

    @Test(arguments: [("1", V.tls1_0), ("1.0", .tls1_0), ("1.1", .tls1_1), ("1.2", .tls1_2), ("1.3", .tls1_3)])
    func curlVersionNames(_ name: String, _ version: V) {
        #expect(V(curlName: name) == version)
    }

    @Test(arguments: ["", "1.4", "tls1.2", "1.2 ", "v1.2"])
    func unknownCurlVersionNames(_ name: String) {
        #expect(V(curlName: name) == nil)
    }
}
