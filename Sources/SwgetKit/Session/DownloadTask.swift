import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// A task whose body streams into a file: the counterpart of NSURLSessionDownloadTask (with
/// NSURLDownload's destination rules). Bytes go to `NAME.part` beside the final name and are
/// renamed to `NAME` only when the body is complete; on failure the `.part` stays.
public final class DownloadTask: SessionTask, @unchecked Sendable {
    public let destination: DownloadDestination

    private struct Outcome {
        var location: String?
        var skippedExistingFile: String?
        var partPath: String?
    }

    private let outcome = NIOLockedValueBox(Outcome())

    init(session: Session, identifier: Int, request: Request, destination: DownloadDestination) {
        self.destination = destination
        super.init(session: session, identifier: identifier, request: request)
    }

    /// Where the finished file was published, once the task succeeded ("-" for stdout).
    public var location: String? { outcome.withLockedValue { $0.location } }
    /// Set instead of ``location`` when the collision policy was ``DownloadDestination/Collision/skip``
    /// and the file already existed: the task succeeded without downloading.
    public var skippedExistingFile: String? { outcome.withLockedValue { $0.skippedExistingFile } }
    /// The `.part` file a failed task left behind, if any.
    public var partialFile: String? { outcome.withLockedValue { $0.partPath } }

    /// An open destination: either a reserved `.part` to publish, or a descriptor written in place.
    private enum Sink {
        case part(DestinationFile)
        case inPlace(fd: Int32, path: String, closeWhenDone: Bool)

        var fd: Int32 {
            switch self {
            case .part(let file): file.fileDescriptor
            case .inPlace(let fd, _, _): fd
            }
        }

        var visiblePath: String {
            switch self {
            case .part(let file): file.partPath
            case .inPlace(_, let path, _): path
            }
        }
    }

    override func receiveBody(of response: Response, framing: ResponseFraming, on connection: HTTPConnection) async throws(SessionError) {
        let sink: Sink
        do {
            guard let opened = try openDestination(for: response) else {
                session.pool.release(connection, reusable: false)
                return
            }
            sink = opened
        } catch {
            session.pool.release(connection, reusable: false)
            throw error
        }
        await session.delegate?.downloadTask(self, didCreateDestinationAt: sink.visiblePath)

        var failure: SessionError?
        var total: Int64 = 0
        let expected = response.expectedContentLength
        let stream = connection.receiveBody(.file(fd: sink.fd, progressInterval: .milliseconds(100)))
        for await event in stream {
            switch event {
            case .progress(let written):
                let delta = written - total
                total = written
                mutable.withLockedValue { $0.bytesReceived = written }
                await session.delegate?.downloadTask(self, didWriteData: delta, totalBytesWritten: written,
                                                     totalBytesExpectedToWrite: expected)
            case .end(let bytes):
                total = bytes
            case .failed(let error):
                failure = error
            case .data:
                break
            }
        }
        session.pool.release(connection, reusable: failure == nil && framing.keepAlive)
        if failure == nil, let reason = mutable.withLockedValue({ $0.cancellation }) { failure = reason }
        if let failure {
            abandon(sink, bytesWritten: total)
            throw failure
        }
        let location = try publish(sink)
        outcome.withLockedValue { $0.location = location }
        await session.delegate?.downloadTask(self, didFinishDownloadingTo: location)
    }

    /// Opens where the body goes; nil when the collision policy says to skip.
    private func openDestination(for response: Response) throws(SessionError) -> Sink? {
        do {
            switch destination.target {
            case .standardOutput:
                return .inPlace(fd: STDOUT_FILENO, path: "-", closeWhenDone: false)
            case .file(let path):
                if let fd = try Self.openExistingSpecialFile(path) {
                    return .inPlace(fd: fd, path: path, closeWhenDone: true)
                }
                let (directory, name) = Self.split(path)
                guard let file = try DestinationFile.reserve(directory: directory, name: name, policy: .overwrite) else {
                    throw SessionError.fileIO.with("cannot create '\(path)'")
                }
                return .part(file)
            case .directory(let directory):
                let name = response.suggestedFilename(useContentDisposition: destination.useContentDisposition,
                                                      trustServerNames: destination.trustServerNames)
                let policy: DestinationFile.Policy = destination.collision == .skip ? .noClobber : .unique
                guard let file = try DestinationFile.reserve(directory: directory, name: name, policy: policy) else {
                    outcome.withLockedValue { $0.skippedExistingFile = Self.join(directory, name) }
                    return nil
                }
                return .part(file)
            }
        } catch let error as DestinationError {
            throw SessionError.fileIO.with(error.description)
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError.fileIO.with("\(error)")
        }
    }

    private func publish(_ sink: Sink) throws(SessionError) -> String {
        switch sink {
        case .part(let file):
            do {
                return try file.publish()
            } catch {
                outcome.withLockedValue { $0.partPath = file.partPath }
                throw SessionError.fileIO.with(error.description)
            }
        case .inPlace(let fd, let path, let closeWhenDone):
            if closeWhenDone { close(fd) }
            return path
        }
    }

    private func abandon(_ sink: Sink, bytesWritten: Int64) {
        switch sink {
        case .part(let file):
            file.abandon()
            if bytesWritten == 0 {
                unlink(file.partPath)  // nothing worth resuming
            } else {
                outcome.withLockedValue { $0.partPath = file.partPath }
            }
        case .inPlace(let fd, _, let closeWhenDone):
            if closeWhenDone { close(fd) }
        }
    }

    /// `-O /dev/null` and friends: an existing path that is not a regular file is written in
    /// place (renaming over a device or FIFO would replace it).
    private static func openExistingSpecialFile(_ path: String) throws(SessionError) -> Int32? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG else { return nil }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw SessionError.fileIO.with("'\(path)' is a directory")
        }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SessionError.fileIO.with("cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        return fd
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
