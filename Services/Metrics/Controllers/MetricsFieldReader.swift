import Foundation
import ServiceDefaults
import SyncContracts

/// Reads the fields of a metrics request, collecting every problem so one 422 names them all.
struct MetricsFieldReader {
    let profile: MetricsProfile
    let now: Date
    var problems: [String: String] = [:]

    init(profile: MetricsProfile, now: Date) {
        self.profile = profile
        self.now = now
    }

    /// The day of a measurement: today in the user's zone when absent; never in the future.
    mutating func date(_ text: String?) -> CalendarDate? {
        guard let text else { return profile.today(now: now) }
        guard let date = CalendarDate(text) else {
            problems["date"] = "must be a date as YYYY-MM-DD"
            return nil
        }
        guard date <= profile.latestAllowedDate(now: now) else {
            problems["date"] = "Cannot be in the future."
            return nil
        }
        return date
    }

    /// `kg` or `lbs`; the user's preferred unit when absent.
    mutating func unit(_ text: String?) -> WeightUnit {
        guard let text else { return profile.weightUnit }
        guard let unit = WeightUnit(rawValue: text) else {
            problems["unit"] = "Use kg or lbs."
            return profile.weightUnit
        }
        return unit
    }

    /// The weight in kilograms: 20-500 kg, or 44.1-1102.3 lbs, checked in the unit it was given in.
    mutating func weight(_ value: Double, unit: WeightUnit) -> Double? {
        let limits = unit == .kg ? BodyMetricLimits.weightKg : BodyMetricLimits.weightLbs
        guard value.isFinite, limits.contains(value) else {
            problems["weight"] = unit == .kg ? "Use 20 to 500 kg." : "Use 44.1 to 1102.3 lbs."
            return nil
        }
        return unit.kilograms(value)
    }

    /// Blood ketones within 0-10 mmol/L.
    mutating func ketones(_ value: Double) -> Double? {
        guard value.isFinite, BodyMetricLimits.ketones.contains(value) else {
            problems["level"] = "Use 0 to 10 mmol/L."
            return nil
        }
        return value
    }

    /// A water entry in whole millilitres, 1 to 10000.
    mutating func water(_ value: Double) -> Int? {
        let limits = BodyMetricLimits.waterMillilitres
        guard value.isFinite, value.rounded() == value, value >= Double(limits.lowerBound), value <= Double(limits.upperBound) else {
            problems["millilitres"] = "Use whole millilitres, \(limits.lowerBound) to \(limits.upperBound)."
            return nil
        }
        return Int(value)
    }

    /// The notes trimmed; an empty text clears them (nil: leave as they are).
    mutating func notes(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= BodyMetricLimits.notesLength else {
            problems["notes"] = "Use at most \(BodyMetricLimits.notesLength) characters."
            return nil
        }
        return trimmed
    }

    /// The write's last-write-wins stamp from its `modifiedAt` (ISO 8601; the server's time when absent) and its
    /// own bytes (the tiebreak).
    mutating func stamp(_ modifiedAt: String?, body: some Sequence<UInt8>) -> WriteStamp? {
        do {
            return try WriteStamp.of(modifiedAt: modifiedAt, body: body, now: now)
        } catch let error as APIError {
            problems.merge(error.details) { first, _ in first }
            return nil
        } catch {
            problems["modifiedAt"] = "Use an ISO 8601 time such as 2026-05-01T12:30:00.000Z."
            return nil
        }
    }

    /// The last `days` days ending today in the user's zone (`days` 1-366, 30 when absent).
    mutating func dayRange(_ text: String?, defaultDays: Int) -> ClosedRange<CalendarDate> {
        let today = profile.today(now: now)
        var count = defaultDays
        if let text {
            if let value = Int(text), BodyMetricLimits.days.contains(value) {
                count = value
            } else {
                problems["days"] = "Use \(BodyMetricLimits.days.lowerBound) to \(BodyMetricLimits.days.upperBound)."
            }
        }
        return today.adding(days: 1 - count)...today
    }

    /// 422 naming every invalid field.
    func check() throws {
        guard problems.isEmpty else { throw APIError.invalid(problems) }
    }
}
