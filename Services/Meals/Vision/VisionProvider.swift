import Foundation

/// Something that reads photos for meals: the OpenAI-compatible client (tests run it against local chat-completions
/// servers).
protocol VisionProvider: Sendable {
    /// The model it asks, by the name the price table (`MEALS_VISION_PRICES`) knows it by.
    var model: String { get }

    /// Every distinct food and drink on `photo`; `hint` is the user's own words about the meal, if any, and `caller`
    /// the user who sent it, to whom the provider's failures on it are attributed. Each answer of the provider and the
    /// tokens it reported are added to `tally`, also when the photo then fails. Throws `VisionError`.
    func recognise(_ photo: PhotoUpload, hint: String?, caller: UUID, tally: TokenTally) async throws -> [RecognisedItem]

    /// The nutrition-facts panel on `photo`, made whole (`LabelReading`); otherwise as `recognise`, throwing
    /// `VisionError.unreadableLabel` when the photo holds no legible label.
    func readLabel(_ photo: PhotoUpload, hint: String?, caller: UUID, tally: TokenTally) async throws -> LabelReading
}
