import Hummingbird
import SyncContracts

/// The sync pages are answered as JSON by the services and the gateway (`SyncContracts` serves no HTTP itself).
extension SyncChangePage: ResponseEncodable {}
extension SyncConflictPage: ResponseEncodable {}
extension SyncImportResponse: ResponseEncodable {}
