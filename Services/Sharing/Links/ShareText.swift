/// The ready-made message of a share: "I had [meal] with [calories] calories! [link]".
enum ShareText {
    static func make(title: String, calories: Double?, url: String) -> String {
        guard let calories else { return "I had \(title)! \(url)" }
        return "I had \(title) with \(Int(calories.rounded())) calories! \(url)"
    }
}
