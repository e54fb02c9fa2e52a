import Testing
@testable import SwgetKit

/// Listing lines as vsftpd, ProFTPD, pure-ftpd and IIS write them.
@Suite("FTP listings (MLSD, LIST)")
struct FTPListingTests {
    /// 2024-06-15 12:00 UTC: "the current date" for LIST lines that show a time.
    static let now = FTPTimestamp(year: 2024, month: 6, day: 15, hour: 12, minute: 0, second: 0)!

    static func time(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0, _ fraction: String = "") -> FTPTimestamp? {
        FTPTimestamp(year: y, month: mo, day: d, hour: h, minute: mi, second: s, fraction: fraction)
    }

    struct Line: CustomTestStringConvertible, Sendable {
        let name: String
        let line: String
        let entry: FTPListEntry?
        var testDescription: String { name }
    }

    static func list(_ name: String, _ kind: FTPListEntry.Kind, _ size: Int64?, _ modified: FTPTimestamp?, _ mode: String?) -> FTPListEntry {
        FTPListEntry(name: name, kind: kind, size: size, modified: modified, modifiedIsApproximate: true, permissions: mode)
    }

    static let unix: [Line] = [
        Line(name: "vsftpd file, time", line: "-rw-r--r--    1 0        0         1048576 Mar 05 12:34 file.bin",
             entry: list("file.bin", .file, 1_048_576, time(2024, 3, 5, 12, 34), "-rw-r--r--")),
        Line(name: "vsftpd directory, year", line: "drwxr-xr-x    2 0        0            4096 Jan 15  2021 pub",
             entry: list("pub", .directory, 4096, time(2021, 1, 15), "drwxr-xr-x")),
        Line(name: "vsftpd symlink", line: "lrwxrwxrwx    1 0        0               7 Feb 01 09:00 latest -> file.bin",
             entry: list("latest", .symlink(target: "file.bin"), 7, time(2024, 2, 1, 9), "lrwxrwxrwx")),
        Line(name: "ProFTPD, year", line: "-rw-r--r--   1 ftp      ftp          1234 Dec 31  2019 readme.txt",
             entry: list("readme.txt", .file, 1234, time(2019, 12, 31), "-rw-r--r--")),
        Line(name: "a time in the future is last year's", line: "-rw-r--r--   1 ftp      ftp          1234 Dec 31 23:59 old.txt",
             entry: list("old.txt", .file, 1234, time(2023, 12, 31, 23, 59), "-rw-r--r--")),
        Line(name: "today", line: "drwxr-xr-x   3 ftp      ftp          4096 Jun 15 11:00 today",
             entry: list("today", .directory, 4096, time(2024, 6, 15, 11), "drwxr-xr-x")),
        Line(name: "pure-ftpd, spaces in the name", line: "-rw-r--r--    1 1000       1000            12 Feb  3 14:03 hello world.txt",
             entry: list("hello world.txt", .file, 12, time(2024, 2, 3, 14, 3), "-rw-r--r--")),
        Line(name: "device", line: "crw-rw-rw-    1 0        0          1,   3 Jan  1 12:00 null",
             entry: list("null", .other("c"), nil, time(2024, 1, 1, 12), "crw-rw-rw-")),
        Line(name: "device, one token", line: "brw-rw----    1 0        6          8,0 Jan  1 12:00 sda",
             entry: list("sda", .other("b"), nil, time(2024, 1, 1, 12), "brw-rw----")),
        Line(name: "ACL mark", line: "-rw-r--r--+   1 owner group 10 Jan  1  2020 acl.txt",
             entry: list("acl.txt", .file, 10, time(2020, 1, 1), "-rw-r--r--+")),
        Line(name: "no group column", line: "-rw-r--r--   1 owner     10 Jan  1  2020 nogroup.txt",
             entry: list("nogroup.txt", .file, 10, time(2020, 1, 1), "-rw-r--r--")),
        Line(name: "long-iso dates", line: "-rw-r--r-- 1 owner group 10 2020-01-31 12:00 iso.txt",
             entry: list("iso.txt", .file, 10, time(2020, 1, 31, 12), "-rw-r--r--")),
        Line(name: "a name that looks like a date", line: "-rw-r--r-- 1 0 0 5 Jan 1 12:00 Jan 2 2020 copy",
             entry: list("Jan 2 2020 copy", .file, 5, time(2024, 1, 1, 12), "-rw-r--r--")),
        Line(name: "an owner called Jan", line: "-rw-r--r-- 1 Jan staff 5 Feb 2 2020 owner-jan",
             entry: list("owner-jan", .file, 5, time(2020, 2, 2), "-rw-r--r--")),
        Line(name: "a name starting with a dash", line: "-rw-r--r-- 1 0 0 5 Jan 1 12:00 -dash",
             entry: list("-dash", .file, 5, time(2024, 1, 1, 12), "-rw-r--r--")),
        Line(name: "dangling arrow", line: "lrwxrwxrwx 1 0 0 7 Feb 01 09:00 dangling -> ",
             entry: list("dangling", .symlink(target: nil), 7, time(2024, 2, 1, 9), "lrwxrwxrwx")),
        Line(name: "Feb 29 of a guessed leap year", line: "-rw-r--r-- 1 0 0 5 Feb 29 10:00 leap",
             entry: list("leap", .file, 5, time(2024, 2, 29, 10), "-rw-r--r--")),
        Line(name: "upper-case month", line: "-rw-r--r-- 1 0 0 5 JAN 1 2020 caps", entry: list("caps", .file, 5, time(2020, 1, 1), "-rw-r--r--")),
        Line(name: "total", line: "total 12", entry: nil),
        Line(name: "dot", line: "drwxr-xr-x 2 0 0 4096 Jan 1 12:00 .", entry: nil),
        Line(name: "dot dot", line: "drwxr-xr-x 2 0 0 4096 Jan 1 12:00 ..", entry: nil),
        Line(name: "a path as name", line: "-rw-r--r-- 1 0 0 5 Jan 1 12:00 ../../etc/passwd", entry: nil),
        Line(name: "no name", line: "-rw-r--r-- 1 0 0 5 Jan 1 12:00", entry: nil),
        Line(name: "no size", line: "-rw-r--r-- 1 0 0 notasize Jan 1 12:00 x", entry: nil),
        Line(name: "bad mode", line: "?rw-r--r-- 1 0 0 5 Jan 1 12:00 x", entry: nil),
        Line(name: "short mode", line: "-rw 1 0 0 5 Jan 1 12:00 x", entry: nil),
        Line(name: "day 32", line: "-rw-r--r-- 1 0 0 5 Jan 32 12:00 x", entry: nil),
        Line(name: "hour 25", line: "-rw-r--r-- 1 0 0 5 Jan 3 25:00 x", entry: nil),
        Line(name: "prose", line: "hello world", entry: nil),
        Line(name: "empty", line: "", entry: nil),
    ]

