import ArgumentParser
import Foundation
import NutritionAIClient

/// `nutri`: the typed client at work. Signs in (registering the account when it does not exist yet), logs a meal
/// described in words as eaten, and prints today's totals and the 7-day trend.
@main
struct Nutri: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log a meal by text and see today's totals and the 7-day trend.")

    @Option(help: "The gateway's address.") var server = "http://127.0.0.1:8080"
    @Option(help: "The account's email.") var email: String
    @Option(help: "The account's password (at least 10 characters for a new account).") var password: String
    @Option(help: "A meal to log, in words (\"2 eggs and a slice of toast\"); nothing is logged without it.") var meal: String?
    @Option(help: "The IANA time zone a new account counts its days in (default: this machine's).")
    var timeZone = TimeZone.current.identifier

    func run() async throws {
        guard let serverURL = URL(string: server) else { throw ValidationError("--server is not a URL") }
        let session = NutritionAISession(serverURL: serverURL)
        print(try await NutriReport.make(session: session, email: email, password: password, meal: meal, timeZone: timeZone))
    }
}
