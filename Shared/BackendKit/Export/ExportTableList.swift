import Hummingbird

/// The answer to `GET /api/export/<part>?format=csv` without `table`: the part's CSV files, in the order the
/// gateway puts them in the zip.
struct ExportTableList: ResponseEncodable {
    var part: String
    var tables: [String]
}
