/// A part answered 200 with no body: the JSON document would have no value under its key.
struct ExportPartEmpty: Error {}
