import Foundation
import Synchronization

/// The reports already computed for each user, with the profile they were computed from, kept while the user's
/// data version stays the same. An entry of an older version is never served: the first read at a newer version
/// replaces it. Bounded: at most `userCapacity` users (past that an arbitrary user's entry goes; a miss only costs
/// one computation) and `reportsPerUser` reports each (past that the user's reports start over).
final class ReportCache: Sendable {
    /// One user's profile and reports, all of the data version `version`.
    private struct Entry {
        var version: Int64
        var profile: TrendsProfile
        var reports: [String: any Sendable] = [:]
    }

    private let entries = Mutex<[UUID: Entry]>([:])
    let userCapacity: Int
    let reportsPerUser: Int

    init(userCapacity: Int, reportsPerUser: Int = 32) {
        self.userCapacity = max(1, userCapacity)
        self.reportsPerUser = max(1, reportsPerUser)
    }

    /// The user's profile as cached at exactly `version`; nil when absent or older.
    func profile(of userId: UUID, version: Int64) -> TrendsProfile? {
        entries.withLock { entries in
            guard let entry = entries[userId], entry.version == version else { return nil }
            return entry.profile
        }
    }

    /// Keeps the user's profile read at `version` (replacing an entry of an older version, reports and all).
    func storeProfile(_ profile: TrendsProfile, of userId: UUID, version: Int64) {
        entries.withLock { entries in
            if let entry = entries[userId], entry.version >= version { return }
            if entries[userId] == nil, entries.count >= userCapacity { entries.remove(at: entries.startIndex) }
            entries[userId] = Entry(version: version, profile: profile)
        }
    }

    /// The report kept under `key` at exactly `version`.
    func report<Report: Sendable>(_ type: Report.Type, of userId: UUID, key: String, version: Int64) -> Report? {
        entries.withLock { entries in
            guard let entry = entries[userId], entry.version == version else { return nil }
            return entry.reports[key] as? Report
        }
    }

    /// Keeps `report` under `key` when the user's entry is still at `version` (a newer entry keeps its own).
    func storeReport<Report: Sendable>(_ report: Report, of userId: UUID, key: String, version: Int64) {
        entries.withLock { entries in
            guard var entry = entries[userId], entry.version == version else { return }
            // Drop the reference while changing the entry, so the dictionary of reports is not copied.
            entries[userId] = nil
            if entry.reports[key] == nil, entry.reports.count >= reportsPerUser { entry.reports.removeAll() }
            entry.reports[key] = report
            entries[userId] = entry
        }
    }

    /// How many users have an entry.
    var userCount: Int { entries.withLock { $0.count } }
}
