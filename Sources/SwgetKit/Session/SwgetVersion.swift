/// The version of SwgetKit and the swget command.
public enum SwgetVersion {
    public static let string = "0.1.0"
}
