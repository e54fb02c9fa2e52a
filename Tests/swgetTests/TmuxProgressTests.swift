import Foundation
import Testing
import SwgetTestSupport

/// The progress display as a user sees it: swget runs in a pane of a real terminal emulator
/// (tmux, detached, with a fixed size), and the tests look only at what the pane shows
/// (`tmux capture-pane`), polled every 100 ms, never at the bytes swget wrote.
///
/// Each test starts its own tmux server on a socket in a fresh temporary directory, with no
/// configuration file, so a user's tmux is never touched; the server is killed at the end,
/// also when the test fails. Set SWGET_TEST_SHOW_SCREENS=1 to print the screens captured.
@Suite("Progress in a tmux pane", .serialized)
struct TmuxProgressTests {
    func body(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }

    /// 400 KB, 6 KB every 50 ms, behind a gate the test opens phase by phase (a quarter, half,
    /// three quarters, all), so no phase is missed on a machine slow to capture the pane. The
    /// bar is seen at 100 columns, the window shrinks to 60 mid-download, and the end leaves
    /// exactly one summary line.
    @Test func barFitsTheWindowFollowsAResizeAndEndsAsOneSummaryLine() async throws {
        let name = "data.bin"
        let payload = body(400_000)
        let gate = BodyGate()
        gate.open(to: 100_000)
        let server = try await TestServer.start { _ in
            .ok(payload).trickled(bytesPerWrite: 6_000, every: .milliseconds(50), gate: gate)
        }
        let dir = try makeTemporaryDirectory()
        let command = TmuxSession.swgetCommand(url: "\(server.baseURL)/\(name)", in: dir, locale: ["LANG=C.UTF-8"])
        try await cleaningUp({ try? await server.stop(); try? FileManager.default.removeItem(atPath: dir) }) {
            let tmux = try await TmuxSession.start(command: command, width: 100, height: 20)
            try await cleaningUp({ await tmux.close() }) {
                // 1. At 100 columns: the pane shows the bar and nothing else, redrawn in place.
                let first = try await tmux.waitForScreen("a progress bar at 100 columns") {
                    $0.lastRow.flatMap { PaneBar(row: $0, name: name) } != nil
                }
                let bar = try #require(first.lastRow.flatMap { PaneBar(row: $0, name: name) })
                #expect(first.nonEmptyRows.count == 1, "only the bar on screen:\n\(first)")
                #expect(bar.width <= 100, "the bar fits in 100 columns:\n\(first)")
                #expect(bar.width > 60, "the bar uses the width of the window:\n\(first)")
                #expect(bar.percent < 100)

                gate.open(to: 200_000)
                let later = try await tmux.waitForScreen("the bar redrawn with a higher percentage") {
                    guard let next = $0.lastRow.flatMap({ PaneBar(row: $0, name: name) }) else { return false }
                    return next.percent > bar.percent
                }
                #expect(later.nonEmptyRows.count == 1, "the bar is redrawn in place, never repeated:\n\(later)")
                #expect(later.nonEmptyRows.allSatisfy { PaneBar(row: $0, name: name).map { $0.width <= 100 } ?? false },
                        "\(later)")
                #expect(!later.finished, "the download ended before the resize; the test needs a slower body:\n\(later)")

                // 2. The window shrinks to 60 columns mid-download.
                gate.open(to: 300_000)
                try await tmux.resize(width: 60)
                #expect(try await tmux.display("#{window_width} #{pane_width}") == "60 60", "the pane was really resized")

                // tmux reflows the 99-column line that was on screen: its head goes to the row above
                // (here, the scrollback) and its tail stays on the cursor's row until swget redraws.
                // A complete bar row in a 60-column pane can only come from a redraw for the new
                // width: the first row that starts with the name and ends with the numbers.
                let narrow = try await tmux.waitForScreen("a complete progress bar at 60 columns") {
                    $0.lastRow.flatMap { PaneBar(row: $0, name: name) } != nil
                }
                let narrowBar = try #require(narrow.lastRow.flatMap { PaneBar(row: $0, name: name) })
                #expect(narrowBar.width <= 60, "the bar fits in 60 columns:\n\(narrow)")
                // The redraw cleared the rest of its row (the tail of the wide line is gone). At most
                // one row above may hold the head of a wide line that tmux itself moved there when the
                // resize came while a wide line was still on its way through the terminal.
                let others = narrow.nonEmptyRows.dropLast()
                #expect(others.count <= 1 && others.allSatisfy { PaneBar.isHeadOfAWideBar($0, name: name) },
                        "nothing but the bar, and no leftover of the wider line:\n\(narrow)")

                // 3. The end: one summary line, then the shell's EXIT=0, and nothing of the bar after it.
                gate.openFully()
                let final = try await tmux.waitForScreen("swget's exit", timeout: .seconds(60)) { $0.finished }
                let summaries = final.rows.indices.filter { final.rows[$0].contains(" saved [") }
                #expect(summaries.count == 1, "exactly one summary line:\n\(final)")
                if let index = summaries.first {
                    let summary = final.rows[index]
                    #expect(summary.wholeMatch(of: TmuxSession.summaryPattern(name: name)) != nil, "summary: \(summary)")
                    #expect(displayWidthOf(summary) <= 60)
                    let after = final.rows[(index + 1)...].filter { !$0.isEmpty }
                    #expect(after == ["EXIT=0"], "only the shell's EXIT=0 after the summary:\n\(final)")
                    let before = final.rows[..<index].filter { !$0.isEmpty }
                    #expect(before.count <= 1 && before.allSatisfy { PaneBar.isHeadOfAWideBar($0, name: name) },
                            "no bar left above the summary:\n\(final)")
                }
                #expect(!final.rows.contains { PaneBar(row: $0, name: name) != nil }, "no bar after the end:\n\(final)")
                #expect(FileManager.default.contents(atPath: dir + "/" + name).map { [UInt8]($0) } == payload)

