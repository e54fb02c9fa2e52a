import SwgetKit
#if canImport(Glibc)
import Glibc
#endif

/// What the command does after each URL besides the reporter's lines: `-s` puts the response
/// head in the saved file, `--etag-save` keeps the ETag, `--write-out` prints its format,
/// `--delete-after` removes the file. Returns the job's status, worse when the head or the tag
/// could not be saved.
struct JobReports: Sendable {
    let saveHeaders: Bool
    let writeOut: WriteOutFormat?
    let reporter: Reporter
    var conditions = ConditionOptions()
    var deletesAfter = false

    /// Nothing to do: no hook needed.
    var isEmpty: Bool { !saveHeaders && writeOut == nil && conditions.etagSave == nil && !deletesAfter }

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
        if conditions.etagSave != nil, status == .success, let download = job.task as? DownloadTask, !download.isNotModified,
           download.skippedExistingFile == nil, let response = download.response {
            do throws(TagFileError) {
                try conditions.saveEntityTag(of: response)
            } catch {
                status = .fileIO
                message = "--etag-save: " + error.description
                reporter.reportFailure(url: job.job.label, message: message ?? "", exitCode: status.rawValue)
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
        if deletesAfter, status == .success, let download = job.task as? DownloadTask, download.skippedExistingFile == nil {
            deleteFile(of: download, label: job.job.label)
        }
        return status
    }

    /// `--delete-after`: removes the file the download published (a regular file only: never
    /// standard output, `/dev/null` or another special file given with -O).
    private func deleteFile(of download: DownloadTask, label: String) {
        guard let path = download.location?.path(percentEncoded: false) else { return }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        if unlink(path) != 0 {
            reporter.warn("cannot delete '\(path)' after downloading it: \(String(cString: strerror(errno)))")
        } else {
            reporter.reportDeleted(path)
        }
    }
}
