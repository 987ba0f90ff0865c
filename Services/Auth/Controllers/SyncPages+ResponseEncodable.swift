import Hummingbird
import SyncContracts

/// The feed and conflict pages are answered as they are (SyncContracts knows nothing of HTTP).
extension SyncChangePage: ResponseEncodable {}

/// See `SyncChangePage`'s conformance.
extension SyncConflictPage: ResponseEncodable {}
