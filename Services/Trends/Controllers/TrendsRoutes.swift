import BackendKit
import Foundation
import Hummingbird
import ServiceDefaults

/// Every route of the trends service but the export part, wired from a store (the composition root's in PostgreSQL,
/// router tests' in memory): the trends report, the expenditure estimate and the dashboard, the cached ones served
/// from one `ReadyReports`.
struct TrendsRoutes {
    let store: any TrendsStore
    /// How many users' ready reports are kept (`TRENDS_REPORTS_CACHE_USERS`).
    let reportCacheUsers: Int
    /// Signs the history's thumbnail URLs; nil when trends has no photo URL key.
    let photos: PhotoURLSigner?
    let now: @Sendable () -> Date

    func addRoutes(to router: Router<AppRequestContext>) {
        let reports = ReadyReports(store: store, cache: ReportCache(userCapacity: reportCacheUsers))
        TrendsController(reports: reports, store: store, now: now).addRoutes(to: router)
        ExpenditureController(store: store, now: now).addRoutes(to: router)
        DashboardController(reports: reports, store: store, photos: photos, now: now).addRoutes(to: router)
    }
}
