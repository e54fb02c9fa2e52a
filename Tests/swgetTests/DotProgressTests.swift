import Testing
@testable import SwgetCLI

/// One real `wget --progress=dot:<style>` run (GNU Wget 1.21.3 against a local server), its
/// output between the "Saving to:" line and the "saved" line pasted verbatim, and times that
/// reproduce its rates, ETAs and total: each completed line's time since the start, and the time
/// of `finish` (solved from the printed numbers, so every figure comes out the same).
struct WgetRun: Sendable, CustomTestStringConvertible {
    let name: String
    let style: DotProgress.Style
    let size: Int64
    let known: Bool
    let resumedFrom: Int64
    let rowTimes: [Double]
    let finish: Double
    let output: String

    init(_ name: String, _ style: DotProgress.Style, size: Int64, known: Bool, resumedFrom: Int64,
         rowTimes: [Double], finish: Double, output: String) {
        (self.name, self.style, self.size, self.known, self.resumedFrom) = (name, style, size, known, resumedFrom)
        (self.rowTimes, self.finish, self.output) = (rowTimes, finish, output)
    }

    var testDescription: String { name }

    /// Feeds the run to a `DotProgress` in chunks of `chunk` bytes (cut at line ends, each line's
    /// end reported at its time, times in between interpolated) and returns everything it printed.
    func replay(chunk: Int64, flushPreambleFirst: Bool = false) -> String {
        var progress = DotProgress(style: style, expectedTotal: known ? size : nil, resumedFrom: resumedFrom)
        var text = flushPreambleFirst ? progress.advance(to: resumedFrom, at: 0) : ""
        let lineBytes = style.lineBytes
        var boundaries: [(bytes: Int64, time: Double)] = []
        var end = (resumedFrom / lineBytes + 1) * lineBytes
        for time in rowTimes {
            boundaries.append((end, time))
            end += lineBytes
        }
        boundaries.append((size, finish))
        var position = resumedFrom, startTime = 0.0
        for (stop, stopTime) in boundaries where stop > position {
            let from = position
            while position < stop {
                position = min(stop, position + chunk)
                let time = position == stop ? stopTime
                    : startTime + (stopTime - startTime) * Double(position - from) / Double(stop - from)
                text += progress.advance(to: position, at: time)
            }
            startTime = stopTime
        }
        return text + progress.finish(at: finish)
    }
}

