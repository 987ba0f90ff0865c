import Foundation

/// A meal's tags (NutritionAI's "meal tags"): up to 10, each 1 to 32 characters after trimming, in lower case,
/// without repeats, kept in the order given.
enum MealTags {
    static let maximumCount = 10
    static let maximumLength = 32

    /// The tags as stored, or what is wrong with them in words for the `tags` field.
    static func normalised(_ tags: [String]) -> Result<[String], Problem> {
        var kept: [String] = []
        for tag in tags {
            let tag = tag.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            guard (1...maximumLength).contains(tag.count) else { return .failure(Problem(text: "Each tag has 1 to \(maximumLength) characters.")) }
            if !kept.contains(tag) { kept.append(tag) }
        }
        guard kept.count <= maximumCount else { return .failure(Problem(text: "At most \(maximumCount) tags.")) }
        return .success(kept)
    }

    /// One tag as a filter (`GET /api/meals?tag=`), normalised as stored; nil when it cannot be one.
    static func filter(_ tag: String) -> String? {
        guard case .success(let tags) = normalised([tag]) else { return nil }
        return tags.first
    }

    /// Why tags were refused.
    struct Problem: Error {
        var text: String
    }
}
