/// A piecewise-linear map from a measured value to points, flat before its first and after its last corner,
/// so every rule gives partial credit instead of jumping at a threshold.
struct ScoreCurve: Sendable {
    private let corners: [(x: Double, y: Double)]

    /// Corners in increasing `x`, e.g. `(0.10, 100), (0.35, 0)`.
    init(_ corners: (x: Double, y: Double)...) {
        precondition(!corners.isEmpty && zip(corners, corners.dropFirst()).allSatisfy { $0.x < $1.x }, "corners must increase in x")
        self.corners = corners
    }

    /// The points for `x`.
    func callAsFunction(_ x: Double) -> Double {
        guard let first = corners.first, let last = corners.last else { return 0 }
        if x <= first.x { return first.y }
        if x >= last.x { return last.y }
        for (left, right) in zip(corners, corners.dropFirst()) where x <= right.x {
            return left.y + (right.y - left.y) * (x - left.x) / (right.x - left.x)
        }
        return last.y
    }
}