@Suite("DotProgress: wget's --progress=dot")
struct DotProgressTests {
    static let wgetRuns: [WgetRun] = [
        WgetRun(
            "default-lim", .default, size: 200000, known: true, resumedFrom: 0,
            rowTimes: [0.480769230769, 0.961538461538, 1.41198891199], finish: 1.89352451241,
            // wget --progress=dot:default --limit-rate=100k
            output: """

                 0K .......... .......... .......... .......... .......... 25%  104K 1s
                50K .......... .......... .......... .......... .......... 51%  104K 1s
               100K .......... .......... .......... .......... .......... 76%  111K 0s
               150K .......... .......... .......... .......... .....     100% 94.1K=1.9s


            """),
        WgetRun(
            "default-fast", .default, size: 200000, known: true, resumedFrom: 0,
            rowTimes: [0.000263935810811, 0.000369624393062, 0.000464436286266], finish: 0.000588735410651,
            // wget --progress=dot:default
            output: """

                 0K .......... .......... .......... .......... .......... 25%  185M 0s
                50K .......... .......... .......... .......... .......... 51%  462M 0s
               100K .......... .......... .......... .......... .......... 76%  515M 0s
               150K .......... .......... .......... .......... .....     100%  356M=0.001s


            """),
        WgetRun(
            "binary-lim", .binary, size: 5000000, known: true, resumedFrom: 0,
            rowTimes: [0.203804347826, 0.406507050529, 0.611425083316, 1.01478642785, 1.21639933108, 1.41801223431, 1.62071493701, 2.03053350691, 2.2354515397, 2.44149549574, 2.64641352853, 3.05233319026], finish: 3.25411633465,
            // wget --progress=dot:binary --limit-rate=1500k
            output: """

                 0K ................ ................ ................  7% 1.84M 2s
               384K ................ ................ ................ 15% 1.85M 2s
               768K ................ ................ ................ 23% 1.83M 2s
              1152K ................ ................ ................ 31%  952K 2s
              1536K ................ ................ ................ 39% 1.86M 2s
              1920K ................ ................ ................ 47% 1.86M 2s
              2304K ................ ................ ................ 55% 1.85M 1s
              2688K ................ ................ ................ 62%  937K 1s
              3072K ................ ................ ................ 70% 1.83M 1s
              3456K ................ ................ ................ 78% 1.82M 1s
              3840K ................ ................ ................ 86% 1.83M 0s
              4224K ................ ................ ................ 94%  946K 0s
              4608K ................ ................ ..              100% 1.33M=3.3s


            """),
        WgetRun(
            "mega-lim", .mega, size: 10000000, known: true, resumedFrom: 0,
            rowTimes: [0.608519269777, 1.4171446067, 2.22576994363], finish: 2.22625981582,
            // wget --progress=dot:mega --limit-rate=4m
            output: """

                 0K ........ ........ ........ ........ ........ ........ 31% 4.93M 1s
              3072K ........ ........ ........ ........ ........ ........ 62% 3.71M 1s
              6144K ........ ........ ........ ........ ........ ........ 94% 3.71M 0s
              9216K ........                                             100% 1.07G=2.2s


            """),
        WgetRun(
            "mega-fast", .mega, size: 10000000, known: true, resumedFrom: 0,
            rowTimes: [0.0129310344828, 0.0164398064126, 0.022392187365], finish: 0.0228479814921,
            // wget --progress=dot:mega
            output: """

                 0K ........ ........ ........ ........ ........ ........ 31%  232M 0s
              3072K ........ ........ ........ ........ ........ ........ 62%  855M 0s
              6144K ........ ........ ........ ........ ........ ........ 94%  504M 0s
              9216K ........                                             100% 1.15G=0.02s


            """),
        WgetRun(
            "giga-lim", .giga, size: 100000000, known: true, resumedFrom: 0,
            rowTimes: [0.632411067194, 1.46357989836], finish: 2.29340613224,
            // wget --progress=dot:giga --limit-rate=40m
            output: """

                 0K ........ ........ ........ ........ 33% 50.6M 1s
             32768K ........ ........ ........ ........ 67% 38.5M 1s
             65536K ........ ........ ........ ....... 100% 37.8M=2.3s


            """),
        WgetRun(
            "giga-fast", .giga, size: 100000000, known: true, resumedFrom: 0,
            rowTimes: [0.025406504065, 0.0506081169683], finish: 0.0820699340602,
            // wget --progress=dot:giga
            output: """

                 0K ........ ........ ........ ........ 33% 1.23G 0s
             32768K ........ ........ ........ ........ 67% 1.24G 0s
             65536K ........ ........ ........ ....... 100%  997M=0.08s


            """),
        WgetRun(
            "small", .default, size: 1000, known: true, resumedFrom: 0,
            rowTimes: [], finish: 0.000427656644128,
            // wget --progress=dot:default
            output: """

                 0K                                                       100% 2.23M=0s


            """),
        WgetRun(
            "empty", .default, size: 0, known: true, resumedFrom: 0,
            rowTimes: [], finish: 0.0001,
            // wget --progress=dot:default
            output: """

                 0K                                                        0.00 =0s


            """),
        WgetRun(
            "nolen-lim", .default, size: 200000, known: false, resumedFrom: 0,
            rowTimes: [0.480769230769, 0.961538461538, 1.44230769231], finish: 1.90233307302,
            // wget --progress=dot:default no Content-Length, --limit-rate=100k
            output: """

                 0K .......... .......... .......... .......... ..........  104K
                50K .......... .......... .......... .......... ..........  104K
               100K .......... .......... .......... .......... ..........  104K
               150K .......... .......... .......... .......... .....      98.5K=1.9s


            """),
        WgetRun(
            "nolen-fast", .default, size: 200000, known: false, resumedFrom: 0,
            rowTimes: [0.000396976626016, 0.000486899508153, 0.000575516794904], finish: 0.000615162086154,
            // wget --progress=dot:default no Content-Length
            output: """

                 0K .......... .......... .......... .......... ..........  123M
                50K .......... .......... .......... .......... ..........  543M
               100K .......... .......... .......... .......... ..........  551M
               150K .......... .......... .......... .......... .....      1.09G=0.001s


            """),
        WgetRun(
            "resume-lim", .default, size: 200000, known: true, resumedFrom: 130000,
            rowTimes: [0.320512820513], finish: 1.28052341373,
            // wget --progress=dot:default -c, --limit-rate=50k
            output: """

                    [ skipping 100K ]
               100K ,,,,,,,,,, ,,,,,,,,,, ,,,,,,.... .......... .......... 76%  156K 1s
               150K .......... .......... .......... .......... .....     100% 47.2K=1.3s


            """),
        WgetRun(
            "resume-inrow", .default, size: 200000, known: true, resumedFrom: 30000,
            rowTimes: [0.000420932112069, 0.000885961873974, 0.00140485799512], finish: 0.00186199113852,
            // wget --progress=dot:default -c
            output: """

                 0K ,,,,,,,,,, ,,,,,,,,,, ,,,,,,,,,. .......... .......... 25%  116M 0s
                50K .......... .......... .......... .......... .......... 51%  105M 0s
               100K .......... .......... .......... .......... .......... 76% 94.1M 0s
               150K .......... .......... .......... .......... .....     100% 96.8M=0.002s


            """),
        WgetRun(
            "resume-aligned", .default, size: 200000, known: true, resumedFrom: 102400,
            rowTimes: [0.00055360685941], finish: 0.000778228627336,
            // wget --progress=dot:default -c
            output: """

                    [ skipping 100K ]
               100K
               100K .......... .......... .......... .......... .......... 76% 88.2M 0s
               150K .......... .......... .......... .......... .....     100%  197M=0.001s


            """),
        WgetRun(
            "resume-binary-lim", .binary, size: 5000000, known: true, resumedFrom: 1000000,
            rowTimes: [0.0262237762238, 0.432143437957, 0.843278341598, 1.25931301115, 1.67534768071, 1.87915202854, 2.29205525434, 2.70275044151, 3.11878511106, 3.53527101128], finish: 3.74331099735,
            // wget --progress=dot:binary -c, --limit-rate=1m
            output: """

                    [ skipping 768K ]
               768K ,,,,,,,,,,,,,,,, ,,,,,,,,,,...... ................ 23% 14.3M 1s
              1152K ................ ................ ................ 31%  946K 3s
              1536K ................ ................ ................ 39%  934K 3s
              1920K ................ ................ ................ 47%  923K 2s
              2304K ................ ................ ................ 55%  923K 2s
              2688K ................ ................ ................ 62% 1.84M 2s
              3072K ................ ................ ................ 70%  930K 1s
              3456K ................ ................ ................ 78%  935K 1s
              3840K ................ ................ ................ 86%  923K 1s
              4224K ................ ................ ................ 94%  922K 0s
              4608K ................ ................ ..              100% 1.29M=3.7s


            """),
        WgetRun(
            "resume-mega", .mega, size: 10000000, known: true, resumedFrom: 7000000,
            rowTimes: [0.00584795321637], finish: 0.00697793882493,
            // wget --progress=dot:mega -c
            output: """

                    [ skipping 6144K ]
              6144K ,,,,,,,, ,,...... ........ ........ ........ ........ 94%  513M 0s
              9216K ........                                             100%  475M=0.007s


            """),
        WgetRun(
            "resume-giga", .giga, size: 100000000, known: true, resumedFrom: 40000000,
            rowTimes: [0.0941176470588], finish: 0.172732763953,
            // wget --progress=dot:giga -c
            output: """

                    [ skipping 32768K ]
             32768K ,,,,,,.. ........ ........ ........ 67%  340M 0s
             65536K ........ ........ ........ ....... 100%  399M=0.2s


            """),
    ]

