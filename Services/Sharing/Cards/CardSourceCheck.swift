import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Checks a card's SVG before it is rasterised: well-formed, no document type (so no entities), and every reference
/// (`href`, `xlink:href`, `url(...)`) pointing inside the document or at an inline PNG or JPEG `data:` picture.
/// User text cannot make references (the templates escape it), so this guards the templates themselves.
final class CardSourceCheck: NSObject, XMLParserDelegate {
    private static let inlinePictures = ["data:image/png;base64,", "data:image/jpeg;base64,"]
    private var selfContained = true

    /// Whether `svg` can be rendered without fetching anything.
    static func isSelfContained(_ svg: String) -> Bool {
        guard !svg.contains("<!DOCTYPE"), !svg.contains("<!ENTITY") else { return false }
        let check = CardSourceCheck()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.shouldResolveExternalEntities = false
        parser.delegate = check
        return parser.parse() && check.selfContained
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        for (name, value) in attributes {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if name == "href" || name.hasSuffix(":href") {
                if !(trimmed.hasPrefix("#") || Self.inlinePictures.contains(where: trimmed.hasPrefix)) { refuse(parser) }
            } else if value.contains("url(") {
                if value.components(separatedBy: "url(").dropFirst().contains(where: { !$0.hasPrefix("#") }) { refuse(parser) }
            }
        }
        if elementName == "style" || elementName == "script" || elementName == "foreignObject" { refuse(parser) }
    }

    func parser(_ parser: XMLParser, foundProcessingInstructionWithTarget target: String, data: String?) { refuse(parser) }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) { refuse(parser) }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        refuse(parser)
    }

    private func refuse(_ parser: XMLParser) {
        selfContained = false
        parser.abortParsing()
    }
}
