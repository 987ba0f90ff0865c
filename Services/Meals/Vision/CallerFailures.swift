import Foundation

/// The vision breaker's memory of each user's own failures: a user whose photos failed `threshold` times in a row
/// (each within `window` of the one before) is held back for `openDuration`, and only that user. Only users with
/// failures are remembered, at most `capacity` of them; when full, those quiet for longer than `window` are forgotten
/// first, then the one quiet the longest.
struct CallerFailures: Sendable {
    private struct Entry {
        var failures: Int
        var lastFailure: ContinuousClock.Instant
        var heldBackUntil: ContinuousClock.Instant?
    }

    let threshold: Int
    let window: Duration
    let openDuration: Duration
    let capacity: Int
    private var entries: [UUID: Entry] = [:]

    /// Nobody held back yet; `threshold` and `capacity` are at least 1.
    init(threshold: Int, window: Duration, openDuration: Duration, capacity: Int = 10_000) {
        self.threshold = max(1, threshold)
        self.window = window
        self.openDuration = openDuration
        self.capacity = max(1, capacity)
    }

    /// How long `caller` must still wait at `instant`, or nil when their photo may go to the provider. Once the wait is
    /// over, the next failure holds them back again at once (their own half-open trial); a success forgets them.
    mutating func wait(of caller: UUID, at instant: ContinuousClock.Instant) -> Duration? {
        guard var entry = entries[caller], let until = entry.heldBackUntil else { return nil }
        if instant < until { return instant.duration(to: until) }
        entry.heldBackUntil = nil
        entry.failures = threshold - 1
        entry.lastFailure = instant
        entries[caller] = entry
        return nil
    }

    /// The provider answered `caller` properly: their failures are forgotten.
    mutating func succeeded(_ caller: UUID) {
        entries[caller] = nil
    }

    /// Counts a failure of `caller` at `instant`, holding them back once `threshold` failures are in a row.
    mutating func failed(_ caller: UUID, at instant: ContinuousClock.Instant) {
        var entry = entries[caller] ?? Entry(failures: 0, lastFailure: instant)
        // A call that started before the user was held back and failed after: already counted as far as it matters.
        guard entry.heldBackUntil == nil else { return }
        if entry.lastFailure.duration(to: instant) > window { entry.failures = 0 }
        entry.failures += 1
        entry.lastFailure = instant
        if entry.failures >= threshold { entry.heldBackUntil = instant + openDuration }
        store(entry, for: caller, at: instant)
    }

    /// Holds `caller` back for `openDuration` from `instant` at once: their trial of the half-open server circuit failed.
    mutating func holdBack(_ caller: UUID, at instant: ContinuousClock.Instant) {
        store(Entry(failures: threshold, lastFailure: instant, heldBackUntil: instant + openDuration), for: caller, at: instant)
    }

    private mutating func store(_ entry: Entry, for caller: UUID, at instant: ContinuousClock.Instant) {
        if entries[caller] == nil && entries.count >= capacity {
            entries = entries.filter { _, old in
                old.lastFailure.duration(to: instant) <= window || old.heldBackUntil.map { instant < $0 } == true
            }
            if entries.count >= capacity, let quietest = entries.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key {
                entries[quietest] = nil
            }
        }
        entries[caller] = entry
    }
}
