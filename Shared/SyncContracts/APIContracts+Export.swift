// Sync shapes carry items as `JSONValue`, which lives with the request vocabulary in `APIContracts`: what imports
// SyncContracts sees it without importing `APIContracts` too.
@_exported import APIContracts
