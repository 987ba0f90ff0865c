import SyncContracts

/// What a write to a day came to.
enum DayChangeOutcome: Sendable, Equatable {
    /// Applied: the day before and after, its new version and `weight.logged` committed.
    case applied(before: DailyMetrics, after: DailyMetrics)
    /// The same write was already applied (same stamp): nothing changed.
    case unchanged(DailyMetrics)
    /// Not applied, older than what is stored: the stored day and how the recorded conflict was resolved.
    case ignored(stored: DailyMetrics, resolution: SyncConflictResolution)
}