    static let windows: [Line] = [
        Line(name: "IIS directory", line: "02-14-20  10:30AM       <DIR>          aspnet_client",
             entry: list("aspnet_client", .directory, nil, time(2020, 2, 14, 10, 30), nil)),
        Line(name: "IIS file, PM", line: "11-05-19  03:15PM                 1234 default.htm",
             entry: list("default.htm", .file, 1234, time(2019, 11, 5, 15, 15), nil)),
        Line(name: "four-digit year, midnight", line: "01-01-2020  12:00AM                    0 empty.txt",
             entry: list("empty.txt", .file, 0, time(2020, 1, 1), nil)),
        Line(name: "two-digit year in the last century, noon", line: "12-31-99  12:00PM  <DIR>  y2k",
             entry: list("y2k", .directory, nil, time(1999, 12, 31, 12), nil)),
        Line(name: "24-hour time", line: "01-31-20  13:45                  42 24h.txt",
             entry: list("24h.txt", .file, 42, time(2020, 1, 31, 13, 45), nil)),
        Line(name: "separate PM", line: "01-31-20  01:45 PM               42 spaced.txt",
             entry: list("spaced.txt", .file, 42, time(2020, 1, 31, 13, 45), nil)),
        Line(name: "spaces in the name", line: "02-14-20  10:30AM       <DIR>          name with spaces",
             entry: list("name with spaces", .directory, nil, time(2020, 2, 14, 10, 30), nil)),
        Line(name: "month 13", line: "13-40-20  10:30AM       <DIR>          x", entry: nil),
        Line(name: "13 PM", line: "01-01-20  13:30PM       <DIR>          x", entry: nil),
        Line(name: "no name", line: "01-01-20  10:30AM       <DIR>", entry: nil),
        Line(name: "bad size", line: "01-01-20  10:30AM       12k x", entry: nil),
        Line(name: "three-digit year", line: "01-01-202  10:30AM       1 x", entry: nil),
    ]

