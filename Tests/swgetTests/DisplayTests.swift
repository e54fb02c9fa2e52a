import Foundation
import Synchronization
import Testing
@testable import SwgetCLI

/// The bar block and the lines it draws, without a terminal: output is captured and replayed
/// on a tiny screen model that understands the few escape sequences swget uses.
@Suite("Progress display")
struct DisplayTests {
    /// A screen of rows that applies `\r`, `\n`, `ESC[K`, `ESC[J` and `ESC[nA` like a terminal.
    struct Screen {
        var rows: [String] = [""]
        var row = 0
        var column = 0

        mutating func apply(_ text: String) {
            var scalars = Array(text.unicodeScalars)[...]
            while let scalar = scalars.popFirst() {
                switch scalar {
                case "\r": column = 0
                case "\n":
                    row += 1
                    column = 0
                    if row == rows.count { rows.append("") }
                case "\u{1B}":
                    guard scalars.popFirst() == "[" else { continue }
                    var number = ""
                    while let next = scalars.first, next.properties.numericType != nil { number.unicodeScalars.append(next); scalars.removeFirst() }
                    switch scalars.popFirst() {
                    case "K": rows[row] = String(rows[row].prefix(column))
                    case "J":
                        rows[row] = String(rows[row].prefix(column))
                        rows.removeSubrange((row + 1)...)
                    case "A": row = max(0, row - (Int(number) ?? 1))
                    default: break
                    }
                default:
                    var line = Array(rows[row])
                    while line.count < column { line.append(" ") }
                    if column < line.count { line[column] = Character(scalar) } else { line.append(Character(scalar)) }
                    rows[row] = String(line)
                    column += 1
                }
            }
        }

        var text: [String] { rows.filter { !$0.isEmpty } }
    }

    final class Capture: Sendable {
        let screen = Mutex(Screen())
        func write(_ text: String) { screen.withLock { $0.apply(text) } }
        var lines: [String] { screen.withLock { $0.text } }
    }

    @Test func oneTransferRedrawsInPlaceAndLeavesItsSummary() {
        let capture = Capture()
        let block = BarBlock(filesTotal: 1, ascii: false, now: 0, width: { 60 }, output: capture.write)
        block.update(1, at: 0, force: true) { $0 = BarBlock.Line(name: "file.iso", expected: 1000, start: 0) }
        for step in 1...9 {
            block.update(1, at: Double(step)) { $0.received = Int64(step * 100); $0.rate = 100 }
        }
        #expect(capture.lines.count == 1)
        #expect(capture.lines[0].hasPrefix("file.iso"))
        #expect(capture.lines[0].contains("90%"))
        block.finish(1, permanent: "'./file.iso' saved [1000 B]", at: 10)
        #expect(capture.lines == ["'./file.iso' saved [1000 B]"])
    }

