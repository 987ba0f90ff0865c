import Foundation

/// The accounts of a run, made before it (not measured) and deleted after it, all through the gateway: each user
/// registers, sets goals, has `seedDays` days of meals and weigh-ins and a couple of scanned meals, and shares a
/// meal, so every read of the run meets real data and the public share view has links to open.
struct Population {
    let client: GatewayClient
    let options: LoadOptions
    let runId: String

    /// A set-up call that did not answer as expected.
    struct SetUpError: Error, CustomStringConvertible {
        var description: String
    }

    /// The accounts and the public share tokens of the run.
    func create() async throws -> (accounts: [UserAccount], links: [String]) {
        let password = "load-\(UUID().uuidString.prefix(13))"
        let accounts = try await concurrently(options.setUpUsers, width: options.setupConcurrency) { index in
            try await makeUser(index, password: password)
        }
        progress("registered \(accounts.count) users with goals, \(options.seedDays) days of meals and weigh-ins each")
        let links = try await concurrently(accounts.count, width: options.setupConcurrency) { index in
            try await share(accounts[index])
        }
        progress("shared a meal per user (\(links.count) public links)")
        try await waitForDashboards(of: accounts.last!)
        return (accounts, links)
    }

    /// Deletes the accounts (each service purges its rows on `user.deleted`); answers how many went.
    func delete(_ accounts: [UserAccount]) async -> Int {
        let deleted = try? await concurrently(accounts.count, width: options.setupConcurrency) { index in
            let account = accounts[index]
            let answer = await client.send(Call(.DELETE, "/api/users/me", json: ["password": account.password], token: account.accessToken))
            return answer.status == 204 ? 1 : 0
        }
        return deleted?.reduce(0, +) ?? 0
    }

    private func makeUser(_ index: Int, password: String) async throws -> UserAccount {
        let email = "load-\(runId)-\(index)@example.com"
        let session = try await expect(
            201, Call(.POST, "/api/auth/register", json: ["email": email, "password": password, "displayName": "Load user \(index)"]),
            as: SessionTokens.self)
        let weight = Double(Int.random(in: 55...100))
        var account = UserAccount(
            email: email, password: password, accessToken: session.accessToken, refreshToken: session.refreshToken, weightKg: weight)
        let token = account.accessToken
        // The goals the dashboards rate days against (calories), and what the expenditure estimate reads.
        let goals: [String: any Sendable] = [
            "dailyCalorieGoal": [1800, 2000, 2200, 2500].randomElement()!, "proteinGoalGrams": 120, "carbsGoalGrams": 230,
            "fatGoalGrams": 70, "targetWeight": weight - 5, "weightUnit": "kg",
            "timeZone": ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"][index % 4],
            "dietPreference": ["balanced", "mediterranean", "low_carb", "vegetarian"][index % 4], "heightCm": Double(Int.random(in: 155...195)),
            "birthDate": "19\(Int.random(in: 60...99))-0\(Int.random(in: 1...9))-1\(Int.random(in: 0...9))",
            "sex": ["female", "male"][index % 2], "activityLevel": "moderate",
        ]
        _ = try await expect(200, Call(.PUT, "/api/users/profile", json: goals, token: token))
        let today = Calendar.utc.startOfDay(for: .now)
        for day in 1...options.seedDays {
            let date = today.addingTimeInterval(-86_400 * Double(day))
            for (hour, meals) in [(8.0, SampleFood.breakfasts), (13.0, SampleFood.lunches), (19.5, SampleFood.dinners)] {
                let meal = meals.randomElement()!
                let body: [String: any Sendable] = [
                    "title": meal.title, "mealType": meal.mealType, "items": meal.itemsJSON(scale: Double.random(in: 0.8...1.2)),
                    "eatenAt": date.addingTimeInterval(hour * 3600).ISO8601Format(),
                ]
                account.mealIds.append(try await expect(201, Call(.POST, "/api/meals", json: body, token: token), as: MealReference.self).id)
            }
            let weighIn: [String: any Sendable] = [
                "date": String(date.ISO8601Format().prefix(10)), "weight": weight + Double(day) * 0.1 + Double.random(in: -0.4...0.4), "unit": "kg",
            ]
            _ = try await expect(201, Call(.POST, "/api/metrics/weight", json: weighIn, token: token))
        }
        for _ in 0..<2 {
            let meal = SampleFood.anyMeal()
            let body: [String: any Sendable] = ["title": meal.title, "mealType": meal.mealType, "items": meal.itemsJSON(), "consumed": false]
            account.scannedMealIds.append(try await expect(201, Call(.POST, "/api/meals", json: body, token: token), as: MealReference.self).id)
        }
        return account
    }

    /// Shares the user's first meal; the sharing service answers 409 `meal_not_ready` until the meal's event
    /// reaches it, so this retries for up to two minutes.
    private func share(_ account: UserAccount) async throws -> String {
        let call = Call(.POST, "/api/share/meal/\(account.mealIds[0])", template: "/api/share/meal/:id", json: [:], token: account.accessToken)
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let answer = await client.send(call)
            if answer.status == 201, let link = answer.decoded(ShareReference.self) { return link.token }
            guard answer.status == 409, ContinuousClock.now < deadline else {
                throw SetUpError(description: "\(call.template) answered \(answer.status): \(answer.excerpt)")
            }
            try await Task.sleep(for: .seconds(1))
        }
    }

    /// Waits until the trends service shows every seeded meal of `account` (it reads them from events).
    private func waitForDashboards(of account: UserAccount) async throws {
        struct Stats: Decodable { struct Span: Decodable { var mealsAnalyzed: Int }; var allTime: Span }
        let expected = account.mealIds.count + account.scannedMealIds.count
        let deadline = ContinuousClock.now + .seconds(180)
        while true {
            let answer = await client.send(Call(.GET, "/api/user/stats", token: account.accessToken))
            let seen = answer.decoded(Stats.self)?.allTime.mealsAnalyzed ?? -1
            if seen >= expected { return }
            guard ContinuousClock.now < deadline else {
                throw SetUpError(description: "trends showed \(seen) of \(expected) seeded meals after 180 s (last answer \(answer.status))")
            }
            try await Task.sleep(for: .seconds(1))
        }
    }

    /// Sends `call` and fails the set-up unless it answers `status`.
    @discardableResult
    private func expect(_ status: Int, _ call: Call) async throws -> Answer {
        let answer = await client.send(call)
        guard answer.status == status else {
            throw SetUpError(description: "\(call.template) answered \(answer.status), not \(status): \(answer.excerpt)")
        }
        return answer
    }

    private func expect<T: Decodable>(_ status: Int, _ call: Call, as type: T.Type) async throws -> T {
        let answer = try await expect(status, call)
        guard let value = answer.decoded(T.self) else {
            throw SetUpError(description: "\(call.template) answered an unreadable body: \(answer.excerpt)")
        }
        return value
    }
}
