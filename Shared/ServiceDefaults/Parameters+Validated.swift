import Foundation
import Hummingbird

extension Parameters {
    /// The path parameter `name` as a UUID (any case); 422 `validation_failed` naming it when it is not one, as a body's
    /// field would be.
    public func uuid(_ name: String) throws -> UUID {
        guard let value = get(name).flatMap(UUID.init(uuidString:)) else { throw APIError.invalid([name: "must be a UUID"]) }
        return value
    }

    /// The path parameter `name` as a calendar day; 422 `validation_failed` naming it when it is not a real
    /// `YYYY-MM-DD` day.
    public func calendarDate(_ name: String) throws -> CalendarDate {
        guard let value = get(name).flatMap(CalendarDate.init) else { throw APIError.invalid([name: "must be a date as YYYY-MM-DD"]) }
        return value
    }
}
