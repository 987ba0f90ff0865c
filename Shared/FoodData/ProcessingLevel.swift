/// How far a food is from its natural state, after the NOVA classification (1 least, 4 most processed).
public enum ProcessingLevel: Int, Codable, Sendable, Comparable, CaseIterable {
    case unprocessed = 1
    case culinaryIngredient = 2
    case processed = 3
    case ultraProcessed = 4

    public static func < (lhs: ProcessingLevel, rhs: ProcessingLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// How users read it.
    public var label: String {
        switch self {
        case .unprocessed: "whole or minimally processed"
        case .culinaryIngredient: "a culinary ingredient"
        case .processed: "processed"
        case .ultraProcessed: "ultra-processed"
        }
    }
}
