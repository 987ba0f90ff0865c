/// Why an answer of the meals service could not be used.
enum MealsAnswerError: Error {
    case notAnImage
    case status(Int)
}
