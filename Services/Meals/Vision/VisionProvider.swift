import Foundation

/// Something that turns a meal photo into the foods on it: the OpenAI-compatible client, or a fake in tests.
protocol VisionProvider: Sendable {
    /// Every distinct food and drink on `photo`; `hint` is the user's own words about the meal, if any, and `caller`
    /// the user who sent it, to whom the provider's failures on it are attributed. Throws `VisionError`.
    func recognise(_ photo: PhotoUpload, hint: String?, caller: UUID) async throws -> [RecognisedItem]
}
