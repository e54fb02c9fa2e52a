import Synchronization

/// The live block at the bottom of the terminal: one progress line per active transfer, plus a
/// total line when more than one file is expected. Permanent lines (summaries, messages) are
/// printed above it, so finished transfers scroll up and the block stays at the bottom.
///
/// Every change is drawn as one `write(2)`: the cursor returns to the block's first row, each
/// line is rewritten and cleared to its end, and anything below is cleared, so a shorter or
/// smaller block leaves no fragments. Redraws of progress are limited to 10 a second.
final class BarBlock: Sendable {
    struct Line {
        var name: String
        var received: Int64 = 0
        var expected: Int64?
        var resumedFrom: Int64 = 0
        var rate: Double = 0
        var start: Double
        /// A request body going out: shown, but not counted in the total line (which counts
        /// downloaded bytes).
        var isUpload = false
    }

    private struct State {
        var lines: [Int: Line] = [:]
        var order: [Int] = []
        /// Rows the block occupies on screen now (0: nothing drawn).
        var drawnRows = 0
        var lastDraw = -Double.infinity
        var filesTotal: Int
        var filesDone = 0
        var bytesDone: Int64 = 0
        var expectedDone: Int64? = 0
        var start: Double
        var totalRate = RateMeter()
        var lastTotal: Int64 = 0
    }

    private let state: Mutex<State>
    private let ascii: Bool
    private let width: @Sendable () -> Int
    private let output: @Sendable (String) -> Void

    init(filesTotal: Int, ascii: Bool, now: Double = Terminal.now(),
         width: @escaping @Sendable () -> Int = { Terminal.width }, output: @escaping @Sendable (String) -> Void = Terminal.write) {
        state = Mutex(State(filesTotal: filesTotal, start: now, totalRate: RateMeter(start: now)))
        self.ascii = ascii
        self.width = width
        self.output = output
    }

    /// Adds or updates a transfer's line; redraws unless one was drawn less than 0.1 s ago.
    func update(_ id: Int, at now: Double = Terminal.now(), force: Bool = false, _ change: (inout Line) -> Void) {
        state.withLock { s in
            var line = s.lines[id] ?? Line(name: "", start: now)
            change(&line)
            if s.lines[id] == nil { s.order.append(id) }
            s.lines[id] = line
            guard force || now - s.lastDraw >= 0.1 else { return }
            draw(&s, now: now, above: "")
        }
    }

    /// Removes a transfer's line and counts the file as done on the total line; `permanent` (a
    /// summary, or the final bar) is printed above the block in its place.
    func finish(_ id: Int, permanent: String?, at now: Double = Terminal.now()) {
        state.withLock { s in
            s.filesDone += 1
            if let line = s.lines.removeValue(forKey: id), !line.isUpload {
                s.bytesDone += line.received
                s.expectedDone = s.expectedDone.flatMap { done in line.expected.map { done + $0 } }
            }
            s.order.removeAll { $0 == id }
            draw(&s, now: now, above: permanent.map { $0 + "\n" } ?? "")
        }
    }

    /// Prints `text` (whole lines) above the block.
    func print(_ text: String, at now: Double = Terminal.now()) {
        state.withLock { s in draw(&s, now: now, above: text) }
    }

    /// The terminal changed size: draw again at once at the new width.
    func redraw(at now: Double = Terminal.now()) {
        state.withLock { s in draw(&s, now: now, above: "") }
    }

    /// Erases the block (before the process exits or prints something else).
    func clear() {
        state.withLock { s in
            guard s.drawnRows > 0 else { return }
            output(rewind(s.drawnRows) + "\u{1B}[J")
            s.drawnRows = 0
        }
    }

    private func draw(_ s: inout State, now: Double, above: String) {
        s.lastDraw = now
        let columns = max(10, width() - 1)  // never the last column: no automatic wrap
        var rows: [String] = []
        var received: Int64 = s.bytesDone
        var expected: Int64? = s.expectedDone
        let nameColumns = s.order.compactMap { s.lines[$0].map { displayWidth($0.name) } }.max()
        for id in s.order {
            guard let line = s.lines[id] else { continue }
            if !line.isUpload {
                received += line.received
                expected = expected.flatMap { total in line.expected.map { total + $0 } }
            }
            rows.append(ProgressLine(name: line.name, received: line.received, expected: line.expected,
                                     bytesPerSecond: line.rate, elapsed: now - line.start,
                                     resumedFrom: line.resumedFrom, ascii: ascii, nameColumns: nameColumns).render(width: columns))
        }
        if s.filesTotal > 1 {
            s.totalRate.add(bytes: received - s.lastTotal, at: now)
            s.lastTotal = received
            rows.append(TotalLine(filesDone: s.filesDone, filesTotal: s.filesTotal, received: received, expected: expected,
                                  bytesPerSecond: s.totalRate.bytesPerSecond, elapsed: now - s.start).render(width: columns))
        }
        if s.order.isEmpty && s.filesDone >= s.filesTotal { rows = [] }  // all done: no block left
        var text = rewind(s.drawnRows)
        if !above.isEmpty { text += "\u{1B}[J" + above }
        text += rows.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J"
        s.drawnRows = rows.count
        output(text)
    }

    /// Back to the first column of the block's first row.
    private func rewind(_ rows: Int) -> String {
        guard rows > 0 else { return "" }
        return rows > 1 ? "\r\u{1B}[\(rows - 1)A" : "\r"
    }
}
