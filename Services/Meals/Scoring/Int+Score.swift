extension Int {
    /// A 0-100 score from a rule's raw points: clamped first, so partial credit never leaves the scale, then rounded.
    init(score points: Double) {
        self = Int(Swift.min(100, Swift.max(0, points)).rounded())
    }
}
