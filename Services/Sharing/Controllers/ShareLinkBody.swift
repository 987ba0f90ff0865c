import Foundation
import Hummingbird

/// A share link as its owner sees it: in the answer to a share request and in the list.
struct ShareLinkBody: ResponseEncodable {
    var token: String
    /// The public page: configured base URL + `/shared/{token}`.
    var url: String
    /// The 1200x630 share image.
    var cardUrl: String
    var mealId: UUID
    /// nil once the meal was deleted.
    var mealTitle: String?
    /// "I had [meal] with [calories] calories! [link]", ready for a message; nil once the meal was deleted.
    var shareText: String?
    var status: LinkStatus
    var createdAt: Date
    var expiresAt: Date
    var revokedAt: Date?
    var includesPhoto: Bool
    var showsDisplayName: Bool
    var viewCount: Int
    var lastViewedAt: Date?

    init(_ link: ShareLink, addresses: PublicAddresses, now: Date) {
        token = link.token
        url = addresses.page(link.token)
        cardUrl = addresses.card(link.token)
        mealId = link.mealId
        mealTitle = link.mealTitle
        shareText = link.mealTitle.map { ShareText.make(title: $0, calories: link.mealCalories, url: addresses.page(link.token)) }
        status = link.status(at: now)
        createdAt = link.createdAt
        expiresAt = link.expiresAt
        revokedAt = link.revokedAt
        includesPhoto = link.includePhoto
        showsDisplayName = link.showDisplayName
        viewCount = link.viewCount
        lastViewedAt = link.lastViewedAt
    }
}

/// A page of the caller's links, newest first.
struct ShareLinkPageBody: ResponseEncodable {
    var links: [ShareLinkBody]
    var nextCursor: String?
}
