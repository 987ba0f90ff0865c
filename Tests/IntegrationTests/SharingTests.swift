import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceDefaults
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Sharing through the gateway: links, the public view, expiry on the test clock, revocation, ownership,
/// the page and card with hostile text, meal edits and deletions, photos, and purge.
@Suite("Sharing", .serialized, .enabled(if: TestEnvironment.isAvailable))
struct SharingTests {
    @Test("an owner's share gives a URL-safe token, the public URL and share text; anyone opens it without a token; views count")
    func shareAndView() async throws {
        try await SharingStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let mealId = try await stack.logMeal(title: "Salmon and greens", calories: 419.6, token: token)
            let created = stack.clock.now()
            let response = try await stack.share(mealId, token: token)
            #expect(response.status == .created)
            let link = try response.decoded(LinkAnswer.self)
            #expect(link.token.count == 43 && link.token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(link.url == "\(SharingStack.baseURL)/shared/\(link.token)")
            #expect(response.headers[.location] == "/api/share/\(link.token)")
            #expect(link.shareText == "I had Salmon and greens with 420 calories! \(link.url)")
            #expect(abs(link.expiresAt.timeIntervalSince(created) - 7 * 86_400) < 2, "seven days by default")
            #expect(link.status == "active" && link.viewCount == 0 && !link.includesPhoto && !link.showsDisplayName)
            stack.clock.advance(by: 1)
            let second = try await stack.shareLink(mealId, token: token)
            #expect(second.token != link.token, "every share is a new link")

            let view = try await stack.open("/api/share/\(link.token)")
            #expect(view.status == .ok)
            let shared = try view.decoded(SharedMealAnswer.self)
            #expect(shared.meal.name == "Salmon and greens" && shared.meal.totals.calories == 420 && shared.meal.items.count == 1)
            #expect(shared.meal.dietScore.score >= 0 && shared.meal.healthScore != nil)
            #expect(shared.sharedBy == nil, "the name is shown only when the owner allows it")
            let raw = String(buffer: view.body).lowercased()
            #expect(!raw.contains(userId.uuidString.lowercased()) && !raw.contains("@example.com"), "never the owner's id or email")

            // Twenty views at once: every one counted.
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<20 { group.addTask { try await stack.open("/api/share/\(link.token)").status } }
                for try await status in group { #expect(status == .ok) }
            }
            let listed = try await stack.links(token: token)
            #expect(listed.map(\.token) == [second.token, link.token], "newest first")
            #expect(listed.last?.viewCount == 21 && listed.first?.viewCount == 0)

            let paged = try await stack.gateway.call(.get, "/api/share?limit=1", token: token)
            let firstPage = try paged.decoded(LinkPageAnswer.self)
            #expect(firstPage.links.map(\.token) == [second.token])
            let cursor = try #require(firstPage.nextCursor)
            let next = try await stack.gateway.call(.get, "/api/share?limit=1&cursor=\(cursor)", token: token).decoded(LinkPageAnswer.self)
            #expect(next.links.map(\.token) == [link.token] && next.nextCursor == nil)
            let badLimit = try await stack.gateway.call(.get, "/api/share?limit=0", token: token)
            #expect(badLimit.status == .unprocessableContent)
            let anonymousList = try await stack.gateway.call(.get, "/api/share")
            #expect(anonymousList.status == .unauthorized && anonymousList.errorCode == "unauthenticated")
        }
    }

    @Test("only the owner shares a meal, sees and revokes its links; a meal never logged is 404 meal_not_found after the wait")
    func ownership() async throws {
        try await SharingStack.run { stack in
            let (owner, _) = try await stack.signUp("Owner")
            let (stranger, _) = try await stack.signUp("Stranger")
            let mealId = try await stack.logMeal(token: owner)
            let link = try await stack.shareLink(mealId, token: owner)

            let stolen = try await stack.share(mealId, token: stranger)
            #expect(stolen.status == .notFound && stolen.errorCode == "meal_not_found", "another user's meal is as unknown as a missing one")
            #expect(try await stack.links(token: stranger).isEmpty)
            let revokeAttempt = try await stack.gateway.call(.delete, "/api/share/\(link.token)", token: stranger)
            #expect(revokeAttempt.status == .notFound)
            #expect(try await stack.open("/api/share/\(link.token)").status == .ok, "a stranger's revocation changes nothing")
            let anonymousShare = try await stack.gateway.call(.post, "/api/share/meal/\(mealId.uuidString)", json: "{}")
            #expect(anonymousShare.status == .unauthorized)

            // After the (test's 1 s) wait, the meals service says the meal was never logged: 404, nothing to retry.
            let neverLogged = UUID()
            let unknown = try await stack.gateway.call(.post, "/api/share/meal/\(neverLogged.uuidString)", json: "{}", token: owner)
            #expect(unknown.status == .notFound && unknown.errorCode == "meal_not_found" && unknown.headers[.retryAfter] == nil)
            #expect(stack.waitingShares(for: neverLogged) == 0, "the request gave its waiting slot back")
            let notAnId = try await stack.gateway.call(.post, "/api/share/meal/not-a-meal", json: "{}", token: owner)
            #expect(notAnId.status == .unprocessableContent)
        }
    }

    @Test("a meal shared the moment it is logged, its event held back, is shared (201) once the event arrives")
    func shareBeforeTheMealEvent() async throws {
        // A wait far longer than the test: the answer can only come from the event's arrival, not from the deadline.
        try await SharingStack.run(sharingSettings: ["sharing.meal.wait.seconds": "60"], holdMealEvents: true) { stack in
            let (owner, _) = try await stack.signUp("Quick")
            let mealId = try await stack.logMeal(title: "Just logged", token: owner)
            let shared = Task { try await stack.gateway.call(.post, "/api/share/meal/\(mealId.uuidString.lowercased())", json: "{}", token: owner) }
            try await stack.untilShareWaits(for: mealId)
            try await stack.releasingMealEvents {
                let response = try await shared.value
                #expect(response.status == .created, "share answered \(response.status): \(String(buffer: response.body))")
                let link = try response.decoded(LinkAnswer.self)
                #expect(link.mealId == mealId && link.mealTitle == "Just logged")
                #expect(try await stack.open("/api/share/\(link.token)").status == .ok, "the link opens at once")
            }
        }
    }

    @Test("not yet: a logged meal whose event is held back is 409 meal_not_ready with Retry-After after the wait; 201 once it arrives")
    func mealNotReadyYet() async throws {
        try await SharingStack.run(holdMealEvents: true) { stack in
            let (owner, _) = try await stack.signUp("Patient")
            let (stranger, _) = try await stack.signUp("Stranger")
            let mealId = try await stack.logMeal(title: "Still travelling", token: owner)
            let path = "/api/share/meal/\(mealId.uuidString.lowercased())"
            let early = try await stack.gateway.call(.post, path, json: "{}", token: owner)
            #expect(early.status == .conflict && early.errorCode == "meal_not_ready" && early.headers[.retryAfter] == "1")
            let strangers = try await stack.gateway.call(.post, path, json: "{}", token: stranger)
            #expect(strangers.status == .notFound && strangers.errorCode == "meal_not_found", "the meals service says it is not theirs")
            try await stack.releasingMealEvents {
                let link = try await stack.shareLink(mealId, token: owner)
                #expect(link.mealId == mealId && link.mealTitle == "Still travelling")
            }
        }
    }

    @Test("a meal the sharing service never heard of, with the meals service unreachable: 503 with Retry-After, not 404 or 409")
    func mealsUnreachableAfterTheWait() async throws {
        // Port 1: nothing listens, so the question after the wait finds no meals service.
        try await SharingStack.run(sharingSettings: ["sharing.meals.url": "http://127.0.0.1:1", "sharing.meal.wait.seconds": "0"]) { stack in
            let (owner, _) = try await stack.signUp("Unlucky")
            let unknown = try await stack.gateway.call(.post, "/api/share/meal/\(UUID().uuidString.lowercased())", json: "{}", token: owner)
            #expect(unknown.status == .serviceUnavailable && unknown.errorCode == "service_unavailable", "\(String(buffer: unknown.body))")
            #expect(unknown.headers[.retryAfter] == "5")
            #expect(try await stack.links(token: owner).isEmpty)
        }
    }

    @Test("links expire on the clock (410, caches never outlive them), revoke to 410, unknown tokens 404, bad terms 422")
    func expiryAndRevocation() async throws {
        try await SharingStack.run { stack in
            let email = "expiry-\(UUID().uuidString.prefix(8))@example.com"
            var token = try await stack.gateway.register(email: email).accessToken
            let mealId = try await stack.logMeal(token: token)
            for (body, status, field) in [
                (#"{"expiresInDays":0}"#, HTTPResponse.Status.unprocessableContent, "expiresInDays"),
                (#"{"expiresInDays":31}"#, .unprocessableContent, "expiresInDays"),
                (#"{"expiresInDays":"soon"}"#, .unprocessableContent, "expiresInDays"),
                (#"{"includePhoto":"yes"}"#, .unprocessableContent, "includePhoto"),
                (#"{"expiresIn":3}"#, .unprocessableContent, "expiresIn"),
            ] {
                let refused = try await stack.share(mealId, json: body, token: token)
                #expect(refused.status == status, "\(body)")
                #expect(try refused.decoded(ErrorBody.self).error.details[field] != nil, "\(body) names \(field)")
            }
            let wrongType = try await stack.gateway.execute(
                uri: "/api/share/meal/\(mealId.uuidString)", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "text/plain"], body: ByteBuffer(string: "7 days please"))
            #expect(wrongType.status == .unsupportedMediaType && wrongType.errorCode == "unsupported_media_type")
            #expect(try await stack.links(token: token).isEmpty, "refused shares store nothing")

            let day = try await stack.shareLink(mealId, json: #"{"expiresInDays":1}"#, token: token)
            let month = try await stack.shareLink(mealId, json: #"{"expiresInDays":30}"#, token: token)
            #expect(abs(month.expiresAt.timeIntervalSince(month.createdAt) - 30 * 86_400) < 1)

            stack.clock.advance(by: 86_400 - 30)
            let nearEnd = try await stack.open("/api/share/\(day.token)")
            #expect(nearEnd.status == .ok)
            // 30 s left (29 when the stored microseconds round the expiry down): no cache keeps it past its expiry.
            let cacheControl = nearEnd.headers[.cacheControl]
            #expect(cacheControl == "public, max-age=30, must-revalidate" || cacheControl == "public, max-age=29, must-revalidate")
            stack.clock.advance(by: 31)
            for path in ["/api/share/\(day.token)", "/shared/\(day.token)", "/shared/\(day.token)/card.svg"] {
                let expired = try await stack.open(path)
                #expect(expired.status == .gone && expired.errorCode == "share_expired", "\(path)")
            }
            let browser = try await stack.open("/shared/\(day.token)", headers: [.accept: "text/html,application/xhtml+xml"])
            #expect(browser.status == .gone && browser.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: browser.body).contains("no longer available"))
            #expect(try await stack.open("/api/share/\(month.token)").status == .ok)

            // A day later the access token has expired too: the owner-only methods under the public prefix say so.
            let stale = try await stack.gateway.call(.get, "/api/share", token: token)
            #expect(stale.status == .unauthorized && stale.errorCode == "token_expired")
            token = try await stack.gateway.login(email: email).decoded(SessionAnswer.self).accessToken
            #expect(try await stack.gateway.call(.delete, "/api/share/\(month.token)", token: token).status == .noContent)
            #expect(try await stack.gateway.call(.delete, "/api/share/\(month.token)", token: token).status == .noContent, "idempotent")
            let revoked = try await stack.open("/api/share/\(month.token)")
            #expect(revoked.status == .gone && revoked.errorCode == "share_revoked")
            let statuses = Dictionary(uniqueKeysWithValues: try await stack.links(token: token).map { ($0.token, $0.status) })
            #expect(statuses == [day.token: "expired", month.token: "revoked"])

            let unknown = try await stack.open("/api/share/\(String(repeating: "A", count: 43))")
            #expect(unknown.status == .notFound && unknown.errorCode == "share_not_found")
            for malformed in ["short", "%3Cscript%3E", String(repeating: "A", count: 44)] {
                #expect(try await stack.open("/api/share/\(malformed)").status == .notFound, "\(malformed)")
            }
        }
    }

    @Test("the page and card escape hostile names and notes, carry OpenGraph tags and the brand, and answer 304 to a current ETag")
    func pageAndCard() async throws {
        try await SharingStack.run { stack in
            let (token, _) = try await stack.signUp(#"<b onmouseover=alert(1)>Eve</b>"#)
            let hostileTitle = #"<script>alert(\"x\")</script> & Bob's \u0007<img src=x onerror=alert(1)>"#
            let hostileNotes = #"\"><svg onload=alert(1)></textarea> \u202Egnp.exe"#
            let mealId = try await stack.logMeal(title: hostileTitle, notes: hostileNotes, token: token)
            let link = try await stack.shareLink(mealId, json: #"{"showDisplayName":true}"#, token: token)

            let view = try await stack.eventuallyView(link.token) { (try? $0.decoded(SharedMealAnswer.self).sharedBy) != nil }
            let shared = try view.decoded(SharedMealAnswer.self)
            let viewsBefore = try #require(try await stack.links(token: token).first?.viewCount)
            #expect(shared.sharedBy == "<b onmouseover=alert(1)>Eve</b>", "JSON carries the name as text")
            #expect(shared.meal.name.hasPrefix("<script>") && shared.meal.notes?.contains("<svg") == true)

            let page = try await stack.open("/shared/\(link.token)", headers: [.accept: "text/html"])
            #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            for forbidden in ["<script>alert", "<img src=x", "<svg onload", "<b onmouseover", "\u{7}", "\u{202E}"] {
                #expect(!html.contains(forbidden), "the page must not contain \(forbidden.debugDescription)")
            }
            #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Bob&#39;s"))
            #expect(html.contains("&lt;b onmouseover=alert(1)&gt;Eve&lt;/b&gt;"), "the allowed display name, escaped")
            #expect(html.contains(#"<meta property="og:image" content="\#(link.url)/card.png">"#), "previews get the PNG card")
            #expect(html.contains(#"<meta property="og:url" content="\#(link.url)">"#))
            #expect(html.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
            #expect(html.contains("Nutrition<span>AI</span>") && html.contains("noindex"))
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")

            let card = try await stack.open("/shared/\(link.token)/card.svg")
            #expect(card.status == .ok && card.headers[.contentType] == "image/svg+xml; charset=utf-8")
            let svg = String(buffer: card.body)
            #expect(svg.contains(#"width="1200" height="630""#) && svg.contains("Nutrition<tspan"))
            #expect(!svg.contains("<script>") && !svg.contains("<img") && !svg.contains("\u{7}"))
            let parser = XMLParser(data: Data(buffer: card.body))
            #expect(parser.parse(), "the card is well-formed XML despite the hostile text: \(String(describing: parser.parserError))")

            let etag = try #require(page.headers[.eTag])
            let again = try await stack.open("/shared/\(link.token)", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            let cardTag = try #require(card.headers[.eTag])
            #expect(try await stack.open("/shared/\(link.token)/card.svg", headers: [.ifNoneMatch: cardTag]).status == .notModified)
            // Views are counted in memory and written in batches: wait for the two, then see that no third came.
            let counted = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                try await stack.links(token: token).first?.viewCount == viewsBefore + 2
            }
            #expect(counted, "the page view and its revalidation count")
            let views = try await stack.links(token: token).first?.viewCount
            #expect(views == viewsBefore + 2, "the card's two requests do not count")
        }
    }

    @Test("an edit reaches the shared meal, a deletion makes its links 410; the photo is served only when included")
    func editsDeletionsAndPhotos() async throws {
        try await SharingStack.run { stack in
            let (token, userId) = try await stack.signUp()
            let mealId = try await stack.logMeal(title: "Lentil soup", token: token)
            let link = try await stack.shareLink(mealId, json: #"{"includePhoto":true}"#, token: token)
            #expect(!link.includesPhoto, "a meal without a photo is shared without one")
            #expect(try await stack.open("/shared/\(link.token)/photo").errorCode == "photo_not_shared")

            let edit = try await stack.gateway.call(
                .put, "/api/meals/\(mealId.uuidString.lowercased())", json: #"{"title":"Lentil soup with bread"}"#, token: token)
            #expect(edit.status == .ok)
            let edited = try await stack.eventuallyView(link.token) { (try? $0.decoded(SharedMealAnswer.self).meal.name) == "Lentil soup with bread" }
            #expect(try edited.decoded(SharedMealAnswer.self).meal.name == "Lentil soup with bread")
            // Unconsuming sends meal.deleted with reason `unconsumed`: the meal still exists, so its links stay open.
            let unconsumed = try await stack.gateway.call(.delete, "/api/meals/\(mealId.uuidString.lowercased())/consume", token: token)
            #expect(unconsumed.status == .ok, "\(String(buffer: unconsumed.body))")
            let renamed = try await stack.gateway.call(
                .put, "/api/meals/\(mealId.uuidString.lowercased())", json: #"{"title":"Lentil soup, scanned"}"#, token: token)
            #expect(renamed.status == .ok)
            let afterUnconsume = try await stack.eventuallyView(link.token) {
                (try? $0.decoded(SharedMealAnswer.self).meal.name) == "Lentil soup, scanned"
            }
            let shownName = try afterUnconsume.decoded(SharedMealAnswer.self).meal.name
            #expect(afterUnconsume.status == .ok && shownName == "Lentil soup, scanned")

            #expect(try await stack.gateway.call(.delete, "/api/meals/\(mealId.uuidString.lowercased())", token: token).status == .noContent)
            let gone = try await stack.eventuallyView(link.token) { $0.status == .gone }
            #expect(gone.status == .gone && gone.errorCode == "shared_meal_deleted")
            #expect(try await stack.links(token: token).first?.status == "meal_deleted")
            #expect(try await stack.share(mealId, token: token).status == .notFound, "a deleted meal cannot be shared again")

            stack.vision.script(
                #"{"items":[{"name":"white rice","amount":1,"unit":"cup","grams":158,"confidence":0.9,"calories_kcal":205,"protein_g":4.3,"#
                    + #""carbs_g":44.5,"fat_g":0.4,"fiber_g":0.6,"sugars_g":0.1,"saturated_fat_g":0.1,"sodium_mg":2,"alcohol_g":0}]}"#
            )
            let photo: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<3000).map { UInt8($0 % 251) }
            let analyzed = try await stack.gateway.call(
                .post, "/api/analyze", json: #"{"image":"\#(Data(photo).base64EncodedString())"}"#, token: token)
            #expect(analyzed.status == .created, "\(String(buffer: analyzed.body))")
            let photoMeal = try analyzed.decoded(MealAnswer.self).id
            let withPhoto = try await stack.shareLink(photoMeal, json: #"{"includePhoto":true}"#, token: token)
            let withoutPhoto = try await stack.shareLink(photoMeal, token: token)
            #expect(withPhoto.includesPhoto && !withoutPhoto.includesPhoto)
            let served = try await stack.open("/shared/\(withPhoto.token)/photo")
            #expect(served.status == .ok && Array(buffer: served.body) == photo && served.headers[.contentType] == "image/png")
            #expect(try await stack.open("/api/share/\(withPhoto.token)").decoded(SharedMealAnswer.self).photoUrl == "\(withPhoto.url)/photo")
            let hidden = try await stack.open("/shared/\(withoutPhoto.token)/photo")
            #expect(hidden.status == .notFound && hidden.errorCode == "photo_not_shared")
            #expect(try await stack.open("/api/share/\(withoutPhoto.token)").decoded(SharedMealAnswer.self).photoUrl == nil)
            #expect(try await userRows(in: "meal_photos", of: userId, client: stack.sharingDatabase) == 1)
        }
    }

    @Test("account deletion purges every link, meal copy, photo, card render and name of the user")
    func purge() async throws {
        try await SharingStack.run { stack in
            let (token, userId) = try await stack.signUp("Leaving")
            let (other, otherId) = try await stack.signUp("Staying")
            let mealId = try await stack.logMeal(token: token)
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<1500).map { UInt8($0 % 251) }
            let attached = try await stack.gateway.execute(
                uri: "/api/meals/\(mealId.uuidString.lowercased())/photo", method: .put,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/png"], body: ByteBuffer(bytes: png))
            #expect(attached.status == .ok, "\(String(buffer: attached.body))")
            let link = try await stack.shareLink(mealId, json: #"{"showDisplayName":true}"#, token: token)
            // A link with the photo copies it once the meal's event says it has one; until then a link is made without it.
            let photoShared = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                try await stack.shareLink(mealId, json: #"{"includePhoto":true}"#, token: token).includesPhoto
            }
            #expect(photoShared, "the photo was never shared")
            let kept = try await stack.shareLink(try await stack.logMeal(token: other), token: other)
            _ = try await stack.eventuallyView(link.token) { (try? $0.decoded(SharedMealAnswer.self).sharedBy) == "Leaving" }
            #expect(try await stack.open("/shared/\(link.token)/card.png").status == .ok)
            // Everything the purge must remove is there first (the photo's copy comes with the meal's event).
            let tables = ["links", "meals", "display_names", "meal_photos", "card_renders"]
            for table in tables {
                let held = try await TestEnvironment.eventually(timeout: .seconds(30)) {
                    try await userRows(in: table, of: userId, client: stack.sharingDatabase) > 0
                }
                #expect(held, "\(table) held nothing of the user before the deletion")
            }

            let deleted = try await stack.gateway.call(.delete, "/api/users/me", json: #"{"password":"correct horse battery"}"#, token: token)
            #expect(deleted.status == .noContent)
            let purged = try await stack.eventuallyView(link.token) { $0.status == .notFound }
            #expect(purged.status == .notFound)
            for table in tables {
                #expect(try await userRows(in: table, of: userId, client: stack.sharingDatabase) == 0, "\(table)")
            }
            #expect(try await userRows(in: "links", of: otherId, client: stack.sharingDatabase) == 1)
            #expect(try await stack.open("/api/share/\(kept.token)").status == .ok, "other users' links stay")
        }
    }
}
