import HTTPTypes
import ServiceDefaults

/// How a request's body is sent, checked against its route's limit before any of it is read.
struct BodyFraming: Sendable {
    /// `Content-Length`, when declared.
    var declaredLength: Int?
    /// `Transfer-Encoding: chunked`: the length is known only at its end.
    var isChunked: Bool
    /// The most bytes the route takes.
    var limit: Int
    /// `Expect: 100-continue`: the client waits for a go-ahead before sending the body.
    var expectsContinue: Bool

    var hasBody: Bool { isChunked || (declaredLength ?? 0) > 0 }

    /// A refused request's connection closes after the answer when its body may not follow (the client waits for
    /// `100 Continue`); otherwise the body is read and dropped: all of a declared length (within the route's limit), a
    /// chunked one up to `PassThroughStateMachine.discardLimit`.
    var closesOnRefusal: Bool { expectsContinue }

    /// The framing of `request`, or the refusal of a body that cannot be taken (its connection then closes): a declared
    /// body over `limit` (413), an expectation other than `100-continue` (417).
    static func of(_ request: HTTPRequest, limit: Int) -> Result<BodyFraming, APIError> {
        let fields = request.headerFields
        var expectsContinue = false
        if let expectation = fields.value(of: .expect) {
            guard expectation.lowercased() == "100-continue" else {
                return .failure(APIError(.expectationFailed, code: "expectation_failed", message: "Only Expect: 100-continue is supported."))
            }
            expectsContinue = true
        }
        let declared = fields.value(of: .contentLength).flatMap { Int($0) }
        if let declared, declared > limit {
            return .failure(tooLarge(limit: limit))
        }
        let isChunked = declared == nil && fields.value(of: .transferEncoding)?.lowercased().contains("chunked") == true
        return .success(BodyFraming(declaredLength: declared, isChunked: isChunked, limit: limit, expectsContinue: expectsContinue))
    }

    /// 413 for a body larger than `limit`, declared or found while it was read.
    static func tooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "payload_too_large", message: "The request body is larger than \(limit) bytes.")
    }
}