    @Test(arguments: wgetRuns)
    func matchesWget(_ run: WgetRun) {
        #expect(run.replay(chunk: 16384) == run.output)
    }

    @Test(arguments: wgetRuns)
    func chunkSizeDoesNotMatter(_ run: WgetRun) {
        #expect(run.replay(chunk: 1000) == run.output)
        #expect(run.replay(chunk: run.style.lineBytes, flushPreambleFirst: true) == run.output)
    }

    @Test(arguments: [
        ("default", DotProgress.Style.default, 1024, 10, 50, 51_200),
        ("binary", .binary, 8192, 16, 48, 393_216),
        ("mega", .mega, 65536, 8, 48, 3_145_728),
        ("giga", .giga, 1_048_576, 8, 32, 33_554_432),
    ] as [(String, DotProgress.Style, Int64, Int, Int, Int64)])
    func styles(_ name: String, _ style: DotProgress.Style, _ dot: Int64, _ cluster: Int, _ line: Int, _ lineBytes: Int64) {
        #expect(DotProgress.Style(rawValue: name) == style)
        #expect(DotProgress.Style(name: name.uppercased()) == style)
        #expect(style.dotBytes == dot)
        #expect(style.dotsPerCluster == cluster)
        #expect(style.dotsPerLine == line)
        #expect(style.lineBytes == lineBytes)
    }

