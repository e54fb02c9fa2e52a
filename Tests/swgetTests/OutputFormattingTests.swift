import Testing
@testable import SwgetCLI

@Suite("Progress line, units and exit status")
struct OutputFormattingTests {
    @Test(arguments: [
        (0, "0 B"), (1023, "1023 B"), (1024, "1.00 KiB"), (1536, "1.50 KiB"), (10 * 1024 * 1024, "10.0 MiB"),
        (1_073_741_824, "1.00 GiB"), (5_000_000_000_000, "4.55 TiB"),
    ] as [(Int64, String)])
    func bytes(_ count: Int64, _ text: String) {
        #expect(Units.bytes(count) == text)
    }

    @Test(arguments: [(0.25, "0.3s"), (9.94, "9.9s"), (59.6, "1m00s"), (61, "1m01s"), (3600, "1h00m"), (7322, "2h02m"),
                      (-1, "--"), (Double.infinity, "--")] as [(Double, String)])
    func durations(_ seconds: Double, _ text: String) {
        #expect(Units.duration(seconds) == text)
    }

    @Test func rateWithoutSamples() {
        #expect(Units.rate(0) == "--.- B/s")
        #expect(Units.rate(2 * 1024 * 1024) == "2.00 MiB/s")
    }

    @Test(arguments: [40, 60, 80, 120, 200])
    func knownLengthLineFitsTheWidth(_ width: Int) {
        let line = ProgressLine(name: "ubuntu-24.04-desktop-amd64.iso", received: 431 << 20, expected: 1000 << 20,
                                bytesPerSecond: 112 * 1024 * 1024, elapsed: 4)
        let text = line.render(width: width)
        #expect(displayWidth(text) <= width, "\(text)")
        #expect(text.contains("43%"))
        if width >= 80 {
            #expect(text.contains("["))
            #expect(text.contains("eta"))
        }
    }

    @Test func unknownLengthShowsBytesRateAndTime() {
        let text = ProgressLine(name: "stream", received: 5 << 20, expected: nil, bytesPerSecond: 1_048_576, elapsed: 5).render(width: 80)
        #expect(text.contains("5.00 MiB"))
        #expect(text.contains("1.00 MiB/s"))
        #expect(!text.contains("%"))
        #expect(displayWidth(text) <= 80)
    }

    @Test func neverPastOneHundredPercent() {
        let text = ProgressLine(name: "x", received: 2000, expected: 1000, bytesPerSecond: 10, elapsed: 1).render(width: 80)
        #expect(text.contains("100%"))
        #expect(!text.contains("200%"))
    }

    @Test(arguments: [("short", 10, "short     "), ("a-very-long-file-name.iso", 11, "a-ver…e.iso"),
                      ("日本語のファイル名.txt", 10, "日本….txt ")] as [(String, Int, String)])
    func shortensInTheMiddleByDisplayWidth(_ name: String, _ width: Int, _ expected: String) {
        let result = shorten(name, to: width)
        #expect(displayWidth(result) == width)
        #expect(result == expected)
    }

    @Test func wideCharactersCountTwice() {
        #expect(displayWidth("abc") == 3)
        #expect(displayWidth("日本") == 4)
        #expect(displayWidth("😀") == 2)
        #expect(displayWidth("e\u{301}") == 1)
    }

    @Test func severityFollowsWget() {
        #expect(ExitStatus.usage > ExitStatus.fileIO)
        #expect(ExitStatus.network > ExitStatus.serverError)
        #expect(ExitStatus.serverError > ExitStatus.generic)
        #expect(ExitStatus.generic > ExitStatus.success)
        #expect([ExitStatus.serverError, .generic, .network, .protocol].max() == .network)
    }

    @Test func rateMeterSmooths() {
        var meter = RateMeter(start: 0)
        meter.add(bytes: 1000, at: 1)
        #expect(meter.bytesPerSecond == 1000)
        meter.add(bytes: 0, at: 1.1)   // a stall for one redraw does not zero the rate
        #expect(meter.bytesPerSecond > 900)
    }
}