    @Test(arguments: unix + windows)
    func listLine(_ c: Line) {
        #expect(FTPListing.parseLIST(c.line, now: Self.now) == c.entry)
    }

    static func facts(_ name: String, _ kind: FTPListEntry.Kind, size: Int64? = nil, modified: FTPTimestamp? = nil,
                      perm: String? = nil, unique: String? = nil) -> FTPListEntry {
        FTPListEntry(name: name, kind: kind, size: size, modified: modified, permissions: perm, unique: unique)
    }

    static let mlsd: [Line] = [
        Line(name: "ProFTPD", line: "modify=20200101120000;perm=adfr;size=1234;type=file;unique=FD00U2BA;UNIX.group=0;UNIX.mode=0644;UNIX.owner=0; readme.txt",
             entry: facts("readme.txt", .file, size: 1234, modified: time(2020, 1, 1, 12), perm: "adfr", unique: "FD00U2BA")),
        Line(name: "pure-ftpd", line: "type=file;size=12;modify=20230203140301;UNIX.mode=0644;UNIX.uid=1000;UNIX.gid=1000;unique=803g1234; hello.txt",
             entry: facts("hello.txt", .file, size: 12, modified: time(2023, 2, 3, 14, 3, 1), unique: "803g1234")),
        Line(name: "IIS, fractional seconds", line: "type=dir;modify=20200214103011.867; aspnet_client",
             entry: facts("aspnet_client", .directory, modified: time(2020, 2, 14, 10, 30, 11, "867"))),
        Line(name: "case-insensitive", line: "Type=FILE;Size=5;Modify=20200101120000; CASE.txt",
             entry: facts("CASE.txt", .file, size: 5, modified: time(2020, 1, 1, 12))),
        Line(name: "spaces and semicolons in the name", line: "type=file;size=1; a name; with=semis.txt",
             entry: facts("a name; with=semis.txt", .file, size: 1)),
        Line(name: "leading space kept in the name", line: "type=file;size=1;  two spaces", entry: facts(" two spaces", .file, size: 1)),
        Line(name: "symlink with target", line: "type=OS.unix=slink:/pub/target;size=10; link",
             entry: facts("link", .symlink(target: "/pub/target"), size: 10)),
        Line(name: "symlink", line: "type=OS.unix=symlink; l2", entry: facts("l2", .symlink(target: nil))),
        Line(name: "other type", line: "type=OS.unix=blk; sda", entry: facts("sda", .other("OS.unix=blk"))),
        Line(name: "no facts", line: " bare", entry: facts("bare", .unknown)),
        Line(name: "negative size", line: "type=file;size=-5; neg", entry: facts("neg", .file)),
        Line(name: "huge size", line: "type=file;size=99999999999999999999; big", entry: facts("big", .file)),
        Line(name: "bad modify", line: "type=file;modify=2020; badtime", entry: facts("badtime", .file)),
        Line(name: "fact without a value", line: "type=file;junk;=x;size=3; x", entry: facts("x", .file, size: 3)),
        Line(name: "current directory", line: "type=cdir;modify=20200101120000;perm=flcdmpe; .", entry: nil),
        Line(name: "parent directory", line: "type=pdir;modify=20200101120000;perm=flcdmpe; ..", entry: nil),
        Line(name: "no space", line: "type=file;size=5;noname", entry: nil),
        Line(name: "empty name", line: "type=file; ", entry: nil),
        Line(name: "a path", line: "type=file; a/b", entry: nil),
        Line(name: "dot name with file type", line: "type=file; ..", entry: nil),
    ]

