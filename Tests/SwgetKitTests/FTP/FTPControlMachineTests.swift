import Testing
@testable import SwgetKit
import SwgetTestSupport

/// The control dialogue as tables of (event → action), with no socket: each script drives one
/// machine from its first event and checks every action. Failures compare by kind only.
enum FTPScript {
    typealias Machine = FTPControlMachine
    typealias Event = FTPControlMachine.Event
    typealias Action = FTPControlMachine.Action
    typealias Step = (event: Event, action: Action)

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        var configuration = Machine.Configuration()
        let steps: [Step]
        var testDescription: String { name }
    }

    static func reply(_ code: Int, _ text: String = "") -> Event { .reply(FTPReply(code, text)) }

    static func reply(_ code: Int, lines: [String]) -> Event { .reply(FTPReply(code: code, lines: lines)) }

    static func fail(_ kind: FTPFailure.Kind) -> Action { .fail(FTPFailure(kind, "")) }

    static func jobFailed(_ kind: FTPFailure.Kind) -> Action { .jobFailed(FTPFailure(kind, "")) }

    /// A path from a literal of the tests.
    static func path(_ urlPath: String) -> FTPPath {
        // Test literals only; a bad one is a defect of the test.
        try! FTPPath(urlPath: urlPath)
    }

    static func configuration(_ change: (inout Machine.Configuration) -> Void) -> Machine.Configuration {
        var configuration = Machine.Configuration()
        change(&configuration)
        return configuration
    }

    /// Failures carry messages and replies for people; tables compare their kinds.
    static func normalized(_ action: Action) -> Action {
        switch action {
        case .fail(let failure): .fail(FTPFailure(failure.kind, ""))
        case .jobFailed(let failure): .jobFailed(FTPFailure(failure.kind, ""))
        default: action
        }
    }

    static func run(_ script: Case, sourceLocation: SourceLocation = #_sourceLocation) {
        var machine = Machine(configuration: script.configuration)
        for (index, step) in script.steps.enumerated() {
            let action = normalized(machine.handle(step.event))
            #expect(action == step.action, "step \(index + 1): \(step.event)", sourceLocation: sourceLocation)
            if action != step.action { return }
        }
    }

    /// Anonymous login with the defaults, up to `ready`.
    static let login: [Step] = [
        (reply(220, "FTP server ready"), .send(.user("anonymous"))),
        (reply(331, "Please specify the password."), .send(.pass("-wget@"))),
        (reply(230, "Login successful."), .send(.typeImage)),
        (reply(200, "Switching to Binary mode."), .ready),
    ]
}

@Suite("FTP control machine: login")
struct FTPControlMachineLoginTests {
    typealias S = FTPScript

    static let tlsRequired = S.configuration { $0.security = .explicit(required: true) }
    static let tlsOptional = S.configuration { $0.security = .explicit(required: false) }

