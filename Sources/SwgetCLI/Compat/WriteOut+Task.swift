import SwgetKit

extension WriteOutValues {
    /// The values of one finished job: its task's response and metrics (``TaskMetrics``), the
    /// URL as given, its position in the list, and how the command judged it.
    init(task: SessionTask?, url: String, index: Int, exitCode: Int32, errorMessage: String?) {
        self.init()
        self.url = URLDisplay.maskedString(url)
        urlNumber = index
        self.exitCode = Int(exitCode)
        self.errorMessage = errorMessage
        guard let task else { return }
        let request = task.currentRequest
        urlEffective = URLDisplay.maskedString(request.url.absoluteString)
        method = request.method
        scheme = request.url.scheme?.lowercased()
        if let download = task as? DownloadTask, let location = download.location {
            let path = location.path(percentEncoded: false)
            filenameEffective = path == "/dev/stdout" ? "-" : Terminal.relativePath(path)
        }
        if let response = task.response {
            httpCode = response.statusCode
            contentType = response.headers["Content-Type"]
            httpVersion = Self.version(response.httpVersion)
            headers = response.headers.map { Header(name: $0.name, value: $0.value) }
            if (300..<400).contains(response.statusCode) { redirectURL = response.headers["Location"] }
        }
        let metrics = task.metrics
        sizeDownload = metrics.countOfResponseBodyBytesReceived
        sizeHeader = metrics.countOfResponseHeaderBytesReceived
        numRedirects = metrics.redirectCount
        numConnects = metrics.connectionsOpened
        numRetries = metrics.retryCount
        remoteIP = metrics.remoteAddress
        remotePort = metrics.remotePort ?? 0
        localIP = metrics.localAddress
        localPort = metrics.localPort ?? 0
        timeTotal = metrics.elapsed(\.taskEnd) ?? .zero
        timeNamelookup = metrics.elapsed(\.domainLookupEnd) ?? .zero
        // curl's times are cumulative: a phase that did not happen (TLS over http, a reused
        // connection) shows the time of the phase before it.
        timeConnect = metrics.elapsed(\.connectEnd) ?? timeNamelookup
        timeAppconnect = metrics.elapsed(\.secureConnectionEnd) ?? .zero
        timePretransfer = metrics.elapsed(\.requestStart) ?? max(timeConnect, timeAppconnect)
        timeStarttransfer = metrics.elapsed(\.responseStart) ?? .zero
        timeRedirect = metrics.elapsed(\.redirectEnd) ?? .zero
        let seconds = Double(timeTotal.components.seconds) + Double(timeTotal.components.attoseconds) / 1e18
        if seconds > 0 { speedDownload = Int64(Double(sizeDownload) / seconds) }
    }

    /// curl's `http_version`: `1.1`, `2`, from `HTTP/1.1`, `HTTP/2.0`.
    static func version(_ text: String) -> String? {
        guard text.hasPrefix("HTTP/") else { return nil }
        let number = String(text.dropFirst(5))
        return number.hasSuffix(".0") && number != "1.0" ? String(number.dropLast(2)) : number
    }
}
