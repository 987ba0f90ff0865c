/// What a custom meal holds, as recorded on the stored side of a conflict.
struct CustomMealState: Codable, Sendable {
    var name: String
    var mealType: String?
    var items: [ItemRequest]
}
