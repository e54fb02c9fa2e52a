extension Double {
    /// One decimal place, without Foundation's formatters.
    var formatted1: String {
        let tenths = (self * 10).rounded()
        let whole = Int(tenths / 10), fraction = Int(abs(tenths.truncatingRemainder(dividingBy: 10)))
        return "\(whole).\(fraction)"
    }
}