                TmuxSession.printPane("single bar mid-transfer", later)
                TmuxSession.show(["at 100 columns": first, "later at 100 columns": later,
                                  "after the resize to 60": narrow, "at the end": final])
            }
        }
    }

    /// Under a non-UTF-8 locale (LANG=C LC_ALL=C) everything swget puts on screen is ASCII,
    /// including a long file name shortened to fit in the bar.
    @Test func nonUTF8LocaleGetsAnASCIIOnlyScreen() async throws {
        let name = "a-rather-long-file-name-that-the-bar-has-to-shorten-to-fit-0123456789.bin"
        let payload = body(200_000)
        // Half the body, then nothing until the test has seen the bar.
        let gate = BodyGate()
        gate.open(to: 100_000)
        let server = try await TestServer.start { _ in
            .ok(payload).trickled(bytesPerWrite: 10_000, every: .milliseconds(50), gate: gate)
        }
        let dir = try makeTemporaryDirectory()
        let command = TmuxSession.swgetCommand(url: "\(server.baseURL)/\(name)", in: dir, locale: ["LANG=C", "LC_ALL=C"])
        try await cleaningUp({ try? await server.stop(); try? FileManager.default.removeItem(atPath: dir) }) {
            let tmux = try await TmuxSession.start(command: command, width: 100, height: 20)
            try await cleaningUp({ await tmux.close() }) {
                var screens: [TmuxScreen] = []
                let barScreen = try await tmux.waitForScreen("a progress bar with the name shortened") { screen in
                    screens.append(screen)
                    return screen.lastRow.map(PaneBar.looksLikeABar) ?? false
                }
                gate.openFully()
                let final = try await tmux.waitForScreen("swget's exit", timeout: .seconds(60)) { screen in
                    screens.append(screen)
                    return screen.finished
                }
                let joined = try await tmux.capture(joinWrappedLines: true)
                screens.append(joined)

                let bar = try #require(barScreen.lastRow)
                #expect(bar.hasPrefix(String(name.prefix(6))), "the bar starts with the (shortened) name: \(bar)")
                #expect(displayWidthOf(bar) <= 100)
                #expect(!bar.contains(name), "a name this long is shortened in the bar: \(bar)")

                // Every row of every capture: the bar's redraws and the summary.
                let strange = screens.flatMap(\.nonASCIIRows)
                let allASCII = strange.isEmpty
                #expect(allASCII, """
                    non-ASCII on screen under LC_ALL=C, in \(strange.count) rows of \(screens.count) screens; the first and last:
                    \(strange.first ?? "")
                    \(strange.last ?? "")
                    """)
                let lines = joined.nonEmptyRows
                #expect(lines.count == 2, "the summary and EXIT=0:\n\(joined)")
                #expect(lines.first?.wholeMatch(of: TmuxSession.summaryPattern(name: name)) != nil, "\(joined)")
                #expect(lines.last == "EXIT=0", "\(joined)\n(not joined:)\n\(final)")
                #expect(FileManager.default.contents(atPath: dir + "/" + name).map { [UInt8]($0) } == payload)

                TmuxSession.show(["with the shortened name (LC_ALL=C)": barScreen, "at the end (joined)": joined])
            }
        }
    }

    /// Three downloads at once (`-j 3`), of different sizes and speeds, taking about 1.5 s, 2.5 s
    /// and 3 s: the block (one bar per transfer, then the total line) is redrawn in place, each
    /// finished transfer's summary scrolls up above it, and the end leaves the three summaries,
    /// the batch line and nothing of the block.
    @Test func threeParallelTransfersShowABlockAndScrollUpWhenDone() async throws {
        // 150 KB, 300 KB and 450 KB, each held by its gate at 30 KB until the test has seen the
        // three bars move; then the smallest is let go first (a loaded machine cannot finish a file
        // before the first screen, nor in another order).
        let files: [(name: String, payload: [UInt8], bytesPerWrite: Int, gate: BodyGate)] = [
            ("small.bin", body(150_000), 5_000, BodyGate()), ("medium.bin", body(300_000), 6_000, BodyGate()),
            ("large.bin", body(450_000), 7_500, BodyGate()),
        ]
        for file in files { file.gate.open(to: 30_000) }
        let names = files.map(\.name)
        let server = try await TestServer.start { request in
            guard let file = files.first(where: { "/" + $0.name == request.path }) else { return .status(404) }
            return .ok(file.payload).trickled(bytesPerWrite: file.bytesPerWrite, every: .milliseconds(50), gate: file.gate)
        }
        let dir = try makeTemporaryDirectory()
        let command = TmuxSession.swgetCommand(arguments: ["-j", "3"] + names.map { "\(server.baseURL)/\($0)" },
                                               in: dir, locale: ["LANG=C.UTF-8"])
        try await cleaningUp({ try? await server.stop(); try? FileManager.default.removeItem(atPath: dir) }) {
            let tmux = try await TmuxSession.start(command: command, width: 100, height: 20)
            try await cleaningUp({ await tmux.close() }) {
                var screens: [TmuxScreen] = []
                // 1. All three running: three bars and the total line, nothing else. Polls until every
                // bar has moved (all three are held by their gates until then).
                _ = try await tmux.waitForScreen("three bars with progress, or the first summary") { screen in
                    screens.append(screen)
                    let layout = BlockLayout(screen, names: names)
                    return (layout.isFullBlock && layout.bars.allSatisfy { $0.bar.percent > 0 }) || !layout.summaries.isEmpty
                }
                let block = try #require(screens.last { BlockLayout($0, names: names).isFullBlock },
                                         "never saw three bars and the total line; the last screen:\n\(screens.last.map { "\($0)" } ?? "")")
                let blockLayout = BlockLayout(block, names: names)
                #expect(Set(blockLayout.bars.map(\.name)) == Set(names), "one bar per file:\n\(block)")
                #expect(block.nonEmptyRows.count == 4, "three bars and the total, nothing else:\n\(block)")
                #expect(block.nonEmptyRows.last.map { $0.hasPrefix("Total  0/3 files  ") } ?? false,
                        "the total line last, no file done yet:\n\(block)")
                #expect(block.nonEmptyRows.allSatisfy { displayWidthOf($0) <= 100 }, "every row fits in 100 columns:\n\(block)")
                #expect(blockLayout.bars.allSatisfy { $0.bar.width > 60 }, "the bars use the width of the window:\n\(block)")
                #expect(blockLayout.total?.expected == "878.9 KiB", "the total counts all three lengths:\n\(block)")

                // 2. The smallest finished: its summary above the two other bars and `Total  1/3 files`.
                files[0].gate.openFully()
                let afterFirst = try await tmux.waitForScreen("the first summary above two bars and the total") { screen in
                    screens.append(screen)
                    return BlockLayout(screen, names: names).summaries.count >= 1
                }
                let firstLayout = BlockLayout(afterFirst, names: names)
                #expect(firstLayout.isWellFormed, "a well-formed screen:\n\(afterFirst)\n\(firstLayout.problems)")
                #expect(firstLayout.summaries == ["small.bin"], "the smallest file finishes first:\n\(afterFirst)")
                #expect(Set(firstLayout.bars.map(\.name)) == ["medium.bin", "large.bin"], "the two others' bars:\n\(afterFirst)")
                #expect(firstLayout.total?.done == 1, "Total  1/3 files:\n\(afterFirst)")
                #expect(firstLayout.total?.expected == "878.9 KiB", "the total still counts all three lengths:\n\(afterFirst)")
                #expect(afterFirst.nonEmptyRows.count == 4, "one summary, two bars, the total:\n\(afterFirst)")

                // 3. The end.
                for file in files { file.gate.openFully() }
                let final = try await tmux.waitForScreen("swget's exit", timeout: .seconds(60)) { screen in
                    screens.append(screen)
                    return screen.finished
                }
                let rows = final.nonEmptyRows
                #expect(rows.count == 5, "three summaries, the batch line, EXIT=0:\n\(final)")
                if rows.count == 5 {
                    let summaryNames = rows[0..<3].compactMap { row in
                        names.first { row.wholeMatch(of: TmuxSession.summaryPattern(name: $0)) != nil }
                    }
                    #expect(summaryNames.count == 3 && Set(summaryNames) == Set(names), "one summary per file:\n\(final)")
                    #expect(rows[3].wholeMatch(of: TmuxSession.batchPattern(files: 3)) != nil, "the batch line: \(rows[3])")
                    #expect(rows[4] == "EXIT=0", "\(final)")
                }
                #expect(!final.rows.contains { row in names.contains { PaneBar(row: row, name: $0) != nil } },
                        "no bar left:\n\(final)")
                #expect(!final.rows.contains { $0.hasPrefix("Total ") }, "no total line left:\n\(final)")
                for file in files {
                    #expect(FileManager.default.contents(atPath: dir + "/" + file.name).map { [UInt8]($0) } == file.payload,
                            "\(file.name) saved whole")
                }

                // Every capture on the way: nothing but summaries, bars of running transfers and the
                // total line (its count matching the summaries), no row twice, no stale bar.
                let bad = screens.filter { !BlockLayout($0, names: names).isWellFormed }
                #expect(bad.isEmpty, """
                    \(bad.count) of \(screens.count) screens are not a clean block; the first:
                    \(bad.first.map { "\($0)\n\(BlockLayout($0, names: names).problems)" } ?? "")
                    """)

                print("(\(screens.count) captures of the parallel download checked, \(bad.count) not clean)")
                TmuxSession.printPane("parallel mid-transfer", block)
                TmuxSession.printPane("parallel after the first finished", afterFirst)
                TmuxSession.printPane("parallel at the end", final)
            }
        }
    }

    /// `--progress=dot`: wget's dot lines (50 KiB each) scroll in the pane, then the summary.
    @Test func dotProgressInAPane() async throws {
        let name = "dots.bin"
        let payload = body(200_000)
        let server = try await TestServer.start { _ in .ok(payload).trickled(bytesPerWrite: 10_000, every: .milliseconds(50)) }
        let dir = try makeTemporaryDirectory()
        let command = TmuxSession.swgetCommand(arguments: ["--progress=dot", "\(server.baseURL)/\(name)"],
                                               in: dir, locale: ["LANG=C.UTF-8"])
        try await cleaningUp({ try? await server.stop(); try? FileManager.default.removeItem(atPath: dir) }) {
            let tmux = try await TmuxSession.start(command: command, width: 100, height: 20)
            try await cleaningUp({ await tmux.close() }) {
                let final = try await tmux.waitForScreen("swget's exit", timeout: .seconds(60)) { $0.finished }
                let rows = final.nonEmptyRows
                // 200,000 bytes: three full lines of 50 dots (0K, 50K, 100K), then 45 dots and the 100% trailer.
                let dotRows = rows.filter { $0.wholeMatch(of: dotLinePattern) != nil }
                #expect(dotRows.count == 4, "four lines of dots:\n\(final)")
                #expect(rows.first?.hasPrefix("     0K .......... ") ?? false, "the first line starts at 0K:\n\(final)")
                #expect(dotRows.map { $0.prefix(7) } == ["     0K", "    50K", "   100K", "   150K"], "\(final)")
                #expect(dotRows.dropLast().allSatisfy { $0.contains(#/ \.{10} \.{10} \.{10} \.{10} \.{10}\s+\d{2}%\s/#) },
                        "full lines of 50 dots with a percentage:\n\(final)")
                #expect(dotRows.last?.contains(#/ 100%\s+\S+=\S+$/#) ?? false, "the last line ends with 100% and the time:\n\(final)")
                // The trailer's time is this download's duration (wget prints `=1.9s`, or `=12s` from
                // 10 s on): the command is killed after 60 s, so anything longer is a wrong clock.
                let trailer = dotRows.last.flatMap { $0.firstMatch(of: #/=(?<time>\S+)$/#).map { String($0.time) } }
                let seconds = trailer.flatMap { $0.wholeMatch(of: #/(?<s>\d+(?:\.\d+)?)s/#).flatMap { Double($0.s) } }
                #expect(seconds.map { $0 < 60 } ?? false,
                        "the total time on the last line of dots (\(trailer ?? "none")) is the download's duration:\n\(final)")
                #expect(rows.count == 6, "the dots, the summary, EXIT=0 and nothing else:\n\(final)")
                if rows.count == 6 {
                    #expect(rows[4].wholeMatch(of: TmuxSession.summaryPattern(name: name)) != nil, "summary: \(rows[4])")
                    #expect(rows[5] == "EXIT=0", "\(final)")
                }
                #expect(final.rows.allSatisfy { displayWidthOf($0) <= 100 })
                #expect(FileManager.default.contents(atPath: dir + "/" + name).map { [UInt8]($0) } == payload)

                TmuxSession.printPane("dot progress at the end", final)
            }
        }
    }
}

/// Runs `body`, then `cleanup`, also when `body` throws (`defer` cannot await).
private func cleaningUp(_ cleanup: () async -> Void, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
}

/// Columns taken by `text` on screen; what these tests show is ASCII or single-width.
private func displayWidthOf(_ text: String) -> Int { text.count }

/// One progress bar row as seen on screen, e.g.
/// `data.bin  43% [=======>          ]   172.0 KiB   120.3 KiB/s  eta 1.9s`: the name at the start,
/// a percentage, a bar of `=` with a `>` tip between brackets, a size, a rate, and optionally the time.
private struct PaneBar {
    let percent: Int
    let width: Int

    nonisolated(unsafe) private static let pattern = #/
        (?<percent>\d{1,3})%\ \[(?<bar>[=>\ ]+)\]\s+
        \d+(?:\.\d+)?\ (?:B|KiB|MiB|GiB|TiB)\s+
        (?:--\.-\ B/s|\d+(?:\.\d+)?\ (?:B|KiB|MiB|GiB|TiB)/s)
        (?:\s+(?:eta|in)\ [0-9hms.\-]+)?
    /#

    /// The bar in `row`, if the whole row is a well-formed bar for the file `name`.
    init?(row: String, name: String) {
        guard row.hasPrefix(name), let space = row.dropFirst(name.count).first, space == " " else { return nil }
        let rest = row.dropFirst(name.count).drop { $0 == " " }
        guard let match = rest.wholeMatch(of: Self.pattern), let percent = Int(match.percent), percent <= 100 else { return nil }
        // `=` then at most one `>`, then only spaces: "==>   ", "=====", ">    ".
        let bar = match.bar
        let filled = bar.prefix { $0 == "=" }
        let tail = bar.dropFirst(filled.count)
        guard tail.isEmpty || (tail.first == ">" && tail.dropFirst().allSatisfy { $0 == " " }) else { return nil }
        self.percent = percent
        self.width = displayWidthOf(row)
    }

    /// A bar row whatever the name looks like (shortened, for instance).
    static func looksLikeABar(_ row: String) -> Bool {
        row.contains(#/\d+% \[[=> ]+\]/#)
    }

    /// The start of a bar that was wider than the window: the name and a percentage, but not a
    /// complete bar (tmux wrapped it when the window shrank).
    static func isHeadOfAWideBar(_ row: String, name: String) -> Bool {
        PaneBar(row: row, name: name) == nil && row.hasPrefix(name) && row.contains(#/\s\d{1,3}% \[/#)
    }
}

/// A line of wget's dots: `    50K .......... .......... ..  51%  104K 1s`, or the last one
/// `   150K .......... .....                                  100% 94.1K=1.9s`.
/// (A rate in bytes per second has a blank unit: `3.80  10h53m`.)
nonisolated(unsafe) private let dotLinePattern = #/\s*\d+K(?: \.{1,10})+\s+\d{1,3}%\s+\S+(?:\s+\S+|=\S+)?/#

/// The total line under several bars: `Total  1/3 files  312.5 KiB of 878.9 KiB  210.3 KiB/s  eta 2.7s`
/// (or `... 312.5 KiB  210.3 KiB/s  in 1.5s` while some length is unknown).
private struct PaneTotal {
    let done: Int
    let files: Int
    /// The sum of the lengths (`878.9 KiB`), when shown.
    let expected: String?

    nonisolated(unsafe) private static let pattern = #/
        Total\ \ (?<done>\d+)/(?<files>\d+)\ files\ \ \d+(?:\.\d+)?\ (?:B|KiB|MiB|GiB|TiB)
        (?:\ of\ (?<expected>\d+(?:\.\d+)?\ (?:B|KiB|MiB|GiB|TiB)))?
        \ \ (?:--\.-\ B/s|\d+(?:\.\d+)?\ (?:B|KiB|MiB|GiB|TiB)/s)
        \ \ (?:eta|in)\ [0-9hms.\-]+
    /#

    init?(row: String) {
        guard let match = row.wholeMatch(of: Self.pattern), let done = Int(match.done), let files = Int(match.files) else {
            return nil
        }
        self.done = done
        self.files = files
        self.expected = match.expected.map(String.init)
    }
}

/// A screen of a multi-file download read as swget's layout: permanent summary lines on top,
/// then the live block (one bar per running transfer, then the total line), then, at the end,
/// the batch line and the shell's EXIT=.
private struct BlockLayout {
    /// Files whose summary line is shown, top to bottom.
    var summaries: [String] = []
    var bars: [(name: String, bar: PaneBar)] = []
    var total: PaneTotal?
    /// Whatever does not fit the layout, described.
    var problems: [String] = []
    var isWellFormed: Bool { problems.isEmpty }
    /// All the transfers running, none done: one bar per file and the total line.
    var isFullBlock: Bool { isWellFormed && summaries.isEmpty && bars.count == fileCount && total != nil }
    private let fileCount: Int

    init(_ screen: TmuxScreen, names: [String]) {
        fileCount = names.count
        enum Part: Int { case summaries, block, total, end }
        var part = Part.summaries
        var totals = 0
        for row in screen.nonEmptyRows {
            if let name = names.first(where: { row.wholeMatch(of: TmuxSession.summaryPattern(name: $0)) != nil }) {
                if part != .summaries { problems.append("a summary below the block: \(row)") }
                if summaries.contains(name) { problems.append("a summary twice: \(row)") }
                summaries.append(name)
            } else if let found = names.lazy.compactMap({ name in PaneBar(row: row, name: name).map { (name: name, bar: $0) } }).first {
                let name = found.name
                if part.rawValue > Part.block.rawValue { problems.append("a bar below the total line: \(row)") }
                if bars.contains(where: { $0.name == name }) { problems.append("a second bar for \(name): \(row)") }
                if summaries.contains(name) { problems.append("a stale bar of a finished file: \(row)") }
                if displayWidthOf(row) > 100 { problems.append("a bar wider than the pane: \(row)") }
                part = .block
                bars.append(found)
            } else if let line = PaneTotal(row: row) {
                totals += 1
                if part.rawValue > Part.total.rawValue { problems.append("a total line below the end: \(row)") }
                if line.files != names.count { problems.append("a total line for \(line.files) files: \(row)") }
                if line.done != summaries.count { problems.append("\(line.done) files done, \(summaries.count) summaries: \(row)") }
                part = .total
                total = line
            } else if row.wholeMatch(of: TmuxSession.batchPattern(files: names.count)) != nil || row.hasPrefix("EXIT=") {
                if !bars.isEmpty || total != nil { problems.append("the end with the block still shown: \(row)") }
                part = .end
            } else {
                problems.append("an unexpected row: \(row)")
            }
        }
        if totals > 1 { problems.append("\(totals) total lines") }
        if !bars.isEmpty && total == nil { problems.append("bars without the total line") }
        if summaries.count + bars.count > names.count { problems.append("more rows than files") }
    }
}

/// What a pane showed at one moment: its rows, trailing spaces removed.
private struct TmuxScreen: CustomStringConvertible {
    let bytes: [UInt8]
    let rows: [String]

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var rows = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { String($0.reversed().drop { $0 == " " }.reversed()) }
        while rows.last?.isEmpty == true { rows.removeLast() }
        self.rows = rows
    }

    var nonEmptyRows: [String] { rows.filter { !$0.isEmpty } }
    var lastRow: String? { nonEmptyRows.last }
    /// The shell printed swget's exit status.
    var finished: Bool { rows.contains { $0.hasPrefix("EXIT=") } }

    /// Rows with any non-ASCII character, each followed by those characters' code points.
    var nonASCIIRows: [String] {
        rows.filter { !$0.unicodeScalars.allSatisfy(\.isASCII) }.map { row in
            let odd = row.unicodeScalars.filter { !$0.isASCII }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
            return row + "    <- " + odd.joined(separator: " ")
        }
    }

    var description: String {
        rows.isEmpty ? "(an empty screen)" : rows.map { "|" + $0 }.joined(separator: "\n")
    }
}

/// A private tmux server with one detached session, "t", running one shell command.
private struct TmuxSession {
    let tmux: String
    /// Holds the server's socket and serves as its HOME; removed by `close()`.
    let directory: String
    var socket: String { directory + "/socket" }

    /// A shell command for the pane: swget in `directory` with `locale` settings, then the shell
    /// prints `EXIT=<status>` and the pane stays open (killed with the server at the end; a
    /// pane left behind by a crashed test runner ends by itself within two minutes).
    static func swgetCommand(url: String, in directory: String, locale: [String]) -> String {
        swgetCommand(arguments: [url], in: directory, locale: locale)
    }

    /// The same with any arguments (options and URLs).
    static func swgetCommand(arguments: [String], in directory: String, locale: [String]) -> String {
        "cd \(quoted(directory)) || exit 1; env \(locale.joined(separator: " ")) timeout --foreground 300 "
            + "\(quoted(SwgetProcess.binaryPath)) \(arguments.map(quoted).joined(separator: " ")); echo EXIT=$?; exec sleep 300"
    }

    /// `'name' saved [390.6 KiB] in 3.4s (116.9 KiB/s)`
    static func summaryPattern(name: String) -> Regex<AnyRegexOutput> {
        let escaped = NSRegularExpression.escapedPattern(for: name)
        return try! Regex(#"'"# + escaped + #"' saved \[[^\]]+\] in \S+ \(.+/s\)"#)
    }

    /// `Downloaded 3 of 3 files: 878.9 KiB in 3.1s (283.5 KiB/s)`
    static func batchPattern(files: Int) -> Regex<AnyRegexOutput> {
        try! Regex(#"Downloaded \#(files) of \#(files) files: \d+(?:\.\d+)? \S+ in \S+ \(.+/s\)"#)
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Starts the server and the session: `width` x `height`, a size only `resize-window` changes.
    static func start(command: String, width: Int, height: Int) async throws -> TmuxSession {
        let tmux = try #require(SwgetProcess.findExecutable("tmux"), "tmux is needed (scripts/install-deps --test)")
        let session = TmuxSession(tmux: tmux, directory: try makeTemporaryDirectory(prefix: "swget-tmux"))
        do {
            try await session.run(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-s", "t", command,
                                   ";", "set-option", "-g", "window-size", "manual"])
        } catch {
            await session.close()
            throw error
        }
        return session
    }

    /// Runs a tmux command against this server; its standard output.
    @discardableResult
    func run(_ arguments: [String]) async throws -> [UInt8] {
        // The server inherits this environment: LANG=C.UTF-8 (tmux needs a UTF-8 locale), PATH, HOME.
        let result = try await SwgetProcess.run(
            executable: tmux, ["-S", socket, "-f", "/dev/null"] + arguments, in: directory,
            environment: ["HOME": directory], timeout: .seconds(20))
        guard result.status == 0 else {
            throw TmuxError.failed(arguments: arguments, status: result.status, stderr: result.stderr)
        }
        return result.stdout
    }

    func capture(joinWrappedLines: Bool = false) async throws -> TmuxScreen {
        TmuxScreen(bytes: try await run(["capture-pane", "-p", "-t", "t"] + (joinWrappedLines ? ["-J"] : [])))
    }

    func display(_ format: String) async throws -> String {
        String(decoding: try await run(["display-message", "-p", "-t", "t", format]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func resize(width: Int) async throws {
        try await run(["resize-window", "-t", "t", "-x", "\(width)"])
    }

    /// Captures the pane every 100 ms until `condition` holds; throws when `timeout` passes or
    /// swget exits first (unless that is what `condition` waits for).
    func waitForScreen(
        _ what: String, timeout: Duration = .seconds(30), until condition: (TmuxScreen) -> Bool
    ) async throws -> TmuxScreen {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let screen = try await capture()
            if condition(screen) { return screen }
            if screen.finished || clock.now >= deadline {
                throw TmuxError.notSeen(what: what, reason: screen.finished ? "swget exited first" : "timed out", last: screen)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Kills the server (and swget and the shell with it) and removes the socket's directory.
    func close() async {
        _ = try? await run(["kill-server"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Prints one screen, always, between markers (for reports).
    static func printPane(_ title: String, _ screen: TmuxScreen) {
        print("=== PANE: \(title) ===\n\(screen)\n=== END PANE ===")
    }

    /// Prints the screens when SWGET_TEST_SHOW_SCREENS is set.
    static func show(_ screens: KeyValuePairs<String, TmuxScreen>) {
        guard ProcessInfo.processInfo.environment["SWGET_TEST_SHOW_SCREENS"] != nil else { return }
        for (title, screen) in screens { print("\(title):\n\(screen)") }
    }
}

private enum TmuxError: Error, CustomStringConvertible {
    case failed(arguments: [String], status: Int32, stderr: String)
    case notSeen(what: String, reason: String, last: TmuxScreen)

    var description: String {
        switch self {
        case .failed(let arguments, let status, let stderr):
            return "tmux \(arguments.joined(separator: " ")) failed (\(status)): \(stderr)"
        case .notSeen(let what, let reason, let last):
            return "never saw \(what) (\(reason)); the last screen:\n\(last)"
        }
    }
}
