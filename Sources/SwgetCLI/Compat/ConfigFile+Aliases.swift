extension ConfigFile {
    /// How a wgetrc name that is not simply a long option maps onto swget's options.
    enum Alias: Sendable {
        /// Accepted and ignored, e.g. `robots = off` (swget does no recursive retrieval, so it
        /// never reads robots.txt).
        case ignored
        /// A value for the first of these options that exists (`http_user` → `--http-user`,
        /// else `--user`). Without a value, or when none exists, the key is looked up as usual.
        case value([String])
        /// A boolean: on gives the first existing flag of `on`, off the first of `off`. When
        /// the side asked for is empty but the other exists, it is the default: no token. When
        /// neither exists, the key is looked up as usual.
        case boolean(on: [String], off: [String])

        var takesValue: Bool {
            if case .value = self { return true }
            return false
        }
    }

    /// wget's well-known wgetrc names (wget manual, "Wgetrc Commands"), keyed as `normalized`
    /// compares them. Names equal to a long option once `-` and `_` are ignored (`tries`,
    /// `timeout`, `continue`, `timestamping`, `header`, `user_agent`, `output_document`,
    /// `cut_dirs`, `default_page`, `restrict_file_names`, `quiet`, `verbose`...) need no entry,
    /// nor do names whose option is `--no-NAME` (`cache = off` → `--no-cache`).
    static let aliases: [String: Alias] = [
        "robots": .ignored,
        "reclevel": .ignored,
        "useproxy": .boolean(on: [], off: ["no-proxy"]),
        "checkcertificate": .boolean(on: ["check-certificate"], off: ["no-check-certificate", "insecure"]),
        "addhostdir": .boolean(on: ["host-directories"], off: ["no-host-directories"]),
        "dirstruct": .boolean(on: ["force-directories"], off: ["no-directories"]),
        "htmlextension": .boolean(on: ["adjust-extension"], off: []),
        "httpuser": .value(["http-user", "user"]),
        "httppassword": .value(["http-password", "password"]),
        "httppasswd": .value(["http-password", "password"]),
        "proxyuser": .value(["proxy-user"]),
        "proxypassword": .value(["proxy-password"]),
        "proxypasswd": .value(["proxy-password"]),
        "httpproxy": .value(["http-proxy"]),
        "httpsproxy": .value(["https-proxy"]),
        "noproxy": .value(["no-proxy-domains", "noproxy"]),
        "dirprefix": .value(["directory-prefix"]),
        "logfile": .value(["output-file"]),
        "input": .value(["input-file"]),
        "cadirectory": .value(["ca-directory", "capath"]),
        "cacertificate": .value(["ca-certificate", "cacert"]),
        "certificate": .value(["certificate", "cert"]),
        "privatekey": .value(["private-key", "key"]),
        "loadcookies": .value(["load-cookies", "cookie"]),
        "savecookies": .value(["save-cookies", "cookie-jar"]),
        "maxredirect": .value(["max-redirect", "max-redirs"]),
    ]
}
