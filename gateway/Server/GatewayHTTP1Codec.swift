import Foundation
import HTTPTypes
import NIOHTTP1

/// Conversions between NIO's HTTP/1 parts and HTTPTypes', as swift-nio-extras' `HTTP1ToHTTPServerCodec` makes them
/// (`http` scheme, the first `Host` as the authority and out of the fields, cookies not split), without its cost on
/// every request: an origin-form target (`/api/meals?day=...`, what clients send) is the path as it is; only another
/// form (absolute, `http://host/path`) is parsed as a URL. The pass-through reads NIO's parts and converts a request's
/// head for its admission, and what it gives the router; it writes an upstream's answer head as it read it and
/// converts the router's and its own with `head(_:)`.
enum GatewayHTTP1Codec {
    /// The request of `head`; throws for a method that is not a token (the parser lets few through).
    static func request(_ head: HTTPRequestHead) throws -> HTTPRequest {
        let method: HTTPRequest.Method
        switch head.method {
        case .GET: method = .get
        case .POST: method = .post
        case .PUT: method = .put
        case .PATCH: method = .patch
        case .DELETE: method = .delete
        case .HEAD: method = .head
        case .OPTIONS: method = .options
        case .TRACE: method = .trace
        case .CONNECT: method = .connect
        default:
            guard let other = HTTPRequest.Method(head.method.rawValue) else { throw InvalidRequestMethod() }
            method = other
        }
        return HTTPRequest(
            method: method, scheme: "http", authority: head.headers.first(name: "Host"), path: path(of: head.uri),
            headerFields: fields(head.headers, skippingHost: true))
    }

    /// The path and query of a request target: an origin-form target as it is, else the part of the URL after its
    /// authority (`/` when that is empty); a target that is no URL is kept as it is.
    static func path(of target: String) -> String {
        guard target.utf8.first != UInt8(ascii: "/"), let url = URLComponents(string: target), url.scheme != nil else { return target }
        let path = url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
        return url.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    /// HTTPTypes' fields of `headers`, without the first `Host` when `skippingHost` (it is the request's authority);
    /// a name that is not a token is left out.
    static func fields(_ headers: HTTPHeaders, skippingHost: Bool) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        var hostToSkip = skippingHost
        for (name, value) in headers {
            if hostToSkip, ASCIICase.equals(name.utf8, lowercased: "host") {
                hostToSkip = false
                continue
            }
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    /// NIO's HTTP/1 head of `response`.
    static func head(_ response: HTTPResponse) -> HTTPResponseHead {
        HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase),
            headers: headers(response.headerFields))
    }

    /// NIO's headers of `fields`, in their order.
    static func headers(_ fields: HTTPFields) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        for field in fields { headers.add(name: field.name.rawName, value: field.value) }
        return headers
    }
}

/// A request method that is not an HTTP token.
struct InvalidRequestMethod: Error, CustomStringConvertible {
    var description: String { "the request method is not an HTTP token" }
}
