import Foundation
import ServiceDefaults

/// A straight line through weigh-ins: least squares on the weigh-ins that lie near a robust first line.
///
/// The first line is Theil-Sen's (the median of the slopes between every pair of weigh-ins), which a few wild
/// values cannot tilt. Weigh-ins further from it than 3.5 robust standard deviations (1.4826 × the median absolute
/// residual), and at least 1 kg, are set aside as mistakes (a typo, pounds entered as kg, a different scale); the
/// 1 kg floor keeps ordinary water swings in. Least squares on the rest gives the slope and its standard error.
///
/// The standard error assumes independent scatter around a straight line. Real water weight swings over
/// several days (salt, carbohydrate, cycle), so it understates the doubt somewhat; the scatter is taken as at
/// least 0.25 kg, so a handful of weigh-ins that happen to lie on a line cannot claim precision.
struct WeightLineFit: Sendable {
    static let outlierDeviations = 3.5
    static let outlierFloorKg = 1.0
    static let minimumScatterKg = 0.25

    /// The day `x = 0` of the line.
    let origin: CalendarDate
    let slopeKgPerDay: Double
    /// The line's value at `origin`.
    let interceptKg: Double
    /// Standard error of the slope, kg a day.
    let slopeStandardError: Double
    /// Scatter of the weigh-ins used around the line (standard deviation, at least `minimumScatterKg`).
    let scatterKg: Double
    let usedWeighIns: Int
    let ignoredWeighIns: Int

    /// The fit of `weighIns` (one per day); nil with fewer than 3 weigh-ins left after setting mistakes aside.
    init?(_ weighIns: [(date: CalendarDate, kg: Double)], origin: CalendarDate) {
        let points = weighIns.map { (x: Double(origin.days(until: $0.date)), y: $0.kg) }
        guard points.count >= 3, let robustSlope = Self.theilSenSlope(points) else { return nil }
        let robustIntercept = Self.median(points.map { $0.y - robustSlope * $0.x })
        let residuals = points.map { abs($0.y - robustIntercept - robustSlope * $0.x) }
        let limit = max(Self.outlierDeviations * 1.4826 * Self.median(residuals), Self.outlierFloorKg)
        let kept = zip(points, residuals).filter { $0.1 <= limit }.map(\.0)
        guard kept.count >= 3 else { return nil }

        let n = Double(kept.count)
        let meanX = kept.reduce(0) { $0 + $1.x } / n
        let meanY = kept.reduce(0) { $0 + $1.y } / n
        let sxx = kept.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        guard sxx > 0 else { return nil }
        let slope = kept.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) } / sxx
        let intercept = meanY - slope * meanX
        let squares = kept.reduce(0) { $0 + pow($1.y - intercept - slope * $1.x, 2) }
        let scatter = max((squares / (n - 2)).squareRoot(), Self.minimumScatterKg)

        self.origin = origin
        self.slopeKgPerDay = slope
        self.interceptKg = intercept
        self.slopeStandardError = scatter / sxx.squareRoot()
        self.scatterKg = scatter
        self.usedWeighIns = kept.count
        self.ignoredWeighIns = points.count - kept.count
    }

    /// The line's value on `date`.
    func kg(on date: CalendarDate) -> Double { interceptKg + slopeKgPerDay * Double(origin.days(until: date)) }

    /// Degrees of freedom of the slope's standard error.
    var degreesOfFreedom: Int { usedWeighIns - 2 }

    private static func theilSenSlope(_ points: [(x: Double, y: Double)]) -> Double? {
        var slopes: [Double] = []
        for i in points.indices {
            for j in points.indices where j > i && points[j].x != points[i].x {
                slopes.append((points[j].y - points[i].y) / (points[j].x - points[i].x))
            }
        }
        return slopes.isEmpty ? nil : median(slopes)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