    @Test func severalTransfersShowOneLineEachAndATotal() {
        let capture = Capture()
        let block = BarBlock(filesTotal: 3, ascii: false, now: 0, width: { 80 }, output: capture.write)
        for id in 1...3 {
            block.update(id, at: 0, force: true) { $0 = BarBlock.Line(name: "part-\(id).bin", expected: 1000, start: 0) }
        }
        block.update(2, at: 1, force: true) { $0.received = 500 }
        var lines = capture.lines
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("part-1.bin") && lines[1].hasPrefix("part-2.bin") && lines[2].hasPrefix("part-3.bin"))
        #expect(lines[1].contains("50%"))
        #expect(lines[3].hasPrefix("Total  0/3 files"))
        // A finished transfer scrolls up as a permanent line; the block shrinks without leftovers.
        block.finish(2, permanent: "'./part-2.bin' saved", at: 2)
        lines = capture.lines
        #expect(lines.count == 4)
        #expect(lines[0] == "'./part-2.bin' saved")
        #expect(lines[1].hasPrefix("part-1.bin") && lines[2].hasPrefix("part-3.bin"))
        #expect(lines[3].hasPrefix("Total  1/3 files"))
        block.finish(1, permanent: "'./part-1.bin' saved", at: 3)
        block.finish(3, permanent: "'./part-3.bin' saved", at: 4)
        #expect(capture.lines == ["'./part-2.bin' saved", "'./part-1.bin' saved", "'./part-3.bin' saved"])
    }

    @Test func anUploadLineShowsTheBodyButNotInTheTotal() throws {
        let capture = Capture()
        let url = try #require(URL(string: "http://h/dav/big.iso")), root = try #require(URL(string: "http://host.example/"))
        let block = BarBlock(filesTotal: 2, ascii: false, now: 0, width: { 80 }, output: capture.write)
        block.update(1, at: 0, force: true) {
            $0 = BarBlock.Line(name: Reporter.uploadName(url, ascii: false), expected: 1000, start: 0,
                               isUpload: true)
        }
        block.update(2, at: 0, force: true) { $0 = BarBlock.Line(name: "other.bin", expected: 1000, start: 0) }
        block.update(1, at: 1, force: true) { $0.received = 500 }
        block.update(2, at: 1, force: true) { $0.received = 100 }
        let lines = capture.lines
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("\u{2191} big.iso") && lines[0].contains("50%"), "\(lines)")
        #expect(lines[2].hasPrefix("Total  0/2 files") && lines[2].contains("100 B"), "\(lines)")
        #expect(Reporter.uploadName(root, ascii: true) == "^ host.example")
    }

    @Test func messagesGoAboveTheBlock() {
        let capture = Capture()
        let block = BarBlock(filesTotal: 1, ascii: false, now: 0, width: { 60 }, output: capture.write)
        block.update(1, at: 0, force: true) { $0 = BarBlock.Line(name: "a", expected: nil, start: 0) }
        block.print("swget: retrying\n", at: 1)
        #expect(capture.lines.count == 2)
        #expect(capture.lines[0] == "swget: retrying")
        #expect(capture.lines[1].hasPrefix("a"))
    }

    @Test func redrawsAreLimitedToTenASecond() {
        let writes = Mutex(0)
        let block = BarBlock(filesTotal: 1, ascii: false, now: 0, width: { 60 }, output: { _ in writes.withLock { $0 += 1 } })
        block.update(1, at: 0, force: true) { $0 = BarBlock.Line(name: "a", expected: 100, start: 0) }
        for i in 1...100 { block.update(1, at: Double(i) * 0.01) { $0.received = Int64(i) } }  // one second
        #expect(writes.withLock { $0 } <= 12)
    }

    @Test(arguments: [30, 50, 80, 140])
    func linesNeverReachTheLastColumn(_ width: Int) {
        let capture = Capture()
        let block = BarBlock(filesTotal: 2, ascii: false, now: 0, width: { width }, output: capture.write)
        block.update(1, at: 0, force: true) { $0 = BarBlock.Line(name: "a-rather-long-name-for-a-file.tar.gz", expected: 1 << 30, start: 0) }
        block.update(1, at: 1, force: true) { $0.received = 1 << 29; $0.rate = 1_048_576 }
        for line in capture.lines { #expect(displayWidth(line) < width, "\(line)") }
    }

    @Test func resumedBytesAreDrawnDistinctly() {
        let line = ProgressLine(name: "f", received: 800, expected: 1000, bytesPerSecond: 10, elapsed: 1, resumedFrom: 500)
        let text = line.render(width: 60)
        let bar = text.split(separator: "[")[1].split(separator: "]")[0]
        #expect(bar.hasPrefix("+"))
        #expect(bar.contains("="))
        #expect(bar.filter { $0 == "+" }.count < bar.filter { $0 == "+" || $0 == "=" }.count)
    }

    @Test func asciiModePrintsOnlyASCII() {
        let text = ProgressLine(name: "日本語の長いファイル名-とても長い名前.iso", received: 10, expected: 100, bytesPerSecond: 1,
                                elapsed: 1, ascii: true).render(width: 50)
        #expect(text.unicodeScalars.allSatisfy { $0.isASCII }, "\(text)")
        #expect(shorten("a-very-long-file-name.iso", to: 11, ascii: true) == "a-ver~e.iso")
    }

    @Test func totalLine() {
        let known = TotalLine(filesDone: 3, filesTotal: 10, received: 1 << 30, expected: 4 << 30, bytesPerSecond: 1_048_576, elapsed: 3).render(width: 100)
        #expect(known == "Total  3/10 files  1.00 GiB of 4.00 GiB  1.00 MiB/s  eta 51m12s")
        let unknown = TotalLine(filesDone: 0, filesTotal: 2, received: 1024, expected: nil, bytesPerSecond: 0, elapsed: 2).render(width: 100)
        #expect(unknown == "Total  0/2 files  1.00 KiB  --.- B/s  in 2.0s")
    }

    @Test(arguments: [
        ("bar", ProgressChoice.bar(force: false)), ("bar:force", .bar(force: true)), ("BAR:FORCE", .bar(force: true)),
        ("dot", .dot(.default)), ("dot:binary", .dot(.binary)), ("dot:mega", .dot(.mega)), ("dot:giga", .dot(.giga)),
        ("json", .json), ("none", .none),
    ] as [(String, ProgressChoice)])
    func progressChoices(_ text: String, _ expected: ProgressChoice) {
        #expect(ProgressChoice(text) == expected)
    }

    @Test(arguments: ["", "bars", "dot:tiny", "json:x", "none:"])
    func badProgressChoices(_ text: String) {
        #expect(ProgressChoice(text) == nil)
    }
}
