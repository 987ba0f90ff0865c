// Every module that serves HTTP answers in the one error shape and reads the same cursors and calendar days: what
// imports ServiceDefaults sees `APIError`, `ListCursor`, `CalendarDate` and `Base64URL` without importing `APIContracts` too.
@_exported import APIContracts
