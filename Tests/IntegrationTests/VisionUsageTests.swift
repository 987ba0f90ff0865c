import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresNIO
import PostgresSupport
import ServiceDefaults
import TestSupport
import Testing

/// The user's own vision key checked with the provider before it is stored, and what the user's photo analyses cost:
/// calls and the tokens the provider reported per month and key, the estimated cost from the price table, and a
/// `usageWarning` on photo answers once the user's own keys reach 80% of the monthly budget they set.
@Suite("Vision keys checked and usage counted", .serialized)
struct VisionUsageTests {
    /// A key for the provider at `port` with `model`.
    static func keyJSON(_ key: String, port: Int, model: String = "gpt-4o-mini") -> String {
        #"{"apiKey":"\#(key)","baseUrl":"http://127.0.0.1:\#(port)/v1","model":"\#(model)"}"#
    }

    /// The month the stack's clock is in, as the usage routes name it.
    static func month(of stack: MealsStack) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: stack.clock.now())
        return String(format: "%04d-%02d", parts.year!, parts.month!)
    }

    struct KeyStatus: Decodable {
        var configured: Bool
        var model: String?
    }

    struct Usage: Decodable {
        struct KeyUsage: Decodable {
            var key: String
            var keyId: String?
            var current: Bool
            var model: String
            var calls: Int
            var promptTokens: Int
            var completionTokens: Int
            var estimatedCostUsd: Double?
        }

        var month: String
        var calls: Int
        var promptTokens: Int
        var completionTokens: Int
        var totalTokens: Int
        var estimatedCostUsd: Double
        var ownKeyEstimatedCostUsd: Double
        var monthlyBudgetUsd: Double?
        var unpricedModels: [String]
        var byKey: [KeyUsage]
    }

    struct Warning: Decodable {
        var code: String
        var month: String
        var estimatedCostUsd: Double
        var monthlyBudgetUsd: Double
        var percentOfBudget: Int
    }

    struct AnalyzedMeal: Decodable {
        var id: UUID
        var usageWarning: Warning?
    }

    @Test("a key the provider refuses is 422 vision_key_invalid, an unreachable provider 502; neither is stored, and an accepted key is")
    func keyIsCheckedBeforeItIsStored() async throws {
        try await MealsStack.run { stack in
            try await ScriptedVisionProvider.runIfNeeded(true) { own in
                let (provider, port) = try #require(own)
                let (token, _) = try await stack.signUp("key-check")
                func status() async throws -> KeyStatus {
                    try await stack.gateway.call(.get, "/api/users/vision-key", token: token).decoded(KeyStatus.self)
                }

                let refused = try await stack.gateway.call(
                    .put, "/api/users/vision-key", json: Self.keyJSON("sk-unknown-key", port: port), token: token)
                #expect(refused.status == .unprocessableContent && refused.errorCode == "vision_key_invalid", "\(String(buffer: refused.body))")
                #expect(try refused.decoded(ErrorBody.self).error.details.keys.contains("apiKey"))
                #expect(!String(buffer: refused.body).contains("sk-unknown-key"), "the key is never answered")
                #expect(provider.modelListings == 1, "the key was checked with one call to the provider")
                #expect(try await status().configured == false, "a refused key is not stored")

                // Port 1 on loopback: nothing listens, the connection is refused at once.
                let unreachable = try await stack.gateway.call(
                    .put, "/api/users/vision-key", json: #"{"apiKey":"sk-any-key-1","baseUrl":"http://127.0.0.1:1/v1"}"#, token: token)
                #expect(unreachable.status == .badGateway && unreachable.errorCode == "vision_provider_unreachable")
                #expect(try await status().configured == false, "a key that could not be checked is not stored")

                provider.accept(key: "sk-accepted-key")
                let accepted = try await stack.gateway.call(
                    .put, "/api/users/vision-key", json: Self.keyJSON("sk-accepted-key", port: port, model: "first-model"), token: token)
                #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
                #expect(try await status().configured == true)
                #expect(provider.lastRequest.authorization == nil, "checking a key analyses nothing")

                let replaced = try await stack.gateway.call(
                    .put, "/api/users/vision-key", json: Self.keyJSON("sk-revoked-key", port: port, model: "second-model"), token: token)
                #expect(replaced.errorCode == "vision_key_invalid")
                #expect(try await status().model == "first-model", "a refused key leaves the stored one in place")
            }
        }
    }

    @Test("two analyses: the month's usage shows calls 2, the tokens the provider reported and their estimated cost; bad months are 422")
    func usageIsCounted() async throws {
        try await MealsStack.run(withVision: true) { stack in
            let server = try #require(stack.vision)
            server.script(VisionKeyTests.meal)
            server.reportUsage(prompt: 700, completion: 50)
            try await ScriptedVisionProvider.runIfNeeded(true) { own in
                let (provider, port) = try #require(own)
                provider.script(VisionKeyTests.meal)
                provider.reportUsage(prompt: 1500, completion: 200)
                provider.accept(key: "sk-counted-key")
                let (token, _) = try await stack.signUp("usage")
                let (otherToken, _) = try await stack.signUp("usage-other")
                let month = Self.month(of: stack)

                let empty = try await stack.gateway.call(.get, "/api/users/vision-usage?month=\(month)", token: token).decoded(Usage.self)
                #expect(empty.calls == 0 && empty.totalTokens == 0 && empty.estimatedCostUsd == 0 && empty.byKey.isEmpty)

                #expect(
                    try await stack.gateway.call(.put, "/api/users/vision-key", json: Self.keyJSON("sk-counted-key", port: port), token: token).status
                        == .ok)
                for _ in 0..<2 { #expect(try await VisionKeyTests.analyzePhoto(token: token, stack: stack).status == .created) }
                #expect(provider.calls == 2)
                _ = try await stack.analyze("2 eggs and toast", token: token)  // text: no provider, nothing counted
                #expect(try await VisionKeyTests.analyzePhoto(token: otherToken, stack: stack).status == .created)

                let usage = try await stack.gateway.call(.get, "/api/users/vision-usage?month=\(month)", token: token)
                #expect(usage.status == .ok, "\(String(buffer: usage.body))")
                let counted = try usage.decoded(Usage.self)
                #expect(counted.month == month && counted.calls == 2)
                #expect(counted.promptTokens == 3000 && counted.completionTokens == 400 && counted.totalTokens == 3400)
                // gpt-4o-mini in the default price table: $0.15 per million prompt tokens, $0.60 per million completion tokens.
                let cost = (3000 * 0.15 + 400 * 0.60) / 1_000_000
                #expect(abs(counted.estimatedCostUsd - cost) < 1e-9 && abs(counted.ownKeyEstimatedCostUsd - cost) < 1e-9)
                #expect(counted.byKey.count == 1)
                let row = try #require(counted.byKey.first)
                #expect(row.key == "own" && row.current && row.keyId != nil && row.model == "gpt-4o-mini" && row.calls == 2)
                #expect(counted.unpricedModels.isEmpty && counted.monthlyBudgetUsd == nil)
                let defaultMonth = try await stack.gateway.call(.get, "/api/users/vision-usage", token: token).decoded(Usage.self)
                #expect(defaultMonth.month == month && defaultMonth.calls == 2, "without month=, this month")

                // Back on the server's key: counted apart, and outside the own-key cost the budget is about.
                #expect(try await stack.gateway.call(.delete, "/api/users/vision-key", token: token).status == .noContent)
                #expect(try await VisionKeyTests.analyzePhoto(token: token, stack: stack).status == .created)
                let both = try await stack.gateway.call(.get, "/api/users/vision-usage?month=\(month)", token: token).decoded(Usage.self)
                #expect(both.calls == 3 && both.promptTokens == 3700 && both.byKey.map(\.key) == ["server", "own"])
                #expect(both.byKey.first?.model == "gpt-4o-mini" && both.byKey.last?.current == false)
                #expect(abs(both.ownKeyEstimatedCostUsd - cost) < 1e-9 && both.estimatedCostUsd > both.ownKeyEstimatedCostUsd)

                let other = try await stack.gateway.call(.get, "/api/users/vision-usage?month=\(month)", token: otherToken).decoded(Usage.self)
                #expect(other.calls == 1 && other.promptTokens == 700, "each user sees only their own usage")
                let earlier = try await stack.gateway.call(.get, "/api/users/vision-usage?month=2001-01", token: token).decoded(Usage.self)
                #expect(earlier.calls == 0, "another month counts apart")

                for bad in ["2026-13", "2026-1", "nov", "2026-11-01", "0999-01", ""] {
                    let answer = try await stack.gateway.call(.get, "/api/users/vision-usage?month=\(bad)", token: token)
                    #expect(answer.status == .unprocessableContent, "month=\(bad) answered \(answer.status)")
                    #expect(try answer.decoded(ErrorBody.self).error.details.keys.contains("month"))
                }
            }
        }
    }

    @Test("past 80% of the monthly budget, photo answers carry a usageWarning; none below it, none after the budget is removed")
    func budgetWarning() async throws {
        try await MealsStack.run { stack in
            try await ScriptedVisionProvider.runIfNeeded(true) { own in
                let (provider, port) = try #require(own)
                provider.script(VisionKeyTests.meal)
                // $0.009 per photo with gpt-4o-mini: 20000 × $0.15 and 10000 × $0.60 per million.
                provider.reportUsage(prompt: 20_000, completion: 10_000)
                provider.accept(key: "sk-budget-key")
                let (token, userId) = try await stack.signUp("budget")
                #expect(
                    try await stack.gateway.call(.put, "/api/users/vision-key", json: Self.keyJSON("sk-budget-key", port: port), token: token).status
                        == .ok)

                for bad in [#"{"monthlyBudgetUsd":0}"#, #"{"monthlyBudgetUsd":-5}"#, #"{"monthlyBudgetUsd":null}"#, #"{}"#] {
                    let answer = try await stack.gateway.call(.put, "/api/users/vision-usage/budget", json: bad, token: token)
                    #expect(answer.status == .unprocessableContent, "\(bad) answered \(answer.status)")
                }
                let set = try await stack.gateway.call(.put, "/api/users/vision-usage/budget", json: #"{"monthlyBudgetUsd":0.02}"#, token: token)
                #expect(set.status == .ok && String(buffer: set.body).contains(#""monthlyBudgetUsd":0.02"#))

                func photo() async throws -> AnalyzedMeal {
                    let answer = try await VisionKeyTests.analyzePhoto(token: token, stack: stack)
                    #expect(answer.status == .created, "\(String(buffer: answer.body))")
                    return try answer.decoded(AnalyzedMeal.self)
                }
                #expect(try await photo().usageWarning == nil, "$0.009 of $0.02 is 45%")
                let nearly = try #require(try await photo().usageWarning, "$0.018 of $0.02 is 90%")
                #expect(nearly.code == "vision_budget_nearly_spent" && nearly.month == Self.month(of: stack))
                #expect(abs(nearly.estimatedCostUsd - 0.018) < 1e-9 && nearly.monthlyBudgetUsd == 0.02 && (89...90).contains(nearly.percentOfBudget))
                let over = try #require(try await photo().usageWarning)
                #expect(over.code == "vision_budget_exceeded" && over.percentOfBudget >= 100)
                let text = try await stack.gateway.call(.post, "/api/analyze", json: #"{"text":"an apple"}"#, token: token)
                #expect(text.status == .created && !String(buffer: text.body).contains("usageWarning"), "text analyses cost nothing")
                let usage = try await stack.gateway.call(.get, "/api/users/vision-usage", token: token).decoded(Usage.self)
                #expect(usage.monthlyBudgetUsd == 0.02 && usage.calls == 3)
                let keyId = try #require(usage.byKey.first?.keyId)

                struct Export: Decodable {
                    struct Row: Decodable, Equatable {
                        var month: String
                        var key: String
                        var keyId: String?
                        var model: String
                        var calls: Int
                        var promptTokens: Int
                        var completionTokens: Int
                    }
                    struct Budget: Decodable {
                        var monthlyBudgetUsd: Double
                    }
                    var visionUsage: [Row]
                    var visionBudget: Budget?
                }
                let export = try await stack.gateway.call(.get, "/api/export/meals?format=json", token: token)
                #expect(export.status == .ok, "\(String(buffer: export.body))")
                let exported = try export.decoded(Export.self)
                #expect(
                    exported.visionUsage == [
                        Export.Row(
                            month: Self.month(of: stack), key: "own", keyId: keyId, model: "gpt-4o-mini", calls: 3, promptTokens: 60_000,
                            completionTokens: 30_000)
                    ])
                #expect(exported.visionBudget?.monthlyBudgetUsd == 0.02)

                #expect(try await stack.gateway.call(.delete, "/api/users/vision-usage/budget", token: token).status == .noContent)
                #expect(try await photo().usageWarning == nil, "without a budget there is no warning")
                let stored = try await stack.mealsDatabase.query(
                    "SELECT count(*) FROM vision_usage WHERE user_id = \(userId)", logger: TestEnvironment.logger
                ).collect().first?.decode(Int.self)
                #expect(stored == 1, "one row per month, key and model")
            }
        }
    }

    @Test("user.deleted removes the user's vision usage and budget")
    func deletedWithTheAccount() async throws {
        try await MealsStack.run { stack in
            try await ScriptedVisionProvider.runIfNeeded(true) { own in
                let (provider, port) = try #require(own)
                provider.script(VisionKeyTests.meal)
                provider.accept(key: "sk-leaving-key")
                let leaving = try await stack.gateway.register(email: "leaving-\(UUID().uuidString.prefix(8))@example.com")
                let token = leaving.accessToken
                #expect(
                    try await stack.gateway.call(.put, "/api/users/vision-key", json: Self.keyJSON("sk-leaving-key", port: port), token: token).status
                        == .ok)
                #expect(
                    try await stack.gateway.call(.put, "/api/users/vision-usage/budget", json: #"{"monthlyBudgetUsd":5}"#, token: token).status == .ok
                )
                #expect(try await VisionKeyTests.analyzePhoto(token: token, stack: stack).status == .created)
                func rows() async throws -> Int {
                    try await stack.mealsDatabase.query(
                        """
                        SELECT (SELECT count(*) FROM vision_usage WHERE user_id = \(leaving.user.id))
                            + (SELECT count(*) FROM vision_budgets WHERE user_id = \(leaving.user.id))
                        """, logger: TestEnvironment.logger
                    ).collect().first?.decode(Int.self) ?? -1
                }
                #expect(try await rows() == 2)
                let gone = try await stack.gateway.call(.delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: token)
                #expect(gone.status == .noContent)
                #expect(try await TestEnvironment.eventually(timeout: .seconds(30)) { try await rows() == 0 }, "usage and budget were not purged")
            }
        }
    }
}
