import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// What the command does after each URL besides the reporter's lines: `-s` puts the response
/// head in the saved file, `--write-out` prints its format. Returns the job's status, worse
/// when the head could not be saved.
struct JobReports: Sendable {
    let saveHeaders: Bool
    let writeOut: WriteOutFormat?
    let reporter: Reporter

    /// Nothing to do: no hook needed.
    var isEmpty: Bool { !saveHeaders && writeOut == nil }

    func finished(_ job: Batch.Finished) async -> ExitStatus {
        var status = job.status
        var message = job.message
        if saveHeaders, status == .success, let download = job.task as? DownloadTask, download.skippedExistingFile == nil,
           let response = download.response, let location = download.location {
            let path = location.path(percentEncoded: false)
            if path != "/dev/stdout" {
                do {
                    try SaveHeaders.prepend(SaveHeaders.block(response), to: path)
                } catch {
                    status = .fileIO
                    message = error.description
                    reporter.reportFailure(url: job.job.label, message: error.description, exitCode: status.rawValue)
                }
            }
        }
        if let writeOut {
            let values = WriteOutValues(task: job.task, url: job.job.label, index: job.index, exitCode: status.rawValue,
                                        errorMessage: message)
            for chunk in writeOut.render(values) {
                switch chunk.stream {
                case .standardOutput: _ = SaveHeaders.writeAll(STDOUT_FILENO, Array(chunk.text.utf8))
                case .standardError: Terminal.write(chunk.text)
                }
            }
        }
        return status
    }
}
