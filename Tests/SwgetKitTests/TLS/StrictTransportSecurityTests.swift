import Testing
@testable import SwgetKit

@Suite("HSTS: Strict-Transport-Security header (RFC 6797 §6.1)")
struct StrictTransportSecurityTests {
    typealias E = StrictTransportSecurity.ParseError

    struct Case: CustomTestStringConvertible, Sendable {
        let value: String
        /// (max-age, includeSubDomains) or the error.
        let expected: Result<StrictTransportSecurity, E>
        var testDescription: String { value.count > 60 ? String(value.prefix(60)) + "…" : value }

        init(_ value: String, _ maxAge: Int64, _ subdomains: Bool = false) {
            self.value = value
            expected = .success(StrictTransportSecurity(maxAge: maxAge, includeSubDomains: subdomains))
        }

        init(_ value: String, error: E) {
            self.value = value
            expected = .failure(error)
        }
    }

    static let cases: [Case] = [
        Case("max-age=31536000", 31_536_000),
        Case("max-age=31536000; includeSubDomains", 31_536_000, true),
        Case("includeSubDomains; max-age=0", 0, true),
        Case("MAX-AGE=10;INCLUDESUBDOMAINS", 10, true),
        Case("Max-Age=\"10\"", 10),
        Case("  max-age = 10 ; includeSubDomains  ", 10, true),
        Case("max-age=10;;; ;", 10),
        Case(";max-age=10", 10),
        Case("max-age=10; preload", 10),
        Case("max-age=10; unknown=\"quoted; value\"", 10),
        Case("max-age=10; unknown=\"esc\\\"aped\"", 10),
        Case("max-age=10; x=token!#$%&'*+-.^_`|~", 10),
        Case("max-age=0000000000000000000000000000010", 10),
        Case("max-age=99999999999999999999999999999999999", StrictTransportSecurity.maximumMaxAge),
        Case("max-age=2147483648", StrictTransportSecurity.maximumMaxAge),
        Case("\tmax-age=5\t", 5),
        // Invalid: the whole field is ignored.
        Case("", error: .missingMaxAge),
        Case("includeSubDomains", error: .missingMaxAge),
        Case("max-age", error: .invalidMaxAge("")),
        Case("max-age=", error: .malformed(offset: 8)),
        Case("max-age=\"\"", error: .invalidMaxAge("")),
        Case("max-age=-1", error: .invalidMaxAge("-1")),
        Case("max-age=+1", error: .invalidMaxAge("+1")),
        Case("max-age=1.5", error: .invalidMaxAge("1.5")),
        Case("max-age=0x10", error: .invalidMaxAge("0x10")),
        Case("max-age=\" 10\"", error: .invalidMaxAge(" 10")),
        Case("max-age=10; max-age=20", error: .duplicateDirective("max-age")),
        Case("max-age=10; MAX-AGE=10", error: .duplicateDirective("max-age")),
        Case("max-age=10; includeSubDomains; includesubdomains", error: .duplicateDirective("includesubdomains")),
        Case("max-age=10; x; x", error: .duplicateDirective("x")),
        Case("max-age=10; includeSubDomains=1", error: .valueOnIncludeSubDomains),
        Case("max-age=10 includeSubDomains", error: .malformed(offset: 11)),
        Case("max-age=10, includeSubDomains", error: .malformed(offset: 10)),
        Case("max-age=\"10", error: .malformed(offset: 8)),
        Case("max-age=10; x=\"a\u{01}b\"", error: .malformed(offset: 16)),
        Case("max-age=10; x=\"a\\", error: .malformed(offset: 16)),
        Case("max-age=10\u{0}", error: .malformed(offset: 10)),
        Case("max-age=10; ünknown", error: .malformed(offset: 12)),
        Case("max-age=10; =5", error: .malformed(offset: 12)),
        Case("max-age=1\r\n", error: .malformed(offset: 9)),
        Case("max-age=1;" + (0..<100).map { "a\($0)" }.joined(separator: ";"), error: .tooManyDirectives),
        Case(String(repeating: " ", count: 5000), error: .tooLong),
    ]

    @Test(arguments: cases)
    func parse(_ c: Case) {
        let result = Result { () throws(E) in try StrictTransportSecurity(parsing: c.value) }
        #expect(result == c.expected)
    }

    @Test func distinctDirectivesUpToTheLimitAreFine() throws {
        let names = (0..<(StrictTransportSecurity.maximumDirectives - 1)).map { "d\($0)" }
        let policy = try StrictTransportSecurity(parsing: "max-age=1;" + names.joined(separator: ";"))
        #expect(policy.maxAge == 1)
    }

    @Test func everyErrorHasOneLine() {
        let errors: [E] = [.tooLong, .tooManyDirectives, .malformed(offset: 3), .missingMaxAge, .duplicateDirective("x"),
                           .invalidMaxAge("y"), .valueOnIncludeSubDomains]
        for error in errors {
            #expect(!error.description.isEmpty && !error.description.contains("\n"))
        }
    }
}
