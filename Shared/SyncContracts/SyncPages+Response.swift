import Hummingbird

/// The sync pages are answered as JSON by the services and the gateway.
extension SyncChangePage: ResponseEncodable {}
extension SyncConflictPage: ResponseEncodable {}
extension SyncImportResponse: ResponseEncodable {}
