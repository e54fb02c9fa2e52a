import Testing
@testable import SwgetKit

@Suite("FTP URL paths (RFC 1738 §3.2.2)")
struct FTPPathTests {
    @Test(arguments: [
        ("/file", [] as [String], "file", "file", "", [] as [String]),
        ("/pub/file.iso", ["pub"], "file.iso", "pub/file.iso", "pub", ["pub"]),
        ("/pub/a%20b/c%3Bd", ["pub", "a b"], "c;d", "pub/a b/c;d", "pub/a b", ["pub", "a b"]),
        ("/pub/dir/", ["pub", "dir"], "", "pub/dir/", "pub/dir", ["pub", "dir"]),
        ("/", [], "", "", "", []),
        ("", [], "", "", "", []),
        ("/%2Fetc/passwd", ["/etc"], "passwd", "/etc/passwd", "/etc", ["/etc"]),
        ("//etc/passwd", ["", "etc"], "passwd", "/etc/passwd", "/etc", ["/", "etc"]),
        ("/a//b/f", ["a", "", "b"], "f", "a//b/f", "a//b", ["a", "b"]),
        ("/pub/%C3%A9t%C3%A9.txt", ["pub"], "été.txt", "pub/été.txt", "pub", ["pub"]),
        ("/pub/*.iso", ["pub"], "*.iso", "pub/*.iso", "pub", ["pub"]),
    ])
    func parses(_ url: String, _ directories: [String], _ name: String, _ full: String, _ directory: String, _ cwd: [String]) throws {
        let path = try FTPPath(urlPath: url)
        #expect(path.directories == directories)
        #expect(path.name == name)
        #expect(path.fullPath == full)
        #expect(path.directoryPath == directory)
        #expect(path.changeDirectoryArguments == cwd)
        #expect(path.isDirectory == name.isEmpty)
        #expect(path.typeCode == nil)
    }

    @Test(arguments: [
        ("/pub/file;type=i", "file", Character?("i")),
        ("/pub/file;TYPE=A", "file", "a"),
        ("/pub/;type=d", "", "d"),
        ("/pub/file;type=x", "file;type=x", nil),
        ("/pub/file;type=", "file;type=", nil),
    ])
    func typeCodes(_ url: String, _ name: String, _ code: Character?) throws {
        let path = try FTPPath(urlPath: url)
        #expect(path.name == name)
        #expect(path.typeCode == code)
    }

    @Test(arguments: [
        ("/pub/a%0D%0ADELE%20x", FTPPath.Failure.forbiddenCharacter),
        ("/pub/a%0Ab", .forbiddenCharacter),
        ("/a%00b", .forbiddenCharacter),
        ("/pub%0d/x", .forbiddenCharacter),
        ("/a%2", .badPercentEncoding),
        ("/a%zz", .badPercentEncoding),
        ("/a%", .badPercentEncoding),
        ("/a%E9", .notUTF8),
        ("/a%C3", .notUTF8),
        ("/" + String(repeating: "a", count: 5000), .tooLong),
        (String(repeating: "/a", count: 300), .tooLong),
        ("/" + String(repeating: "%41", count: 5000), .tooLong),
    ])
    func refuses(_ url: String, _ failure: FTPPath.Failure) {
        #expect(throws: failure) { try FTPPath(urlPath: url) }
    }

    @Test func replacingName() throws {
        let path = try FTPPath(urlPath: "/pub/*.iso")
        #expect(try path.replacingName(with: "a.iso").fullPath == "pub/a.iso")
        #expect(throws: FTPPath.Failure.forbiddenCharacter) { try path.replacingName(with: "a\r\nb") }
    }

    @Test(arguments: [
        ("\"/home/ftp\" is the current directory", "/home/ftp" as String?),
        ("\"/a \"\"quoted\"\" dir\" is current", "/a \"quoted\" dir"),
        ("\"/\"", "/"),
        ("\"\"\"/x\"", "\"/x"),
        ("no quotes here", nil),
        ("\"unterminated", nil),
        ("\"\" empty", nil),
    ])
    func workingDirectory(_ text: String, _ expected: String?) {
        #expect(FTPPath.workingDirectory(fromPWDReply: text) == expected)
    }
}

@Suite("FTP time-val (RFC 3659 §2.3)")
struct FTPTimestampTests {
    @Test(arguments: [
        ("20200101120000", 1_577_880_000 as Int64, ""),
        ("19700101000000", 0, ""),
        ("20240229235959", 1_709_251_199, ""),
        ("20200101120000.123", 1_577_880_000, "123"),
        ("19691231235959", -1, ""),
        ("20161231235960", 1_483_228_800, ""),
    ])
    func parses(_ text: String, _ seconds: Int64, _ fraction: String) throws {
        let time = try #require(FTPTimestamp(timeVal: text))
        #expect(time.secondsSince1970 == seconds)
        #expect(time.fraction == fraction)
        #expect(time.timeVal == text)
    }

    @Test(arguments: [
        "", "2020010112000", "202001011200000", "1910101120000", "20201301120000", "20200230120000", "20230229120000",
        "20200101240000", "20200101126000", "20200101120061", "20200101120000.", "20200101120000.1234567890",
        "20200101120000,5", "+2020010112000", " 20200101120000", "2020010112000a", "00000101000000",
        "20200101120000\r\n", "٢٠٢٠٠١٠١١٢٠٠٠٠",
    ])
    func refuses(_ text: String) {
        #expect(FTPTimestamp(timeVal: text) == nil)
    }

    @Test func roundTripsThroughSeconds() throws {
        for seconds: Int64 in [0, 1, 59, 86_399, 86_400, 951_782_400, 1_577_880_000, 4_102_444_799, -86_401, 253_402_300_799] {
            let time = try #require(FTPTimestamp(secondsSince1970: seconds))
            #expect(time.secondsSince1970 == seconds)
        }
        #expect(FTPTimestamp(secondsSince1970: .max) == nil)
        #expect(FTPTimestamp(secondsSince1970: .min) == nil)
        #expect(FTPTimestamp(secondsSince1970: 253_402_300_800) == nil)
    }

    @Test func comparesToTheSecond() throws {
        let a = try #require(FTPTimestamp(timeVal: "20200101120000"))
        let b = try #require(FTPTimestamp(timeVal: "20200101120000.500"))
        let c = try #require(FTPTimestamp(timeVal: "20200101120001"))
        #expect(a.sameSecond(as: b))
        #expect(a != b)
        #expect(!a.sameSecond(as: c))
        #expect(a < b && b < c)
    }
}