    static let cases: [S.Case] = [
        S.Case(name: "anonymous with wget's password", steps: S.login),
        S.Case(name: "230 right after USER", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
            (S.reply(200), .ready),
        ]),
        S.Case(name: "user and password", configuration: S.configuration { $0.user = "alice"; $0.password = "s3cret" }, steps: [
            (S.reply(220), .send(.user("alice"))),
            (S.reply(331), .send(.pass("s3cret"))),
            (S.reply(230), .send(.typeImage)),
        ]),
        S.Case(name: "120 then 220", steps: [
            (S.reply(120, "Service ready in 1 minute"), .wait),
            (S.reply(220), .send(.user("anonymous"))),
        ]),
        S.Case(name: "multi-line greeting", steps: [
            (S.reply(220, lines: ["Welcome", "to the archive", "ready"]), .send(.user("anonymous"))),
        ]),
        S.Case(name: "421 greeting", steps: [(S.reply(421, "Too many users"), S.fail(.network))]),
        S.Case(name: "530 greeting", steps: [(S.reply(530, "Not allowed"), S.fail(.serverError))]),
        S.Case(name: "unexpected greeting", steps: [(S.reply(200, "hello"), S.fail(.protocolViolation))]),
        S.Case(name: "endless 120s", steps: Array(repeating: (S.reply(120), .wait), count: 8) + [(S.reply(120), S.fail(.protocolViolation))]),
        S.Case(name: "530 to PASS", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(331), .send(.pass("-wget@"))),
            (S.reply(530, "Login incorrect."), S.fail(.authentication)),
        ]),
        S.Case(name: "530 to USER", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(530, "This FTP server does not allow anonymous logins."), S.fail(.authentication)),
        ]),
        S.Case(name: "4xx to PASS", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(331), .send(.pass("-wget@"))),
            (S.reply(450, "try later"), S.fail(.network)),
        ]),
        S.Case(name: "332 asks for an account", configuration: S.configuration { $0.account = "acct1" }, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(331), .send(.pass("-wget@"))),
            (S.reply(332, "Need account"), .send(.acct("acct1"))),
            (S.reply(230), .send(.typeImage)),
        ]),
        S.Case(name: "332 without an account", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(332, "Need account"), S.fail(.authentication)),
        ]),
        S.Case(name: "ACCT refused", configuration: S.configuration { $0.account = "acct1" }, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(332), .send(.acct("acct1"))),
            (S.reply(530), S.fail(.authentication)),
        ]),
        S.Case(name: "a password with a line break", configuration: S.configuration { $0.password = "x\r\nDELE f" }, steps: [
            (S.reply(220), S.fail(.unsupported)),
            (S.reply(331), .wait),
        ]),
        S.Case(name: "421 during login", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(421, "Timeout"), S.fail(.network)),
        ]),
        S.Case(name: "TYPE I refused", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
            (S.reply(504, "Command not implemented for that parameter"), S.fail(.serverError)),
        ]),
        S.Case(name: "explicit FTPS", configuration: tlsRequired, steps: [
            (S.reply(220), .send(.auth("TLS"))),
            (S.reply(234, "Proceed with negotiation."), .startControlTLS),
            (.controlTLSEstablished, .send(.user("anonymous"))),
            (S.reply(331), .send(.pass("-wget@"))),
            (S.reply(230), .send(.pbsz)),
            (S.reply(200, "PBSZ=0"), .send(.protPrivate)),
            (S.reply(200, "Protection level set to P"), .send(.typeImage)),
            (S.reply(200), .ready),
            (.startJob(.list(S.path("/"))), .send(.epsv)),
            (S.reply(229, "(|||40000|)"), .openDataConnection(port: 40000, announcedHost: nil, tls: true)),
        ]),
        S.Case(name: "a reply during the TLS handshake", configuration: tlsRequired, steps: [
            (S.reply(220), .send(.auth("TLS"))),
            (S.reply(234), .startControlTLS),
            (S.reply(200), S.fail(.protocolViolation)),
        ]),
        S.Case(name: "AUTH TLS refused, AUTH SSL refused, TLS required", configuration: tlsRequired, steps: [
            (S.reply(220), .send(.auth("TLS"))),
            (S.reply(500, "Unknown command"), .send(.auth("SSL"))),
            (S.reply(502), S.fail(.tls)),
        ]),
        S.Case(name: "AUTH SSL accepted", configuration: tlsRequired, steps: [
            (S.reply(220), .send(.auth("TLS"))),
            (S.reply(504), .send(.auth("SSL"))),
            (S.reply(334), .startControlTLS),
        ]),
        S.Case(name: "TLS refused but optional: clear text, no PBSZ", configuration: tlsOptional, steps: [
            (S.reply(220), .send(.auth("TLS"))),
            (S.reply(530, "Please login with USER and PASS."), .send(.auth("SSL"))),
            (S.reply(530), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
            (S.reply(200), .ready),
            (.startJob(.list(S.path("/"))), .send(.epsv)),
            (S.reply(229, "(|||40000|)"), .openDataConnection(port: 40000, announcedHost: nil, tls: false)),
        ]),
        S.Case(name: "implicit FTPS", configuration: S.configuration { $0.security = .implicit }, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.pbsz)),
            (S.reply(200), .send(.protPrivate)),
            (S.reply(536, "PROT P not supported"), S.fail(.tls)),
        ]),
        S.Case(name: "PBSZ refused, TLS optional", configuration: tlsOptional, steps: [
            (S.reply(220), .send(.auth("TLS"))),
            (S.reply(234), .startControlTLS),
            (.controlTLSEstablished, .send(.user("anonymous"))),
            (S.reply(230), .send(.pbsz)),
            (S.reply(502), .send(.typeImage)),
            (S.reply(200), .ready),
        ]),
        S.Case(name: "control-only TLS", configuration: S.configuration { $0.security = .implicit; $0.protectsData = false }, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
        ]),
        S.Case(name: "CWD mode asks PWD", configuration: S.configuration { $0.pathMode = .changeDirectories }, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
            (S.reply(200), .send(.pwd)),
            (S.reply(257, "\"/home/ftp\" is the current directory"), .ready),
        ]),
        S.Case(name: "PWD failing is tolerated", configuration: S.configuration { $0.pathMode = .changeDirectories }, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
            (S.reply(200), .send(.pwd)),
            (S.reply(550), .ready),
        ]),
        S.Case(name: "quit before login", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (.quit, .send(.quit)),
            (S.reply(331), .wait),
            (S.reply(221, "Goodbye."), .close),
            (S.reply(200), .wait),
        ]),
        S.Case(name: "the server closes during login", steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (.controlConnectionClosed, S.fail(.network)),
            (.controlConnectionClosed, .wait),
        ]),
        S.Case(name: "control timeout", steps: [(.timedOut(.control), S.fail(.network)), (S.reply(220), .wait)]),
        S.Case(name: "a job before login", steps: [(.startJob(.retrieve(S.path("/f"))), S.fail(.unsupported))]),
    ]

    @Test(arguments: cases)
    func script(_ c: S.Case) { S.run(c) }

    @Test func idleAndClosedStates() {
        var machine = FTPControlMachine()
        #expect(!machine.isIdle)
        for step in FTPScript.login { _ = machine.handle(step.event) }
        #expect(machine.isIdle)
        _ = machine.handle(.quit)
        #expect(!machine.isIdle && !machine.isClosed)
        #expect(machine.handle(.reply(FTPReply(221))) == .close)
        #expect(machine.isClosed)
    }

    /// Whatever a hostile server sends, and in whatever order events come, the machine never
    /// traps, and once it has failed or closed it only ever waits.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomEventsNeverTrap(_ seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let codes = [120, 125, 150, 200, 202, 211, 213, 220, 221, 226, 227, 229, 230, 234, 250, 257, 331, 332, 350, 421, 425, 426,
                     450, 451, 500, 501, 502, 530, 550, 553]
        let texts = ["", "(|||5000|)", "(127,0,0,1,4,5)", "1234", "20200101120000", "\"/x\"", "(|||0|)", "garbage"]
        for round in 0..<50 {
            var configuration = FTPControlMachine.Configuration()
            configuration.dataMode = random.next() % 2 == 0 ? .passive : .active
            configuration.pathMode = random.next() % 2 == 0 ? .fullPath : .changeDirectories
            configuration.security = [.none, .explicit(required: false), .implicit][Int(random.next() % 3)]
            var machine = FTPControlMachine(configuration: configuration)
            var closed = false
            for _ in 0..<200 {
                let event: FTPControlMachine.Event
                switch random.next() % 12 {
                case 0: event = .startJob([.retrieve(FTPScript.path("/a/b")), .list(FTPScript.path("/a/")), .probe(FTPScript.path("/a/b"))][Int(random.next() % 3)])
                case 1: event = .beginTransfer(offset: Int64(random.next() % 3) * 500 - 1)
                case 2: event = .dataConnectionOpened
                case 3: event = .dataConnectionClosed(receivedBytes: Int64(random.next() % 2000))
                case 4: event = .dataListenerReady(host: random.next() % 2 == 0 ? "127.0.0.1" : "::1", port: Int(random.next() % 70000))
                case 5: event = .controlTLSEstablished
                case 6: event = .skipTransfer
                default:
                    event = .reply(FTPReply(codes[Int(random.next() % UInt64(codes.count))], texts[Int(random.next() % UInt64(texts.count))]))
                }
                let action = machine.handle(event)
                if closed { #expect(action == .wait, "round \(round)") }
                switch action {
                case .fail, .close: closed = true
                default: break
                }
                #expect(closed == machine.isClosed)
            }
        }
    }
}
