import Foundation

/// One simulated app user: its own account and tokens, looping actions drawn from the mix with a think time
/// between them until the measured window ends. A screen that reads several routes sends them at once.
struct VirtualUser {
    var account: UserAccount
    let client: GatewayClient
    let recorder: Recorder
    /// Public share tokens of every user of the run, opened by `sharedMealView`.
    let links: [String]
    let think: ThinkTime

    /// Runs the session until the window ends; the first action comes after a random part of a think time so
    /// users do not all start at once.
    mutating func run() async {
        await pause(think.rampDelay())
        while ContinuousClock.now < recorder.windowEnd {
            await perform(Action.pick())
            await pause(think.next())
        }
    }

    mutating func perform(_ action: Action) async {
        let token = account.accessToken
        switch action {
        case .dashboard:
            await screen([
                Call(.GET, "/api/user/stats", token: token), Call(.GET, "/api/progress?days=7", token: token),
                Call(.GET, "/api/achievements", token: token), Call(.GET, "/api/metrics/daily?days=7", token: token),
            ])
        case .trends:
            await screen([Call(.GET, "/api/trends?period=7d", token: token), Call(.GET, "/api/calendar", token: token)])
        case .mealList:
            await send(Call(.GET, "/api/meals?limit=20", token: token))
        case .mealDetail:
            await send(Call(.GET, "/api/meals/\(account.mealIds.randomElement()!)", template: "/api/meals/:id", token: token))
        case .dayHistory:
            let day = Calendar.utc.startOfDay(for: .now).addingTimeInterval(-86_400 * Double(Int.random(in: 1...7)))
            await send(Call(.GET, "/api/history/\(day.ISO8601Format().prefix(10))", template: "/api/history/:date", token: token))
        case .profile:
            await send(Call(.GET, "/api/users/profile", token: token))
        case .foodSearch:
            let words = SampleFood.searches.randomElement()!.replacingOccurrences(of: " ", with: "%20")
            await send(Call(.GET, "/api/foods/search?q=\(words)&limit=20", token: token))
        case .syncChanges:
            await syncChanges(token: token)
        case .sharedMealView:
            await send(Call(.GET, "/api/share/\(links.randomElement()!)", template: "/api/share/:token"))
        case .logMeal:
            let meal = SampleFood.anyMeal()
            let body: [String: any Sendable] = ["title": meal.title, "mealType": meal.mealType, "items": meal.itemsJSON()]
            if let meal = await send(Call(.POST, "/api/meals", json: body, token: token)).decoded(MealReference.self) {
                account.mealIds.append(meal.id)
            }
        case .analyzeText:
            await analyze(token: token)
        case .consumeMeal:
            guard let id = account.scannedMealIds.popLast() else { return await analyze(token: token) }
            let answer = await send(Call(.POST, "/api/meals/\(id)/consume", template: "/api/meals/:id/consume", json: [:], token: token))
            if answer.isSuccess { account.mealIds.append(id) }
        case .editMeal:
            let id = account.mealIds.randomElement()!
            let read = await send(Call(.GET, "/api/meals/\(id)", template: "/api/meals/:id", token: token))
            guard let meal = read.decoded(MealReference.self) else { return }
            var edit = Call(
                .PUT, "/api/meals/\(id)", template: "/api/meals/:id", json: ["items": SampleFood.anyMeal().itemsJSON(scale: 0.9)], token: token)
            edit.ifMatch = "\"\(meal.version)\""
            await send(edit)
        case .logWeight:
            let weight = account.weightKg + Double.random(in: -0.5...0.5)
            await send(Call(.POST, "/api/metrics/weight", json: ["weight": (weight * 10).rounded() / 10, "unit": "kg"], token: token))
        case .shareMeal:
            let id = account.mealIds.randomElement()!
            await send(Call(.POST, "/api/share/meal/\(id)", template: "/api/share/meal/:id", json: ["expiresInDays": 7], token: token))
        case .refreshToken:
            let answer = await send(Call(.POST, "/api/auth/refresh", json: ["refreshToken": account.refreshToken]))
            if let session = answer.decoded(SessionTokens.self) { account.adopt(session) }
        case .login:
            let answer = await send(Call(.POST, "/api/auth/login", json: ["email": account.email, "password": account.password]))
            if answer.isSuccess, let session = answer.decoded(SessionTokens.self) { account.adopt(session) }
        }
    }

    private mutating func analyze(token: String) async {
        let body: [String: any Sendable] = ["text": SampleFood.descriptions.randomElement()!]
        if let meal = await send(Call(.POST, "/api/analyze", json: body, token: token)).decoded(MealReference.self) {
            account.scannedMealIds.append(meal.id)
        }
    }

    /// Pulls the changes feed from the account's cursor until it has nothing more (at most 10 pages of 100).
    private mutating func syncChanges(token: String) async {
        for _ in 0..<10 {
            let full = account.syncCursor == nil
            let call = Call(
                .GET, "/api/sync/changes?since=\(account.syncCursor ?? "0")&limit=100",
                template: full ? "/api/sync/changes?since=0" : "/api/sync/changes", token: token)
            guard let page = await send(call).decoded(SyncPageReference.self) else { return }
            account.syncCursor = page.nextCursor
            if !page.hasMore { return }
        }
    }

    @discardableResult
    private func send(_ call: Call) async -> Answer { await client.send(call, recorder: recorder) }

    /// The requests of one screen, sent at once as the app's concurrent loads are.
    private func screen(_ calls: [Call]) async {
        await withTaskGroup(of: Void.self) { group in
            for call in calls { group.addTask { [client, recorder] in await client.send(call, recorder: recorder) } }
        }
    }

    /// Sleeps `seconds`, but not past the end of the window.
    private func pause(_ seconds: Double) async {
        let left = recorder.windowEnd - ContinuousClock.now
        let wanted = Duration.milliseconds(Int64(seconds * 1000))
        guard wanted > .zero, left > .zero else { return }
        try? await Task.sleep(for: min(wanted, left))
    }
}
