import Testing
@testable import SwgetCLI

@Suite("Configuration file and -e (wgetrc syntax)")
struct ConfigFileTests {
    /// A small table standing in for the command's ArgumentParser declarations.
    static let options = ConfigFile.OptionTable([
        .init("tries", takesValue: true),
        .init("timeout", takesValue: true),
        .init("parallel", takesValue: true),
        .init("header", takesValue: true),
        .init("user-agent", takesValue: true),
        .init("user", takesValue: true),
        .init("password", takesValue: true),
        .init("output-document", takesValue: true),
        .init("directory-prefix", takesValue: true),
        .init("cut-dirs", takesValue: true),
        .init("noproxy", takesValue: true),
        .init("continue", takesValue: false),
        .init("timestamping", takesValue: false),
        .init("quiet", takesValue: false),
        .init("insecure", takesValue: false),
        .init("no-check-certificate", takesValue: false),
        .init("no-proxy", takesValue: false),
        .init("no-clobber", takesValue: false),
        .init("no-cache", takesValue: false),
        .init("content-disposition", takesValue: false),
        .init("no-content-disposition", takesValue: false),
        .init("force-directories", takesValue: false),
        .init("no-directories", takesValue: false),
        .init("no-host-directories", takesValue: false),
    ])

    struct Good: CustomTestStringConvertible, Sendable {
        let line: String
        let tokens: [String]
        var testDescription: String { line }
        init(_ line: String, _ tokens: [String]) {
            self.line = line
            self.tokens = tokens
        }
    }

    static let good: [Good] = [
        Good("tries = 5", ["--tries=5"]),
        Good("parallel=8", ["--parallel=8"]),
        Good("  tries\t=\t5  ", ["--tries=5"]),
        Good("TRIES = 5", ["--tries=5"]),
        Good("user_agent = Mozilla/5.0 (X11)", ["--user-agent=Mozilla/5.0 (X11)"]),
        Good("User-Agent = x", ["--user-agent=x"]),
        Good("useragent = x", ["--user-agent=x"]),
        Good("DIr__PrefiX = /tmp/d", ["--directory-prefix=/tmp/d"]),
        Good("--tries = 3", ["--tries=3"]),
        Good("header = X-Tag: #1", ["--header=X-Tag: #1"]),
        Good("header = a = b", ["--header=a = b"]),
        Good("header = -H", ["--header=-H"]),
        Good("user_agent =", ["--user-agent", ""]),
        // Quoting.
        Good("user_agent = \"My Agent\"", ["--user-agent=My Agent"]),
        Good("user_agent = \"  padded  \"", ["--user-agent=  padded  "]),
        Good("header = \"X-Q: \\\"quoted\\\"\"", ["--header=X-Q: \"quoted\""]),
        Good("header = \"X-T:\\tx\"", ["--header=X-T:\tx"]),
        Good("output_document = \"C:\\dir\\f\"", ["--output-document=C:\\dir\\f"]),
        Good("output_document = \"a\\\\b\"", ["--output-document=a\\b"]),
        Good("user_agent = 'it \"is\" \\literal'", ["--user-agent=it \"is\" \\literal"]),
        Good("user_agent = \"\"", ["--user-agent", ""]),
        Good("user_agent = \"x\"   ", ["--user-agent=x"]),
        Good("user_agent = a\"b\"", ["--user-agent=a\"b\""]),
        // Booleans.
        Good("continue = on", ["--continue"]),
        Good("continue = yes", ["--continue"]),
        Good("continue = TRUE", ["--continue"]),
        Good("continue = 1", ["--continue"]),
        Good("continue = off", []),
        Good("continue = no", []),
        Good("continue = false", []),
        Good("continue = 0", []),
        Good("continue", ["--continue"]),
        Good("quiet = On", ["--quiet"]),
        Good("no_clobber = on", ["--no-clobber"]),
        Good("no_clobber = off", []),
        Good("content_disposition = off", ["--no-content-disposition"]),
        Good("no_content_disposition = off", ["--content-disposition"]),
        // Keys whose option is only the negative one.
        Good("check_certificate = off", ["--no-check-certificate"]),
        Good("check_certificate = on", []),
        Good("cache = off", ["--no-cache"]),
        Good("cache = on", []),
        Good("timestamping = on", ["--timestamping"]),
        // wgetrc names.
        Good("use_proxy = off", ["--no-proxy"]),
        Good("use_proxy = on", []),
        Good("robots = off", []),
        Good("robots = on", []),
        Good("http_user = alice", ["--user=alice"]),
        Good("http_password = s3cr3t", ["--password=s3cr3t"]),
        Good("http_passwd = s3cr3t", ["--password=s3cr3t"]),
        Good("dir_prefix = out", ["--directory-prefix=out"]),
        Good("dirstruct = on", ["--force-directories"]),
        Good("dirstruct = off", ["--no-directories"]),
        Good("add_hostdir = off", ["--no-host-directories"]),
        Good("add_hostdir = on", []),
        Good("no_proxy = localhost,.lan", ["--noproxy=localhost,.lan"]),
        Good("cut_dirs = 2", ["--cut-dirs=2"]),
        // Comments and blank lines.
        Good("", []),
        Good("   \t ", []),
        Good("# tries = 5", []),
        Good("   # indented comment", []),
        Good("tries = 5\r", ["--tries=5"]),
    ]

