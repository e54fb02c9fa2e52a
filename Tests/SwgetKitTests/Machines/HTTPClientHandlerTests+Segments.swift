import Foundation
import NIOCore
import Testing
@testable import SwgetKit

extension HTTPClientHandlerTests {
    /// The first answer of a segmented download is parked while the download plans its
    /// segments; when the server cuts the connection meanwhile and the parked bytes already
    /// fill the first segment, the segment's sink is satisfied by the delivery of the parked
    /// parts. It must still end (the fault soak's hang: no event ever came, the segment worker
    /// waited until swget was killed).
    @Test("parked parts of a failed body that fill a segment end its sink")
    func parkedFailedBodyFillingASegment() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("swget-segment-\(UUID().uuidString)").path
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        let stream = try H.scenario { h -> AsyncStream<BodyEvent> in
            _ = h.send()
            h.read(H.ok)
            h.read(H.body("abcdef"))
            h.serverCloses()
            h.receiveBody(.file(fd: fd, progressInterval: .milliseconds(100), segment: SegmentWindow(start: 0, end: SegmentEnd(4))))
            return h.stream
        }
        let events = await bodyEvents(stream)
        #expect(events.last == "end(4,4,early)", "\(events)")
        var bytes = [UInt8](repeating: 0, count: 8)
        #expect(pread(fd, &bytes, 8, 0) == 4)
        #expect(bytes.prefix(4) == Array("abcd".utf8)[...])
    }
}
