import Foundation
import ServiceDefaults

/// Reads the optional fields meal routes share and collects every problem, so one 422 names them all.
struct MealFieldReader {
    private(set) var problems: [String: String] = [:]
    let now: Date

    /// breakfast, lunch, dinner or snack.
    mutating func mealType(_ text: String?) -> MealType? {
        guard let text else { return nil }
        guard let value = MealType(rawValue: text) else {
            problems["mealType"] = "Use breakfast, lunch, dinner or snack."
            return nil
        }
        return value
    }

    /// full_meal, snack or quick_add.
    mutating func captureKind(_ text: String?) -> CaptureKind? {
        guard let text else { return nil }
        guard let value = CaptureKind(rawValue: text) else {
            problems["captureKind"] = "Use full_meal, snack or quick_add."
            return nil
        }
        return value
    }

    /// An ISO-8601 time no later than five minutes from now and not before 2000.
    mutating func eatenAt(_ text: String?) -> Date? {
        guard let text else { return nil }
        guard let date = RFC3339Timestamp.parse(text) else {
            problems["eatenAt"] = "Use an ISO-8601 time such as 2026-05-01T12:30:00Z."
            return nil
        }
        guard date <= now.addingTimeInterval(300), date >= Self.earliest else {
            problems["eatenAt"] = "Must be in the past (and after 2000)."
            return nil
        }
        return date
    }

    /// Free text up to `limit` characters; empty becomes nil.
    mutating func text(_ text: String?, field: String, limit: Int) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.count <= limit else {
            problems[field] = "At most \(limit) characters."
            return nil
        }
        return text
    }

    /// Tags as `MealTags` stores them; nil when absent (or invalid, with the problem noted).
    mutating func tags(_ tags: [String]?) -> [String]? {
        guard let tags else { return nil }
        switch MealTags.normalised(tags) {
        case .success(let tags): return tags
        case .failure(let problem):
            problems["tags"] = problem.text
            return nil
        }
    }

    /// Throws the collected problems as one 422.
    func check() throws {
        if !problems.isEmpty { throw APIError.invalid(problems) }
    }

    /// Adds problems found elsewhere (items) to the same answer.
    mutating func merge(_ error: APIError) {
        problems.merge(error.details) { first, _ in first }
    }

    private static let earliest = Date(timeIntervalSince1970: 946_684_800)
}
