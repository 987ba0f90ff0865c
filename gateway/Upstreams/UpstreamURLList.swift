import Foundation

/// One upstream's addresses as the routes file writes them: one URL (`"http://127.0.0.1:8082"`) or an array of them
/// (`["http://10.0.0.5:8082", "http://10.0.0.6:8082"]`, replicas of one service).
struct UpstreamURLList: Decodable {
    var urls: [URL]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let texts: [String]
        if let one = try? container.decode(String.self) {
            texts = [one]
        } else {
            guard let several = try? container.decode([String].self) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "an upstream's address is a URL string or an array of URL strings")
            }
            texts = several
        }
        urls = try texts.map { text in
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a URL")
            }
            return url
        }
    }
}
