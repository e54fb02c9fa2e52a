/// How URLs and messages write a host: an IPv6 address (told by its ':') in brackets, so that
/// its last group never reads as a port (`[::1]:8080`, not `::1:8080`).
public enum HostText {
    /// `host` as a URL's authority writes it.
    public static func url(_ host: String) -> String {
        host.containsByte(UInt8(ascii: ":")) ? "[\(host)]" : host
    }

    /// `host:port`, the host as a URL writes it.
    public static func endpoint(_ host: String, port: Int) -> String {
        "\(url(host)):\(port)"
    }
}
