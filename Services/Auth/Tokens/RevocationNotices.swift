import Logging
import PostgresSupport
import ServiceLifecycle

/// Tells the held revocation polls (`RevocationController`) that a revocation committed: listens on the
/// `auth_revocations` channel, which `RevocationRepository` notifies in the transaction that records one, so a poll
/// held by any auth replica wakes when any replica ends a session. Each (re)connection of the listener counts as a
/// notice too (what committed while nothing listened). At graceful shutdown the held polls are answered at once.
struct RevocationNotices: Service {
    static let channel = "auth_revocations"

    let client: PostgresPool
    let notices: NoticeBroadcast
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await client.listen(to: Self.channel, lostConnectionGrace: .seconds(1), logger: logger) { [notices] _ in notices.notify() }
        }
        notices.close()
    }
}
