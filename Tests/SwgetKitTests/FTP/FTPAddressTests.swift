import Testing
@testable import SwgetKit

@Suite("FTP passive replies and active commands (RFC 959, RFC 2428)")
struct FTPAddressTests {
    @Test(arguments: [
        ("Entering Extended Passive Mode (|||6446|)", 6446),
        ("Extended Passive Mode OK (|||50000|).", 50000),
        ("EPSV ok (!!!1!)", 1),
        ("(|||65535|)", 65535),
        ("Entering Extended Passive Mode (|||00021|)", 21),
        ("(###2121#) trailing text", 2121),
        ("(|||80|", 80),
    ])
    func extendedPassive(_ text: String, _ port: Int) throws {
        #expect(try FTPAddress.parseExtendedPassive(text) == FTPAddress.ExtendedPassive(port: port))
    }

    @Test(arguments: [
        ("Entering Extended Passive Mode", FTPAddress.Failure.notFound),
        ("", .notFound),
        ("(|||0|)", .outOfRange),
        ("(|||65536|)", .outOfRange),
        ("(|||99999999999999999999999|)", .outOfRange),
        ("(||||)", .malformed),
        ("(|||12a|)", .malformed),
        ("(|1|127.0.0.1|2000|)", .malformed),
        ("(|||-1|)", .malformed),
        ("(111222|)", .malformed),
        ("(|||123", .malformed),
        ("(", .malformed),
        ("(   5000 )", .malformed),
        ("(\u{7F}\u{7F}\u{7F}1\u{7F})", .malformed),
        ("(|||6446!)", .malformed),
    ])
    func badExtendedPassive(_ text: String, _ failure: FTPAddress.Failure) {
        #expect(throws: failure) { try FTPAddress.parseExtendedPassive(text) }
    }

    @Test(arguments: [
        ("Entering Passive Mode (127,0,0,1,4,5).", [127, 0, 0, 1] as [UInt8], 1029),
        ("Entering Passive Mode 10,1,2,3,200,10", [10, 1, 2, 3], 51210),
        ("Entering Passive Mode =192,168,1,1,0,21", [192, 168, 1, 1], 21),
        ("Entering Passive Mode (192, 168, 1, 1, 4, 5)", [192, 168, 1, 1], 1029),
        ("Mode 2,5 then (127,0,0,1,4,5)", [127, 0, 0, 1], 1029),
        ("(0,0,0,0,255,255)", [0, 0, 0, 0], 65535),
        ("227 lines 127,000,000,001,004,005", [127, 0, 0, 1], 1029),
    ])
    func passive(_ text: String, _ host: [UInt8], _ port: Int) throws {
        let reply = try FTPAddress.parsePassive(text)
        #expect(reply.announcedHost == host)
        #expect(reply.port == port)
    }

    @Test(arguments: [
        ("Entering Passive Mode", FTPAddress.Failure.notFound),
        ("", .notFound),
        ("(1,2,3,4,5)", .notFound),
        ("(1,2,3,4,5,6,7)", .notFound),
        ("(1,2,3,4,,5,6)", .notFound),
        ("(256,0,0,1,4,5)", .outOfRange),
        ("(1,2,3,4,256,1)", .outOfRange),
        ("(1,2,3,4,0,0)", .outOfRange),
        ("(1111111,2,3,4,5,6)", .outOfRange),
        ("(99999999999999999999999,0,0,1,4,5)", .outOfRange),
    ])
    func badPassive(_ text: String, _ failure: FTPAddress.Failure) {
        #expect(throws: failure) { try FTPAddress.parsePassive(text) }
    }

    @Test func passiveHostIsOnlyInformation() throws {
        let reply = try FTPAddress.parsePassive("Entering Passive Mode (10,255,255,1,4,5)")
        #expect(reply.announcedHostString == "10.255.255.1")
    }

    @Test(arguments: [
        ("127.0.0.1", 1029, "|1|127.0.0.1|1029|" as String?),
        ("::1", 5282, "|2|::1|5282|"),
        ("1080::8:800:200C:417A", 5282, "|2|1080::8:800:200C:417A|5282|"),
        ("fe80::1%eth0", 80, "|2|fe80::1|80|"),
        ("::ffff:10.0.0.1", 80, "|2|::ffff:10.0.0.1|80|"),
        ("localhost", 80, nil),
        ("1.2.3.4", 0, nil),
        ("1.2.3.4", 65536, nil),
        ("1.2.3.256", 1, nil),
        ("1.2.3", 1, nil),
        ("1.2.3.4|", 1, nil),
        ("::1|2|", 1, nil),
        ("", 1, nil),
    ])
    func extendedPortArgument(_ host: String, _ port: Int, _ expected: String?) {
        #expect(FTPAddress.extendedPortArgument(host: host, port: port) == expected)
    }

    @Test(arguments: [
        ("127.0.0.1", 1029, "127,0,0,1,4,5" as String?),
        ("::ffff:10.0.0.1", 65535, "10,0,0,1,255,255"),
        ("192.168.001.002", 256, "192,168,1,2,1,0"),
        ("::1", 5, nil),
        ("127.0.0.1", 0, nil),
        ("127.0.0.1", 70000, nil),
        ("-1.0.0.1", 80, nil),
    ])
    func portArgument(_ host: String, _ port: Int, _ expected: String?) {
        #expect(FTPAddress.portArgument(host: host, port: port) == expected)
    }
}

@Suite("FTP commands")
struct FTPCommandTests {
    @Test(arguments: [
        (FTPCommand.user("anonymous"), "USER anonymous", "USER anonymous"),
        (.pass("secret"), "PASS secret", "PASS ****"),
        (.acct("acc"), "ACCT acc", "ACCT ****"),
        (.auth("TLS"), "AUTH TLS", "AUTH TLS"),
        (.pbsz, "PBSZ 0", "PBSZ 0"),
        (.protPrivate, "PROT P", "PROT P"),
        (.typeImage, "TYPE I", "TYPE I"),
        (.rest(1234), "REST 1234", "REST 1234"),
        (.retr("pub/a b.iso"), "RETR pub/a b.iso", "RETR pub/a b.iso"),
        (.mlsd(nil), "MLSD", "MLSD"),
        (.mlsd(""), "MLSD", "MLSD"),
        (.list("pub"), "LIST pub", "LIST pub"),
        (.eprt("|1|127.0.0.1|5000|"), "EPRT |1|127.0.0.1|5000|", "EPRT |1|127.0.0.1|5000|"),
        (.quit, "QUIT", "QUIT"),
    ])
    func lines(_ command: FTPCommand, _ line: String, _ logged: String) {
        #expect(command.line == line)
        #expect(command.wire == Array((line + "\r\n").utf8))
        #expect(command.description == logged)
    }

    @Test func safeArguments() {
        #expect(FTPCommand.isSafeArgument("a b;c"))
        #expect(!FTPCommand.isSafeArgument("a\r\nDELE x"))
        #expect(!FTPCommand.isSafeArgument("a\nb"))
        #expect(!FTPCommand.isSafeArgument("a\0b"))
    }
}
