#if canImport(Glibc)
import Glibc
#endif
import NIOPosix

extension BodyStream {
    /// A single-use body read from an open file descriptor (standard input: `0`), in chunks of
    /// `chunkSize`, only as fast as the connection takes them: a chunk is read when the sender
    /// asks for the next one, so memory stays flat whatever comes down the pipe. The reads are
    /// blocking calls made on NIO's shared thread pool, never on Swift's cooperative threads.
    ///
    /// The length is known when the descriptor is a regular file (`swget -T - < file`: the
    /// bytes from the current offset to the end, sent with `Content-Length`); for a pipe or a
    /// terminal it is unknown and the body goes chunked. The descriptor is not closed.
    ///
    /// Such a body cannot be sent twice: a 307/308 redirect, a challenge answered after the body
    /// went, or a retry asks ``SessionDelegate/task(_:needNewBodyStreamFor:)`` and fails with
    /// ``SessionError/bodyNotReplayable`` without an answer.
    public static func reading(fileDescriptor descriptor: Int32, chunkSize: Int = BodyReader.defaultChunkSize) -> BodyStream {
        let size = max(1, min(chunkSize, BodyReader.maxChunkSize))
        let source = DescriptorSource(descriptor: descriptor, chunkSize: size)
        return .once(length: source.remainingLength, AsyncThrowingStream(unfolding: { try await source.next() }))
    }
}

/// Reads one descriptor chunk by chunk for ``BodyStream/reading(fileDescriptor:chunkSize:)``.
private struct DescriptorSource: Sendable {
    let descriptor: Int32
    let chunkSize: Int

    /// Bytes from the current offset to the end of a regular file; nil for anything else.
    var remainingLength: Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let offset = lseek(descriptor, 0, SEEK_CUR)
        guard offset >= 0 else { return nil }
        return max(0, Int64(info.st_size) - Int64(offset))
    }

    /// The next chunk, or nil at the end.
    func next() async throws -> [UInt8]? {
        let descriptor = self.descriptor, chunkSize = self.chunkSize
        let chunk = try await NIOThreadPool.singleton.runIfActive { () throws -> [UInt8] in
            try Self.read(descriptor, upTo: chunkSize)
        }
        return chunk.isEmpty ? nil : chunk
    }

    /// One blocking read of up to `count` bytes (empty at the end); waits for a descriptor
    /// left in non-blocking mode to become readable.
    private static func read(_ descriptor: Int32, upTo count: Int) throws -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            initialized = 0
            while true {
                let n = Glibc.read(descriptor, storage.baseAddress, count)
                if n >= 0 {
                    initialized = n
                    return
                }
                switch errno {
                case EINTR:
                    continue
                case EAGAIN:
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&poller, 1, -1)
                default:
                    failure = errno
                    return
                }
            }
        }
        if failure != 0 {
            throw BodyReadError(.read, path: descriptor == 0 ? "standard input" : "file descriptor \(descriptor)", errno: failure)
        }
        return bytes
    }
}
