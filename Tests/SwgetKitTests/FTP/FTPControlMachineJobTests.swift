import Testing
@testable import SwgetKit

@Suite("FTP control machine: retrieval")
struct FTPControlMachineRetrieveTests {
    typealias S = FTPScript
    typealias Info = FTPControlMachine.FileInfo

    static let file = S.path("/pub/file.bin")
    static let other = S.path("/pub/other.bin")
    static let modified = FTPTimestamp(timeVal: "20200101120000")
    static let info = Info(size: 1000, modified: modified)
    static let epsv = S.reply(229, "Entering Extended Passive Mode (|||5000|)")
    static let open = FTPControlMachine.Action.openDataConnection(port: 5000, announcedHost: nil, tls: false)

    /// SIZE and MDTM answered, up to the metadata.
    static let metadata: [S.Step] = [
        (.startJob(.retrieve(file)), .send(.size("pub/file.bin"))),
        (S.reply(213, "1000"), .send(.mdtm("pub/file.bin"))),
        (S.reply(213, "20200101120000"), .deliverMetadata(info)),
    ]

    /// A whole passive transfer from byte 0.
    static let fresh: [S.Step] = metadata + [
        (.beginTransfer(offset: 0), .send(.epsv)),
        (epsv, open),
        (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
        (S.reply(150, "Opening BINARY mode data connection for pub/file.bin (1000 bytes)."), .wait),
        (.dataConnectionClosed(receivedBytes: 1000), .wait),
        (S.reply(226, "Transfer complete."), .jobFinished(.retrieved(offset: 0, bytes: 1000))),
    ]

    static let active = S.configuration { $0.dataMode = .active }
    static let cwd = S.configuration { $0.pathMode = .changeDirectories }
    static let cwdLogin: [S.Step] = [
        (S.reply(220), .send(.user("anonymous"))),
        (S.reply(230), .send(.typeImage)),
        (S.reply(200), .send(.pwd)),
        (S.reply(257, "\"/home/ftp\" is the current directory"), .ready),
    ]

    static let cases: [S.Case] = [
        S.Case(name: "fresh download, then the connection is reused", steps: S.login + fresh + [
            (.startJob(.retrieve(other)), .send(.size("pub/other.bin"))),
        ]),
        S.Case(name: "226 before the data connection's end", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(125, "Data connection already open"), .wait),
            (S.reply(226), .wait),
            (.dataConnectionClosed(receivedBytes: 1000), .jobFinished(.retrieved(offset: 0, bytes: 1000))),
        ]),
        S.Case(name: "resume with REST", steps: S.login + metadata + [
            (.beginTransfer(offset: 600), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .send(.rest(600))),
            (S.reply(350, "Restart position accepted (600)."), .transfer(.retr("pub/file.bin"), offset: 600)),
            (S.reply(150), .wait),
            (S.reply(226), .wait),
            (.dataConnectionClosed(receivedBytes: 400), .jobFinished(.retrieved(offset: 600, bytes: 400))),
        ]),
        S.Case(name: "REST unknown: the same RETR from 0, and never REST again", steps: S.login + metadata + [
            (.beginTransfer(offset: 600), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .send(.rest(600))),
            (S.reply(502, "REST not implemented."), .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (.dataConnectionClosed(receivedBytes: 1000), .wait),
            (S.reply(226), .jobFinished(.retrieved(offset: 0, bytes: 1000))),
        ] + metadata + [
            (.beginTransfer(offset: 600), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
        ]),
        S.Case(name: "REST offset refused once (554): from 0, REST kept", steps: S.login + metadata + [
            (.beginTransfer(offset: 600), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .send(.rest(600))),
            (S.reply(554, "Invalid REST parameter"), .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (.dataConnectionClosed(receivedBytes: 1000), .wait),
            (S.reply(226), .jobFinished(.retrieved(offset: 0, bytes: 1000))),
        ] + metadata + [
            (.beginTransfer(offset: 600), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .send(.rest(600))),
        ]),
        S.Case(name: "EPSV unknown: PASV, the announced address ignored, remembered", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (S.reply(500, "Unknown command."), .send(.pasv)),
            (S.reply(227, "Entering Passive Mode (10,255,255,1,19,136)."),
             .openDataConnection(port: 5000, announcedHost: "10.255.255.1", tls: false)),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (.dataConnectionClosed(receivedBytes: 1000), .wait),
            (S.reply(226), .jobFinished(.retrieved(offset: 0, bytes: 1000))),
        ] + metadata + [
            (.beginTransfer(offset: 0), .send(.pasv)),
        ]),
        S.Case(name: "EPSV off by configuration", configuration: S.configuration { $0.usesExtendedModes = false },
               steps: S.login + metadata + [(.beginTransfer(offset: 0), .send(.pasv))]),
        S.Case(name: "SIZE and MDTM unknown: metadata empty, not asked again", steps: S.login + [
            (.startJob(.retrieve(file)), .send(.size("pub/file.bin"))),
            (S.reply(500, "Unknown command."), .send(.mdtm("pub/file.bin"))),
            (S.reply(502), .deliverMetadata(Info())),
            (.skipTransfer, .jobFinished(.skipped)),
            (.startJob(.retrieve(other)), .deliverMetadata(Info())),
        ]),
        S.Case(name: "SIZE garbage and MDTM Y2K bug: unknown", steps: S.login + [
            (.startJob(.retrieve(file)), .send(.size("pub/file.bin"))),
            (S.reply(213, "-12"), .send(.mdtm("pub/file.bin"))),
            (S.reply(213, "191000101120000"), .deliverMetadata(Info())),
        ]),
        S.Case(name: "missing file: SIZE and MDTM 550, RETR 550, connection still usable", steps: S.login + [
            (.startJob(.retrieve(file)), .send(.size("pub/file.bin"))),
            (S.reply(550, "Could not get file size."), .send(.mdtm("pub/file.bin"))),
            (S.reply(550), .deliverMetadata(Info())),
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(550, "Failed to open file."), S.jobFailed(.notFound)),
            (.startJob(.retrieve(other)), .send(.size("pub/other.bin"))),
        ]),
        S.Case(name: "data connection dropped: short, then 426", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (.dataConnectionClosed(receivedBytes: 400), .wait),
            (S.reply(426, "Connection closed; transfer aborted."), S.jobFailed(.transient)),
            (.startJob(.retrieve(file)), .send(.size("pub/file.bin"))),
        ]),
        S.Case(name: "data connection dropped but 226: short of SIZE", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (S.reply(226), .wait),
            (.dataConnectionClosed(receivedBytes: 999), S.jobFailed(.transient)),
        ]),
        S.Case(name: "425 and 451 are transient", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(425, "Can't open data connection."), S.jobFailed(.transient)),
        ] + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (S.reply(451, "Local error"), S.jobFailed(.transient)),
        ]),
        S.Case(name: "553 is a server error", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(553, "Not allowed"), S.jobFailed(.serverError)),
        ]),
        S.Case(name: "530 on RETR is authentication", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(530, "Not logged in"), S.jobFailed(.authentication)),
        ]),
        S.Case(name: "already complete: skip", steps: S.login + metadata + [(.skipTransfer, .jobFinished(.skipped))]),
        S.Case(name: "EPSV port out of range", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (S.reply(229, "(|||70000|)"), S.fail(.protocolViolation)),
        ]),
        S.Case(name: "PASV bad tuple", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (S.reply(502), .send(.pasv)),
            (S.reply(227, "Entering Passive Mode (300,1,2,3,4,5)"), S.fail(.protocolViolation)),
        ]),
        S.Case(name: "PASV refused too", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (S.reply(500), .send(.pasv)),
            (S.reply(500), S.jobFailed(.serverError)),
        ]),
        S.Case(name: "EPSV busy (4xx)", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (S.reply(425, "Cannot open passive connection"), S.jobFailed(.transient)),
        ]),
        S.Case(name: "421 in the middle", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (S.reply(421, "Timeout."), S.fail(.network)),
            (.dataConnectionClosed(receivedBytes: 5), .wait),
        ]),
        S.Case(name: "a stalled data connection times out", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (.timedOut(.data), S.fail(.network)),
        ]),
        S.Case(name: "the data connection cannot be made", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionFailed("connection refused"), S.fail(.network)),
        ]),
        S.Case(name: "the server leaves during a transfer", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (.controlConnectionClosed, S.fail(.network)),
        ]),
        S.Case(name: "150 storm", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
        ] + Array(repeating: (S.reply(150), .wait), count: 8) + [(S.reply(150), S.fail(.protocolViolation))]),
        S.Case(name: "350 to RETR", steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(350), S.fail(.protocolViolation)),
        ]),
        S.Case(name: "a reply while waiting for the decision", steps: S.login + metadata + [(S.reply(200), S.fail(.protocolViolation))]),
        S.Case(name: "a reply while idle", steps: S.login + [(S.reply(226), S.fail(.protocolViolation))]),
        S.Case(name: "a job while busy", steps: S.login + metadata + [(.startJob(.retrieve(other)), S.fail(.unsupported))]),
        S.Case(name: "a decision nobody asked for", steps: S.login + [(.beginTransfer(offset: 0), S.fail(.unsupported))]),
        S.Case(name: "QUIT after a job", steps: S.login + fresh + [
            (.quit, .send(.quit)),
            (S.reply(221, "Goodbye."), .close),
        ]),
        S.Case(name: "QUIT answered by closing", steps: S.login + [(.quit, .send(.quit)), (.controlConnectionClosed, .close)]),
        S.Case(name: "active mode with EPRT", configuration: active, steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .listenForDataConnection(tls: false)),
            (.dataListenerReady(host: "127.0.0.1", port: 40000), .send(.eprt("|1|127.0.0.1|40000|"))),
            (S.reply(200, "EPRT command successful."), .transfer(.retr("pub/file.bin"), offset: 0)),
            (S.reply(150), .wait),
            (.dataConnectionOpened, .wait),
            (.dataConnectionClosed(receivedBytes: 1000), .wait),
            (S.reply(226), .jobFinished(.retrieved(offset: 0, bytes: 1000))),
        ]),
        S.Case(name: "active mode: EPRT unknown, PORT, remembered; REST", configuration: active, steps: S.login + metadata + [
            (.beginTransfer(offset: 10), .listenForDataConnection(tls: false)),
            (.dataListenerReady(host: "127.0.0.1", port: 40000), .send(.eprt("|1|127.0.0.1|40000|"))),
            (S.reply(500), .send(.port("127,0,0,1,156,64"))),
            (S.reply(200, "PORT command successful."), .send(.rest(10))),
            (S.reply(350), .transfer(.retr("pub/file.bin"), offset: 10)),
            (S.reply(150), .wait),
            (.dataConnectionOpened, .wait),
            (S.reply(226), .wait),
            (.dataConnectionClosed(receivedBytes: 990), .jobFinished(.retrieved(offset: 10, bytes: 990))),
        ] + metadata + [
            (.beginTransfer(offset: 0), .listenForDataConnection(tls: false)),
            (.dataListenerReady(host: "127.0.0.1", port: 40001), .send(.port("127,0,0,1,156,65"))),
        ]),
        S.Case(name: "active mode over IPv6 without EPRT", configuration: active, steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .listenForDataConnection(tls: false)),
            (.dataListenerReady(host: "::1", port: 40000), .send(.eprt("|2|::1|40000|"))),
            (S.reply(502), S.jobFailed(.unsupported)),
        ]),
        S.Case(name: "PORT refused", configuration: active, steps: S.login + metadata + [
            (.beginTransfer(offset: 0), .listenForDataConnection(tls: false)),
            (.dataListenerReady(host: "127.0.0.1", port: 40000), .send(.eprt("|1|127.0.0.1|40000|"))),
            (S.reply(522, "Network protocol not supported"), .send(.port("127,0,0,1,156,64"))),
            (S.reply(500, "Illegal PORT command."), S.jobFailed(.serverError)),
        ]),
        S.Case(name: "absolute path (%2F)", steps: S.login + [
            (.startJob(.retrieve(S.path("/%2Fetc/motd"))), .send(.size("/etc/motd"))),
        ]),
        S.Case(name: "CWD per directory, and back through the login directory", configuration: cwd, steps: cwdLogin + [
            (.startJob(.retrieve(S.path("/a/b/file"))), .send(.cwd("a"))),
            (S.reply(250, "Directory successfully changed."), .send(.cwd("b"))),
            (S.reply(250), .send(.size("file"))),
            (S.reply(213, "5"), .send(.mdtm("file"))),
            (S.reply(213, "20200101120000"), .deliverMetadata(Info(size: 5, modified: modified))),
            (.skipTransfer, .jobFinished(.skipped)),
            (.startJob(.retrieve(S.path("/a/b/next"))), .send(.size("next"))),
            (S.reply(213, "5"), .send(.mdtm("next"))),
            (S.reply(213, "20200101120000"), .deliverMetadata(Info(size: 5, modified: modified))),
            (.beginTransfer(offset: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.retr("next"), offset: 0)),
            (S.reply(150), .wait),
            (.dataConnectionClosed(receivedBytes: 5), .wait),
            (S.reply(226), .jobFinished(.retrieved(offset: 0, bytes: 5))),
            (.startJob(.retrieve(S.path("/a/c/f"))), .send(.cwd("/home/ftp"))),
            (S.reply(250), .send(.cwd("a"))),
            (S.reply(250), .send(.cwd("c"))),
            (S.reply(550, "Failed to change directory."), S.jobFailed(.notFound)),
            (.startJob(.retrieve(S.path("/f"))), .send(.cwd("/home/ftp"))),
            (S.reply(250), .send(.size("f"))),
        ]),
        S.Case(name: "CWD mode without PWD cannot go back", configuration: cwd, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
            (S.reply(200), .send(.pwd)),
            (S.reply(500), .ready),
            (.startJob(.retrieve(S.path("/a/f"))), .send(.cwd("a"))),
            (S.reply(250), .send(.size("f"))),
            (S.reply(500), .send(.mdtm("f"))),
            (S.reply(500), .deliverMetadata(Info())),
            (.skipTransfer, .jobFinished(.skipped)),
            (.startJob(.retrieve(S.path("/b/f"))), S.jobFailed(.unsupported)),
            (.startJob(.retrieve(S.path("/a/g"))), .deliverMetadata(Info())),
        ]),
        S.Case(name: "CWD mode, absolute path", configuration: cwd, steps: cwdLogin + [
            (.startJob(.retrieve(S.path("//etc/motd"))), .send(.cwd("/"))),
            (S.reply(250), .send(.cwd("etc"))),
            (S.reply(250), .send(.size("motd"))),
        ]),
    ]

    @Test(arguments: cases)
    func script(_ c: S.Case) { S.run(c) }
}

