import ContractTesting
import Crypto
import Foundation
import Testing

/// The typed Swift client (`Clients/NutritionAIClient/Generated`) is generated once from the OpenAPI document and
/// committed; it must be generated again whenever the document changes.
@Suite("Generated client")
struct GeneratedClientTests {
    @Test("the committed client was generated from the current OpenAPI document")
    func upToDate() throws {
        let document = try Data(contentsOf: ContractDocuments.openAPI)
        let digest = SHA256.hash(data: document).map { String(format: "%02x", $0) }.joined()
        let stamp = try String(contentsOf: ContractDocuments.generatedClientStamp, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(stamp == digest, "gateway/Resources/openapi.json changed since the client was generated: run deploy/generate-client")
    }
}