    @Test(arguments: good)
    func goodLines(_ c: Good) throws {
        #expect(try ConfigFile.arguments(parsing: c.line, source: "rc", options: Self.options) == c.tokens)
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        let text: String
        let error: String
        var testDescription: String { text }
        init(_ text: String, _ error: String) {
            self.text = text
            self.error = error
        }
    }

    static let bad: [Bad] = [
        Bad("bogus = 1", "rc:1: unknown option 'bogus'"),
        Bad("# ok\n\ntries = 5\nfrobnicate", "rc:4: unknown option 'frobnicate'"),
        Bad("tries", "rc:1: 'tries' needs a value ('tries = VALUE')"),
        Bad("continue = maybe", "rc:1: 'continue' takes on or off, not 'maybe'"),
        Bad("continue =", "rc:1: 'continue' takes on or off, not ''"),
        Bad("check_certificate = sure", "rc:1: 'check_certificate' takes on or off, not 'sure'"),
        Bad("use_proxy = perhaps", "rc:1: 'use_proxy' takes on or off, not 'perhaps'"),
        Bad("= 5", "rc:1: expected 'name = value', got ''"),
        Bad("tri es = 5", "rc:1: expected 'name = value', got 'tri es'"),
        Bad("tries: 5", "rc:1: expected 'name = value', got 'tries: 5'"),
        Bad("tr\u{e9}s = 5", "rc:1: expected 'name = value', got 'tr\u{e9}s'"),
        Bad("user_agent = \"unterminated", "rc:1: missing closing quote"),
        Bad("user_agent = 'unterminated", "rc:1: missing closing quote"),
        Bad("user_agent = \"x\" y", "rc:1: text after the closing quote"),
        Bad("user_agent = \"ends with backslash\\", "rc:1: missing closing quote"),
        Bad("header = X: a\u{1}b", "rc:1: control character in the value of 'header'"),
        Bad("header = X: a\u{7F}", "rc:1: control character in the value of 'header'"),
        Bad("header = X: a\rInjected: 1", "rc:1: control character in the value of 'header'"),
        Bad("config = /etc/other", "rc:1: 'config' cannot be set here"),
        Bad("no_config = on", "rc:1: 'no_config' cannot be set here"),
        Bad("execute = tries=1", "rc:1: 'execute' cannot be set here"),
        Bad("bo\u{1B}[31mgus = 1", "rc:1: expected 'name = value', got 'bo?[31mgus'"),
        Bad("tries = 1\n\u{0}", "rc:2: expected 'name = value', got '?'"),
    ]

    @Test(arguments: bad)
    func badLines(_ c: Bad) {
        #expect(throws: (any Error).self) { try ConfigFile.arguments(parsing: c.text, source: "rc", options: Self.options) }
        do {
            _ = try ConfigFile.arguments(parsing: c.text, source: "rc", options: Self.options)
        } catch {
            #expect(error.description == c.error)
        }
    }

