import Foundation
import Mustache
import ServiceDefaults

/// Renders the public page, the share card and the unavailable-link page from the templates in `Templates/`.
/// Mustache's `{{name}}` escapes `& < > " '`, so user strings cannot become markup in HTML or SVG.
struct SharedPageRenderer: Sendable {
    private let library: MustacheLibrary

    /// Loads every `*.mustache` file of `directory`; fails at start when one is missing or malformed.
    init(directory: URL) throws {
        var templates: [String: MustacheTemplate] = [:]
        for name in ["shared-page", "share-card", "link-unavailable", "brand-mark", "score-ring"] {
            let text = try String(contentsOf: directory.appendingPathComponent("\(name).mustache"), encoding: .utf8)
            templates[name] = try MustacheTemplate(string: text)
        }
        library = MustacheLibrary(templates: templates)
    }

    /// The renderer of the templates shipped in this service's bundle.
    static func bundled() throws -> SharedPageRenderer {
        guard let directory = Bundle.module.url(forResource: "Templates", withExtension: nil) else {
            throw ConfigurationError.invalid("Templates", reason: "the sharing service's templates are missing from its bundle")
        }
        return try SharedPageRenderer(directory: directory)
    }

    /// The HTML page of an open link.
    func page(_ view: SharedMealView) -> String { render(view, "shared-page") }

    /// The 1200x630 SVG share card.
    func card(_ view: SharedMealView) -> String { render(view, "share-card") }

    /// The HTML page of a link that does not open (unknown, expired, revoked, meal deleted).
    func unavailable(heading: String, message: String) -> String {
        render(["heading": heading, "message": message], "link-unavailable")
    }

    private func render(_ object: Any, _ name: String) -> String {
        guard let text = library.render(object, withTemplate: name) else {
            preconditionFailure("template \(name) was loaded at start")
        }
        return text
    }
}