    @Test(arguments: mlsd)
    func mlsdLine(_ c: Line) {
        #expect(FTPListing.parseFacts(c.line) == c.entry)
    }

    @Test func mlstEntryKeepsPathsAndDirectoryMarkers() {
        #expect(FTPListing.parseMLSTEntry(" type=file;size=5; /pub/file") == Self.facts("/pub/file", .file, size: 5))
        #expect(FTPListing.parseMLSTEntry(" type=cdir;perm=el; /pub") == Self.facts("/pub", .directory, perm: "el"))
        #expect(FTPListing.parseMLSTEntry(" /pub") == nil)
        #expect(FTPListing.parseMLSTEntry("End") == nil)
    }

    // MARK: whole listings, fed in pieces

    static let vsftpdListing = """
        total 8\r
        drwxr-xr-x    2 0        0            4096 Jan 15  2021 pub\r
        -rw-r--r--    1 0        0         1048576 Mar 05 12:34 file.bin\r
        lrwxrwxrwx    1 0        0               7 Feb 01 09:00 latest -> file.bin\r
        garbage line\r
        -rw-r--r--    1 0        0               3 Mar 05 12:34 last-without-newline
        """

    @Test func listingInPieces() throws {
        let bytes = Array(Self.vsftpdListing.utf8)
        for cut in FTPCut.all {
            var parser = FTPListingParser(format: .list, now: Self.now)
            var entries: [FTPListEntry] = []
            for piece in cut.pieces(bytes) { entries += try parser.feed(piece) }
            entries += try parser.finish()
            #expect(entries.map(\.name) == ["pub", "file.bin", "latest", "last-without-newline"], "\(cut)")
            #expect(parser.skippedLines == 2, "\(cut)")
            #expect(entries[1].size == 1_048_576)
        }
    }

    @Test func mlsdListingWithBareLineFeeds() throws {
        let text = "type=cdir; .\ntype=pdir; ..\ntype=file;size=1; a\ntype=dir; b\n\n"
        let entries = try FTPListing.parse(Array(text.utf8), format: .mlsd, now: Self.now)
        #expect(entries == [Self.facts("a", .file, size: 1), Self.facts("b", .directory)])
    }

    /// A 10 MB line is skipped as it streams (memory stays at the line limit), and the lines
    /// around it still parse.
    @Test func overlongLinesAreSkipped() throws {
        var parser = FTPListingParser(format: .mlsd, now: Self.now)
        var entries = try parser.feed(Array("type=file; before\r\n".utf8))
        let chunk = [UInt8](repeating: 0x61, count: 1 << 20)
        for _ in 0..<10 { entries += try parser.feed(chunk) }
        entries += try parser.feed(Array("\r\ntype=file; after\r\n".utf8))
        entries += try parser.finish()
        #expect(entries.map(\.name) == ["before", "after"])
        #expect(parser.skippedLines == 1)
    }

    @Test func tooManyEntries() {
        var limits = FTPListingParser.Limits()
        limits.maxEntries = 100
        let text = (0..<1000).map { "type=file; f\($0)\r\n" }.joined()
        #expect(throws: FTPListingError.tooManyEntries(limit: 100)) {
            _ = try FTPListing.parse(Array(text.utf8), format: .mlsd, now: Self.now, limits: limits)
        }
    }

    @Test func tooManyNameBytes() {
        var limits = FTPListingParser.Limits()
        limits.maxNameBytes = 10_000
        let text = (0..<100).map { "type=file; \($0)" + String(repeating: "n", count: 200) + "\r\n" }.joined()
        #expect(throws: FTPListingError.tooLarge(limit: 10_000)) {
            _ = try FTPListing.parse(Array(text.utf8), format: .mlsd, now: Self.now, limits: limits)
        }
    }
}