    @Test func wholeFileKeepsOrderAndLineNumbers() throws {
        let text = """
            # swget configuration
            tries = 3

            header = X-One: 1
            header = X-Two: 2\r
            check_certificate = off
            robots = off
            """
        let tokens = try ConfigFile.arguments(parsing: text, source: "/home/u/.swgetrc", options: Self.options)
        #expect(tokens == ["--tries=3", "--header=X-One: 1", "--header=X-Two: 2", "--no-check-certificate"])
        #expect(throws: ConfigFile.ParseError(source: "/home/u/.swgetrc", line: 3, reason: "unknown option 'oops'")) {
            try ConfigFile.arguments(parsing: "tries = 1\r\n\r\noops = 2\r\n", source: "/home/u/.swgetrc", options: Self.options)
        }
    }

    @Test func executeParsesOneLine() throws {
        #expect(try ConfigFile.arguments(executing: "robots=off", options: Self.options) == [])
        #expect(try ConfigFile.arguments(executing: "use_proxy=off", options: Self.options) == ["--no-proxy"])
        #expect(try ConfigFile.arguments(executing: "tries = 2", options: Self.options) == ["--tries=2"])
        #expect(try ConfigFile.arguments(executing: "# nothing", options: Self.options) == [])
        #expect(throws: ConfigFile.ParseError(source: "-e 'nope=1'", line: nil, reason: "unknown option 'nope'")) {
            try ConfigFile.arguments(executing: "nope=1", options: Self.options)
        }
        #expect(throws: ConfigFile.ParseError(source: "-e 'tries=1?quiet'", line: nil, reason: "a command is one line")) {
            try ConfigFile.arguments(executing: "tries=1\nquiet", options: Self.options)
        }
        #expect(ConfigFile.ParseError(source: "-e 'x'", line: nil, reason: "r").description == "-e 'x': r")
    }

    @Test func oversizedInputIsRefused() {
        let huge = String(repeating: "# padding\n", count: ConfigFile.maxBytes / 10 + 1)
        #expect(throws: ConfigFile.ParseError(source: "rc", line: nil, reason: "larger than 1024 KiB")) {
            try ConfigFile.arguments(parsing: huge, source: "rc", options: Self.options)
        }
        let longLine = "header = " + String(repeating: "x", count: ConfigFile.maxLineBytes)
        #expect(throws: ConfigFile.ParseError(source: "rc", line: 1, reason: "line longer than 65536 bytes")) {
            try ConfigFile.arguments(parsing: longLine, source: "rc", options: Self.options)
        }
        let manyLines = String(repeating: "\n", count: ConfigFile.maxBytes - 1)
        #expect(throws: Never.self) { try ConfigFile.arguments(parsing: manyLines, source: "rc", options: Self.options) }
    }

    @Test func anAliasWhoseOptionsAreMissingFallsBackToTheKey() throws {
        let table = ConfigFile.OptionTable([.init("proxy", takesValue: true), .init("http-user", takesValue: true)])
        #expect(try ConfigFile.arguments(parsing: "http_user = bob", source: "rc", options: table) == ["--http-user=bob"])
        #expect(throws: ConfigFile.ParseError(source: "rc", line: 1, reason: "unknown option 'use_proxy'")) {
            try ConfigFile.arguments(parsing: "use_proxy = off", source: "rc", options: table)
        }
        #expect(throws: ConfigFile.ParseError(source: "rc", line: 1, reason: "unknown option 'https_proxy'")) {
            try ConfigFile.arguments(parsing: "https_proxy = http://p:3128", source: "rc", options: table)
        }
    }

    @Test func exactNamesWinOverLooseMatches() throws {
        let table = ConfigFile.OptionTable([.init("foo-bar", takesValue: true), .init("foobar", takesValue: false)])
        #expect(try ConfigFile.arguments(parsing: "foobar = on", source: "rc", options: table) == ["--foobar"])
        #expect(try ConfigFile.arguments(parsing: "foo_bar = 1", source: "rc", options: table) == ["--foo-bar=1"])
        #expect(try ConfigFile.arguments(parsing: "FOO-BAR = 2", source: "rc", options: table) == ["--foo-bar=2"])
    }

    @Test func noProxyIsAHostListUnlessItIsABoolean() throws {
        // wget's `no_proxy` lists hosts; `--no-proxy` (wget) and `--noproxy HOSTS` (curl) differ
        // only by a dash.
        let table = ConfigFile.OptionTable([.init("noproxy", takesValue: true), .init("no-proxy", takesValue: false)])
        #expect(try ConfigFile.arguments(parsing: "no_proxy = localhost,.lan", source: "rc", options: table) == ["--noproxy=localhost,.lan"])
        #expect(try ConfigFile.arguments(parsing: "no-proxy = on", source: "rc", options: table) == ["--no-proxy"])
        #expect(try ConfigFile.arguments(parsing: "no-proxy", source: "rc", options: table) == ["--no-proxy"])
        #expect(try ConfigFile.arguments(parsing: "noproxy = example.com", source: "rc", options: table) == ["--noproxy=example.com"])
        #expect(try ConfigFile.arguments(executing: "use_proxy = off", options: table) == ["--no-proxy"])
    }

    struct PathCase: CustomTestStringConvertible, Sendable {
        let environment: [String: String]
        let paths: [String]
        var testDescription: String { environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
    }

    @Test(arguments: [
        PathCase(environment: ["HOME": "/home/u"], paths: ["/home/u/.config/swget/config", "/home/u/.swgetrc"]),
        PathCase(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/x"], paths: ["/x/swget/config", "/home/u/.swgetrc"]),
        PathCase(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "rel"], paths: ["/home/u/.config/swget/config", "/home/u/.swgetrc"]),
        PathCase(environment: ["XDG_CONFIG_HOME": "/x"], paths: ["/x/swget/config"]),
        PathCase(environment: ["HOME": ""], paths: []),
        PathCase(environment: ["HOME": "relative"], paths: []),
        PathCase(environment: [:], paths: []),
    ])
    func defaultPaths(_ c: PathCase) {
        #expect(ConfigFile.defaultPaths(environment: c.environment) == c.paths)
    }
}

