import Testing
@testable import SwgetKit

@Suite(".netrc parsing")
struct NetrcTests {
    typealias Entry = Netrc.Entry

    struct LookupCase: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let host: String
        let login: String?
        let expected: Entry?
        var testDescription: String { name }
        init(_ name: String, _ text: String, host: String, login: String? = nil, _ expected: Entry?) {
            self.name = name
            self.text = text
            self.host = host
            self.login = login
            self.expected = expected
        }
    }

    static let lookups: [LookupCase] = [
        LookupCase("one line", "machine example.com login alice password s3cret", host: "example.com",
                   Entry(machine: "example.com", login: "alice", password: "s3cret")),
        LookupCase("tokens over lines, account", "machine example.com\n  login alice\n\n  password s3cret\n  account acct\n", host: "example.com",
                   Entry(machine: "example.com", login: "alice", password: "s3cret", account: "acct")),
        LookupCase("tabs and CRLF", "machine\texample.com\r\n\tlogin\talice\r\n\tpassword\ts3cret\r\n", host: "example.com",
                   Entry(machine: "example.com", login: "alice", password: "s3cret")),
        LookupCase("host case ignored", "machine Example.COM login a password p", host: "example.com",
                   Entry(machine: "Example.COM", login: "a", password: "p")),
        LookupCase("no match, no default", "machine a.com login a password p", host: "b.com", nil),
        LookupCase("default as fallback", "machine a.com login a password pa\ndefault login anon password guest", host: "b.com",
                   Entry(machine: nil, login: "anon", password: "guest")),
        LookupCase("machine beats default", "default login anon password guest\nmachine a.com login a password pa", host: "a.com",
                   Entry(machine: "a.com", login: "a", password: "pa")),
        LookupCase("default not used when the machine exists with another login",
                   "machine a.com login a password pa\ndefault login b password pb", host: "a.com", login: "b", nil),
        LookupCase("first entry without a login asked", "machine h login u1 password p1\nmachine h login u2 password p2", host: "h",
                   Entry(machine: "h", login: "u1", password: "p1")),
        LookupCase("entry chosen by login", "machine h login u1 password p1\nmachine h login u2 password p2", host: "h", login: "u2",
                   Entry(machine: "h", login: "u2", password: "p2")),
        LookupCase("unknown login", "machine h login u1 password p1", host: "h", login: "u3", nil),
        LookupCase("login compared exactly", "machine h login Alice password p", host: "h", login: "alice", nil),
        LookupCase("entry without a login takes the one asked", "machine h password p", host: "h", login: "bob",
                   Entry(machine: "h", login: "bob", password: "p")),
        // By design (FuzzNetrc's finding was a wrong property, not a parser bug): the answer is
        // the file's entry with the asked login filled in, so it is not one of `entries`.
        LookupCase("default without a login takes the one asked", "default password guest\nmachine a.com login a password pa",
                   host: "b.com", login: "a", Entry(machine: nil, login: "a", password: "guest")),
        LookupCase("exact login preferred to an entry without one", "machine h password p0\nmachine h login bob password p1", host: "h", login: "bob",
                   Entry(machine: "h", login: "bob", password: "p1")),
        LookupCase("quoted tokens and escapes", #"machine h login "my user" password "p\"w\\d\n\tx\q""#, host: "h",
                   Entry(machine: "h", login: "my user", password: "p\"w\\d\n\txq")),
        LookupCase("empty quoted password", #"machine h login u password """#, host: "h", Entry(machine: "h", login: "u", password: "")),
        LookupCase("comment lines", "# my hosts\n   # indented comment machine evil\nmachine h login u password p\n#end", host: "h",
                   Entry(machine: "h", login: "u", password: "p")),
        LookupCase("comment after an entry", "machine h login u password p # password evil\n", host: "h",
                   Entry(machine: "h", login: "u", password: "p")),
        LookupCase("# inside a value", "machine h login u password #hash#", host: "h", Entry(machine: "h", login: "u", password: "#hash#")),
        LookupCase("keyword as a value", "machine h login password password machine", host: "h",
                   Entry(machine: "h", login: "password", password: "machine")),
        LookupCase("repeated password: last wins", "machine h login u password one password two", host: "h",
                   Entry(machine: "h", login: "u", password: "two")),
        LookupCase("macdef body skipped", "machine h login u\nmacdef init\ncd /pub\nmachine evil login x password y\n\npassword p", host: "h",
                   Entry(machine: "h", login: "u", password: "p")),
        LookupCase("macdef ends at a blank line of spaces", "machine h login u\nmacdef init\ncd /pub\n  \t \nmachine g login v password q",
                   host: "g", Entry(machine: "g", login: "v", password: "q")),
        LookupCase("macdef up to the end of the file", "machine h login u password p\nmacdef init\nmachine evil login x password y",
                   host: "evil", nil),
        LookupCase("non-ASCII values", "machine h login jös password pässwörd", host: "h", Entry(machine: "h", login: "jös", password: "pässwörd")),
    ]

    @Test(arguments: lookups)
    func lookup(_ c: LookupCase) throws {
        #expect(try Netrc(parsing: c.text).lookup(host: c.host, login: c.login) == c.expected)
    }

    @Test func unknownKeywordsAreSkippedWithWarnings() throws {
        let netrc = try Netrc(parsing: "machine h\nport 21\nlogin u password p")
        #expect(netrc.lookup(host: "h") == Entry(machine: "h", login: "u", password: "p"))
        #expect(netrc.warnings.map(\.line) == [2, 2])
        #expect(netrc.warnings.first?.description == "line 2: unknown keyword 'port' skipped")
        let many = try Netrc(parsing: "machine h " + String(repeating: "x ", count: 1000))
        #expect(many.warnings.count == 100)
    }

    @Test(arguments: [
        ("machine h login u password", NetrcError(.missingValue(keyword: "password"), line: 1)),
        ("machine h\nlogin u\npassword\n\n", NetrcError(.missingValue(keyword: "password"), line: 3)),
        ("machine", NetrcError(.missingValue(keyword: "machine"), line: 1)),
        ("machine h\naccount", NetrcError(.missingValue(keyword: "account"), line: 2)),
        ("\n\n\nmacdef", NetrcError(.missingValue(keyword: "macdef"), line: 4)),
        (#"machine h password "abc"#, NetrcError(.unterminatedQuote, line: 1)),
        ("machine h\npassword \"ab\ncd\"", NetrcError(.unterminatedQuote, line: 2)),
        (#"machine h password "abc\"#, NetrcError(.unterminatedQuote, line: 1)),
        ("login u password p", NetrcError(.outsideEntry(keyword: "login"), line: 1)),
        ("# c\npassword p", NetrcError(.outsideEntry(keyword: "password"), line: 2)),
        ("machine h login u\nmacdef m\nbody\n\nlogin", NetrcError(.missingValue(keyword: "login"), line: 5)),
    ])
    func malformed(_ text: String, _ error: NetrcError) {
        #expect(throws: error) { try Netrc(parsing: text) }
        #expect(error.description.hasPrefix("line \(error.line): "))
    }

    @Test func sizeIsBounded() throws {
        let limit = Netrc.maximumBytes
        let padding = String(repeating: " ", count: limit - "machine h login u password p".utf8.count)
        let atLimit = try Netrc(parsing: "machine h login u password p" + padding)
        #expect(atLimit.entries.count == 1)
        #expect(throws: NetrcError(.tooLarge, line: 0)) { try Netrc(parsing: "machine h login u password p" + padding + " ") }
    }

    @Test func manyEntriesParse() throws {
        let text = (0..<20_000).map { "machine m\($0) login u\($0) password p\($0)" }.joined(separator: "\n")
        let netrc = try Netrc(parsing: text)
        #expect(netrc.entries.count == 20_000)
        #expect(netrc.lookup(host: "m19999")?.password == "p19999")
    }

    @Test func randomInputNeverTraps() {
        var generator = AuthSeededGenerator(seed: 0x0E7C)
        let words = ["machine", "default", "login", "password", "account", "macdef", "h", "\"q\\\"x\"", "\"open", "#", "\n", "\n\n", " ", "\t", "\\"]
        for _ in 0..<2000 {
            let text = (0..<Int(generator.next() % 30)).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ")
            do throws(NetrcError) {
                let netrc = try Netrc(parsing: text)
                _ = netrc.lookup(host: "h", login: nil)
            } catch {
                #expect(error.line >= 1 && error.line <= text.split(separator: "\n", omittingEmptySubsequences: false).count)
            }
        }
    }

    @Test(arguments: [
        (UInt32(0o100600), false), (0o100400, false), (0o100700, false),
        (0o100644, true), (0o100640, true), (0o100604, true), (0o100620, true), (0o100601, true),
    ])
    func exposedModes(_ mode: UInt32, _ exposed: Bool) {
        #expect(Netrc.isExposed(mode: mode) == exposed)
    }
}
