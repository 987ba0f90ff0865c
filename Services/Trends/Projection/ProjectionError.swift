/// An event that passed the contract's decoding but cannot be projected.
enum ProjectionError: Error, CustomStringConvertible {
    case unreadableDate(String)
    case unknownDeletionReason(String)

    var description: String {
        switch self {
        case .unreadableDate(let text): "unreadable local date \(text)"
        case .unknownDeletionReason(let reason): "unknown meal.deleted reason \(reason)"
        }
    }
}