@Suite("FTP control machine: listings and probes")
struct FTPControlMachineListingTests {
    typealias S = FTPScript
    static let epsv = S.reply(229, "(|||5000|)")
    static let open = FTPControlMachine.Action.openDataConnection(port: 5000, announcedHost: nil, tls: false)
    static let pub = S.path("/pub/")
    static let entry = S.reply(250, lines: ["Listing pub/file", " type=file;size=5;modify=20200101120000; /pub/file", "End"])

    static let cases: [S.Case] = [
        S.Case(name: "MLSD", steps: S.login + [
            (.startJob(.list(pub)), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.mlsd("pub"), offset: 0)),
            (S.reply(150, "Here comes the directory listing."), .wait),
            (.dataConnectionClosed(receivedBytes: 300), .wait),
            (S.reply(226, "Directory send OK."), .jobFinished(.listed(.mlsd))),
        ]),
        S.Case(name: "a listing past swget's bound is a protocol failure, never retried", steps: S.login + [
            (.startJob(.list(pub)), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.mlsd("pub"), offset: 0)),
            (S.reply(150, "Here comes the directory listing."), .wait),
            (.listingTooLarge(limit: 32 << 20), S.fail(.protocolViolation)),
        ]),
        S.Case(name: "MLSD unknown: a fresh data connection for LIST, remembered", steps: S.login + [
            (.startJob(.list(pub)), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.mlsd("pub"), offset: 0)),
            (S.reply(500, "Unknown command."), .closeDataConnection),
            (.dataConnectionClosed(receivedBytes: 0), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.list("pub"), offset: 0)),
            (S.reply(150), .wait),
            (S.reply(226), .wait),
            (.dataConnectionClosed(receivedBytes: 100), .jobFinished(.listed(.list))),
            (.startJob(.list(S.path("/"))), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.list(nil), offset: 0)),
        ]),
        S.Case(name: "LIST only by configuration", configuration: S.configuration { $0.usesMachineListings = false }, steps: S.login + [
            (.startJob(.list(pub)), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.list("pub"), offset: 0)),
        ]),
        S.Case(name: "listing a missing directory", steps: S.login + [
            (.startJob(.list(pub)), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.mlsd("pub"), offset: 0)),
            (S.reply(550, "Failed to open directory."), S.jobFailed(.notFound)),
        ]),
        S.Case(name: "listing in CWD mode", configuration: S.configuration { $0.pathMode = .changeDirectories }, steps: [
            (S.reply(220), .send(.user("anonymous"))),
            (S.reply(230), .send(.typeImage)),
            (S.reply(200), .send(.pwd)),
            (S.reply(257, "\"/\""), .ready),
            (.startJob(.list(pub)), .send(.cwd("pub"))),
            (S.reply(250), .send(.epsv)),
            (epsv, open),
            (.dataConnectionOpened, .transfer(.mlsd(nil), offset: 0)),
        ]),
        S.Case(name: "probe with MLST", steps: S.login + [
            (.startJob(.probe(S.path("/pub/file"))), .send(.mlst("pub/file"))),
            (entry, .jobFinished(.probed(FTPControlMachine.FileInfo(size: 5, modified: FTPTimestamp(timeVal: "20200101120000"), kind: .file)))),
        ]),
        S.Case(name: "probe a directory with MLST", steps: S.login + [
            (.startJob(.probe(pub)), .send(.mlst("pub"))),
            (S.reply(250, lines: ["Listing pub", " type=dir;perm=el; /pub", "End"]),
             .jobFinished(.probed(FTPControlMachine.FileInfo(kind: .directory)))),
        ]),
        S.Case(name: "probe: MLST without facts", steps: S.login + [
            (.startJob(.probe(S.path("/pub/file"))), .send(.mlst("pub/file"))),
            (S.reply(250, "ok"), .jobFinished(.probed(FTPControlMachine.FileInfo()))),
        ]),
        S.Case(name: "probe: MLST unknown, SIZE, remembered", steps: S.login + [
            (.startJob(.probe(S.path("/pub/file"))), .send(.mlst("pub/file"))),
            (S.reply(500, "Unknown command."), .send(.size("pub/file"))),
            (S.reply(213, "5"), .jobFinished(.probed(FTPControlMachine.FileInfo(size: 5, kind: .file)))),
            (.startJob(.probe(S.path("/pub/missing"))), .send(.size("pub/missing"))),
            (S.reply(550, "Could not get file size."), S.jobFailed(.notFound)),
        ]),
        S.Case(name: "probe: neither MLST nor SIZE", steps: S.login + [
            (.startJob(.probe(S.path("/pub/file"))), .send(.mlst("pub/file"))),
            (S.reply(502), .send(.size("pub/file"))),
            (S.reply(502), .jobFinished(.probed(nil))),
            (.startJob(.probe(S.path("/pub/file"))), .jobFinished(.probed(nil))),
        ]),
        S.Case(name: "probe a directory without MLST", steps: S.login + [
            (.startJob(.probe(pub)), .send(.mlst("pub"))),
            (S.reply(500), .jobFinished(.probed(nil))),
        ]),
        S.Case(name: "probe: missing", steps: S.login + [
            (.startJob(.probe(S.path("/pub/file"))), .send(.mlst("pub/file"))),
            (S.reply(550, "No such file"), S.jobFailed(.notFound)),
        ]),
        S.Case(name: "probe: 501 is a server error, 450 transient", steps: S.login + [
            (.startJob(.probe(S.path("/pub/file"))), .send(.mlst("pub/file"))),
            (S.reply(501), S.jobFailed(.serverError)),
            (.startJob(.probe(S.path("/pub/file"))), .send(.mlst("pub/file"))),
            (S.reply(450), S.jobFailed(.transient)),
        ]),
    ]

    @Test(arguments: cases)
    func script(_ c: S.Case) { S.run(c) }
}