    @Test(arguments: ["", "dot", "Mega", "kilo", "default:x", " binary"])
    func unknownStyles(_ name: String) {
        #expect(DotProgress.Style(rawValue: name) == nil)
    }

    /// `" %4.*f%c"` after wget's calc_rate (expected values from Python's %-formatting, which
    /// rounds like glibc's printf).
    @Test(arguments: [
        (0, 1.0, "0.00 "), (500, 1.0, " 500 "), (1000, 1.0, "1000 "), (1023, 1.0, "1023 "),
        (1024, 1.0, "1.00K"), (10_230, 1.0, "9.99K"), (10_235, 1.0, "10.0K"), (102_349, 1.0, " 100K"),
        (51_200, 0.5, " 100K"), (51_200, 0.4807692307692308, " 104K"), (1_048_575, 1.0, "1024K"),
        (1_048_576, 1.0, "1.00M"), (5_000_000, 1.0, "4.77M"), (1_073_741_824, 0.5, "2.00G"),
        (51_200, 0.0, "93.1T"), (1_099_511_627_776, 0.001, "1000T"), (2560, 2.0, "1.25K"),
    ] as [(Int64, Double, String)])
    func rates(_ bytes: Int64, _ seconds: Double, _ text: String) {
        #expect(DotProgress.rate(bytes: bytes, seconds: seconds) == text)
    }

    /// wget's eta_to_human_short, condensed.
    @Test(arguments: [(0, "0s"), (5, "5s"), (99, "99s"), (100, "1m40s"), (65 * 60 + 5, "65m5s"), (5999, "99m59s"),
                      (6000, "1h40m"), (7322, "2h2m"), (48 * 3600 - 1, "47h59m"), (48 * 3600, "2d0h"),
                      (100 * 86400 - 1, "99d23h"), (100 * 86400, "100d"), (-3, "0s")] as [(Int, String)])
    func shortDurations(_ seconds: Int, _ text: String) {
        #expect(DotProgress.shortDuration(seconds) == text)
    }

    /// wget's print_decimal (%.0f, %.1f, %.1g, then the two special cases).
    @Test(arguments: [(0, "0"), (0.0004, "0"), (0.0005, "0.001"), (0.00099, "0.001"), (0.001, "0.001"),
                      (0.0014, "0.001"), (0.0016, "0.002"), (0.0096, "0.01"), (0.02284, "0.02"), (0.08207, "0.08"),
                      (0.096, "0.1"), (0.5, "0.5"), (0.94, "0.9"), (0.95, "0.9"), (0.96, "1.0"), (1.8935, "1.9"),
                      (9.94, "9.9"), (9.95, "10"), (9.96, "10"), (12.5, "12")] as [(Double, String)])
    func decimals(_ value: Double, _ text: String) {
        #expect(DotProgress.decimal(value) == text)
    }

    /// glibc's rounding of `%.*f`: exact ties go to even, near-ties by the exact binary value.
    @Test(arguments: [(0.125, 2, "0.12"), (0.375, 2, "0.38"), (2.5, 0, "2"), (3.5, 0, "4"), (1.005, 2, "1.00"),
                      (0.285, 2, "0.28"), (2.675, 2, "2.67"), (1.25, 1, "1.2"), (1.35, 1, "1.4"), (0.05, 1, "0.1"),
                      (0.95, 1, "0.9"), (99.95, 0, "100"), (9.995, 1, "10.0"), (1023.5, 0, "1024"),
                      (0.0, 2, "0.00"), (7.0, 1, "7.0")] as [(Double, Int, String)])
    func printfRounding(_ value: Double, _ digits: Int, _ text: String) {
        #expect(DotProgress.printfFixed(value, digits: digits) == text)
    }