@Suite("Configuration on the command line (--config, --no-config, -e)")
struct ConfigCommandLineTests {
    static let options = ConfigFile.OptionTable([
        .init("header", takesValue: true, shortName: "H"),
        .init("output-document", takesValue: true, shortName: "O"),
        .init("quiet", takesValue: false, shortName: "q"),
        .init("config", takesValue: true),
        .init("execute", takesValue: true, shortName: "e"),
    ])

    struct Case: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let source: ConfigFile.Invocation.Source
        let commands: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(arguments: [
        Case(arguments: ["http://h/"], source: .standard, commands: []),
        Case(arguments: ["-e", "robots=off", "http://h/"], source: .standard, commands: ["robots=off"]),
        Case(arguments: ["-erobots=off", "--execute", "tries=2", "--execute=quiet"], source: .standard,
             commands: ["robots=off", "tries=2", "quiet"]),
        Case(arguments: ["--config", "/etc/x", "u"], source: .file("/etc/x"), commands: []),
        Case(arguments: ["--config=/etc/x", "--no-config"], source: .none, commands: []),
        Case(arguments: ["--no-config", "--config=a=b"], source: .file("a=b"), commands: []),
        Case(arguments: ["--header", "-e", "-H", "--no-config", "-O", "--config", "-q", "-e", "x"], source: .standard, commands: ["x"]),
        Case(arguments: ["--header=-e", "-Hx", "-e", "a"], source: .standard, commands: ["a"]),
        Case(arguments: ["--", "-e", "x", "--no-config"], source: .standard, commands: []),
        Case(arguments: ["-e"], source: .standard, commands: []),
        Case(arguments: ["--config"], source: .standard, commands: []),
        Case(arguments: ["-", "--unknown", "-e", "y"], source: .standard, commands: ["y"]),
    ])
    func scan(_ c: Case) {
        let result = ConfigFile.invocation(of: c.arguments, options: Self.options)
        #expect(result.source == c.source)
        #expect(result.commands == c.commands)
    }
}
