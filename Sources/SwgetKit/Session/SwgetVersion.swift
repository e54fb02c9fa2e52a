/// The version of SwgetKit and the swget command.
public enum SwgetVersion {
    /// The version number ("0.1.0"), also sent in the default `User-Agent` (`swget/0.1.0`).
    public static let string = "0.1.0"
}