    @Test func wholeLinesArePrintedAsTheyComplete() {
        var progress = DotProgress(style: .default, expectedTotal: 102_400)
        #expect(progress.advance(to: 0, at: 0) == "")
        #expect(progress.advance(to: 1023, at: 0.1) == "")
        #expect(progress.advance(to: 1024, at: 0.1) == "\n     0K .")
        #expect(progress.advance(to: 10 * 1024, at: 0.2) == ".........")
        #expect(progress.advance(to: 10 * 1024 + 1024, at: 0.3) == " .")
        #expect(progress.advance(to: 51_200, at: 1) == "......... .......... .......... .......... 50% 50.0K 1s")
        #expect(progress.advance(to: 52_224, at: 1.5) == "\n    50K .")
        // 49 blank dots and 4 cluster gaps; 1024 bytes in 1.5 s is 683 B/s ("%4.0f" and a blank unit).
        #expect(progress.finish(at: 2.5) == spaces(53) + " 51%  683 =2.5s\n\n")
        #expect(progress.finish(at: 3) == "")
        #expect(progress.advance(to: 60_000, at: 3) == "")
    }

    @Test func goingBackwardsPrintsNothing() {
        var progress = DotProgress(style: .default, expectedTotal: nil)
        #expect(progress.advance(to: 2048, at: 1) == "\n     0K ..")
        #expect(progress.advance(to: 1024, at: 2) == "")
        #expect(progress.advance(to: 3072, at: 3) == ".")
    }

    /// Four or more lines pending after a line completes are folded into it, as wget 1.21's
    /// ADD_DOT_ROWS_THRS does; fewer are printed one by one (here all at the same instant, which
    /// wget rates with half its 1 ns timer resolution).
    @Test func bigJumpsSkipLinesLikeWget() {
        var progress = DotProgress(style: .default, expectedTotal: 512_000)
        let line = " .......... .......... .......... .......... .........."
        #expect(progress.advance(to: 307_200, at: 1) == "\n     0K" + line + " 60%  300K 1s")
        #expect(progress.advance(to: 512_000, at: 2) == """

               300K\(line) 70% 50.0K 1s
               350K\(line) 80% 93.1T 1s
               400K\(line) 90% 93.1T 0s
               450K\(line)100% 93.1T 0s
            """)
        #expect(progress.finish(at: 2) == "\n   500K" + spaces(55) + "100% 0.00 =2.0s\n\n")
    }

    @Test func longDownloadsShowMinutesAndBigOffsets() {
        var progress = DotProgress(style: .giga, expectedTotal: 50 << 30)
        var text = ""
        for mebibyte in stride(from: Int64(1), through: 2048, by: 1) {
            text += progress.advance(to: mebibyte << 20, at: Double(mebibyte) / 10)
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 64)
        #expect(lines.first == "     0K ........ ........ ........ ........  0% 10.0M 85m17s")
        #expect(lines.last == "2064384K ........ ........ ........ ........  4% 10.0M 81m55s")
        #expect(progress.finish(at: 7200) == "\n2097152K" + spaces(36) + "  4% 0.00 =2h0m\n\n")
    }

    @Test func moreThanAnnouncedKeepsCounting() {
        var progress = DotProgress(style: .default, expectedTotal: 40_000)
        #expect(progress.advance(to: 51_200, at: 1).hasSuffix("..........128% 50.0K 0s"))
        #expect(progress.finish(at: 1.5) == "\n    50K" + spaces(55) + "128% 0.00 =1.5s\n\n")
    }

    @Test func resumedPreambleComesWithTheFirstOutput() {
        var progress = DotProgress(style: .binary, expectedTotal: 5_000_000, resumedFrom: 1_000_000)
        #expect(progress.advance(to: 1_000_000, at: 0) == "\n        [ skipping 768K ]\n   768K ,,,,,,,,,,,,,,,, ,,,,,,,,,,")
        #expect(progress.advance(to: 1_000_000, at: 0.1) == "")
        // Nothing arrived: the resumed part of the line does not count toward its rate.
        var finished = DotProgress(style: .default, expectedTotal: nil, resumedFrom: 2048)
        #expect(finished.finish(at: 0) == "\n     0K ,," + spaces(52) + " 0.00 =0s\n\n")
    }

    @Test func skippingLineWidensWithTheOffset() {
        var progress = DotProgress(style: .giga, expectedTotal: nil, resumedFrom: 40 << 30 + 20 << 20)
        #expect(progress.advance(to: 40 << 30 + 20 << 20, at: 0)
            == "\n" + spaces(10) + "[ skipping 41943040K ]\n41943040K ,,,,,,,, ,,,,,,,, ,,,,")
    }

    private func spaces(_ count: Int) -> String { String(repeating: " ", count: count) }
}
