import Hummingbird
import SyncContracts

// The sync kit's pages are answered as JSON by the metrics routes.
extension SyncChangePage: ResponseGenerator, ResponseEncodable {}
extension SyncConflictPage: ResponseGenerator, ResponseEncodable {}
