import HTTPTypes
import NIOCore
import NIOHTTP1

// The inputs the pass-through's state machine takes beside its events, and the actions it gives back.
extension PassThroughStateMachine {
    /// What the admission decided, as far as the state machine is concerned (`PassThroughDecision`).
    enum Admission: Equatable {
        /// The router answers (the gateway's own routes, or a route it composes, whose client may expect `100 Continue`).
        case router(answerHeaders: HTTPFields, expectsContinue: Bool)
        case preflight
        /// Refused: the body is dropped (all of a `declaredLength`), or the connection closes after the refusal.
        case refuse(closesConnection: Bool, declaredLength: Int?)
        case forward(ForwardTerms)
    }

    /// What the state machine needs of a forwarded request (`PassThroughRequest`).
    struct ForwardTerms: Equatable {
        var isHead = false
        /// GET, HEAD or OPTIONS: sent once more when a kept-alive connection closed before answering.
        var isSafeToRetry = false
        var hasBody = false
        /// The most body bytes it may carry when its length was not declared (chunked); nil when it was.
        var undeclaredBodyLimit: Int?
        var expectsContinue = false

        /// The body goes up chunked (its length was not declared).
        var bodyIsChunked: Bool { undeclaredBodyLimit != nil }
    }

    /// What to do with a part read from the client.
    enum RequestPartAction: Equatable {
        /// Nothing: it was held for later, dropped, or is the end of a request whose connection is not made yet.
        case nothing
        /// Admit the request of this head as request `number` (`admitted`; `admissionWaits` while it suspends).
        case admit(HTTPRequestHead, number: Int)
        case passToRouter(HTTPServerRequestPart)
        /// Write a body part to the upstream connection (in a chunk when `chunked`), flushed now or at the read's end.
        case sendBody(ByteBuffer, chunked: Bool, flushNow: Bool)
        /// Write the request's end (the last chunk when `chunked`).
        case sendEnd(chunked: Bool, flushNow: Bool)
        /// Kept until the upstream connection is made; `holdsReads` when reads from the client now wait (a body hold).
        case keptUntilConnected(holdsReads: Bool)
        /// The body grew past its route's limit: the exchange ends so.
        case failExchange(ExchangeEnding)
        /// A dropped body grew past what is dropped: the connection closes.
        case closeClient
        /// A dropped body ended: the requests held meanwhile go on (`nextHeldPart`).
        case takeHeldParts
    }

    /// What to do with an admission's decision.
    enum AdmissionAction: Equatable {
        /// It came for a request no longer admitted (its client went away).
        case ignore
        /// Give the head to the router, after `100 Continue` when `writesContinue`, and then a quiesce event when
        /// `quiescesRouter` (the connection closes after this answer).
        case delegate(writesContinue: Bool, quiescesRouter: Bool)
        /// Answer 204 with the preflight's headers, then close when `closing`.
        case answerPreflight(closing: Bool)
        /// Answer the refusal, then close when `closing`.
        case refuse(closing: Bool)
        /// Start the exchange: `100 Continue` when `writesContinue`, a deadline check at `schedulesDeadlineCheck` when
        /// none is scheduled, then connect to an address of its upstream (`connectionMade`, `connectFailed`).
        case forward(writesContinue: Bool, schedulesDeadlineCheck: NIODeadline?)
    }

    /// What goes on an upstream connection just attached.
    struct RequestSending: Equatable {
        /// The answer to expect is to a HEAD request.
        var isHead: Bool
        /// A chunked answer is read as its chunks' data (for an HTTP/1.0 client).
        var decodesChunks: Bool
        /// The body parts read before the connection was made.
        var body: [ByteBuffer]
        var chunked: Bool
        /// The request's end follows (it was read whole).
        var sendsEnd: Bool
        var flushNow: Bool
    }

    /// The next attempt of an exchange whose connection failed or closed.
    enum UpstreamAttempt: Equatable {
        /// Connect to another address of the upstream, none of `excluding`.
        case connect(excluding: [Int])
        case fail(ExchangeEnding)
    }

    /// How the head of an upstream's answer goes to the client.
    struct AnswerHeadAction: Equatable {
        /// The answer goes chunked (as sent, or in the gateway's own chunks).
        var chunked: Bool
        /// The `Connection` field the head gets.
        var connection: UpstreamAnswerHeaders.Connection?
        /// The answer is a stream of events (counted in the open streams).
        var startsStream: Bool
        /// The stream began during shutdown and ends at once, so.
        var streamEnding: ExchangeEnding?
    }

    /// What the server's shutdown does to the connection.
    enum QuiesceAction: Equatable {
        /// Nothing is answered here: the router gets the event.
        case passOn
        /// The connection closes after the answer in progress.
        case held
        /// The stream of events in progress ends now.
        case endStream(ExchangeEnding)
    }

    /// What a deadline check does.
    enum DeadlineAction: Equatable {
        case nothing
        /// Check again then.
        case check(at: NIODeadline)
        /// The upstream did not answer in time: 504.
        case timeOut(ExchangeEnding)
    }

    /// Why an exchange failed, which decides its error answer.
    enum ExchangeFailure: Equatable {
        /// A chunked request body grew past its route's limit: 413, and the connection closes.
        case bodyTooLarge(limit: Int)
        /// No answer within the upstream timeout: 504.
        case timedOut
        /// No connection could be made: 503.
        case unavailable
        /// The connection failed or closed before the answer: 502.
        case failed
    }

    /// How an exchange ends, carried out by the handler in this order: its upstream connection, its answer's last
    /// bytes, its records (metrics, spans, access log), reads from the client, a flush, and the client's connection
    /// closed or the held requests taken.
    struct ExchangeEnding: Equatable {
        enum Answer: Equatable {
            /// Written whole; the gateway's last chunk follows when `lastChunk`.
            case whole(HTTPResponse.Status, lastChunk: Bool)
            /// No answer had begun: the one error shape, with `Connection: close` when `closing`.
            case error(ExchangeFailure, closing: Bool)
            /// The answer had begun and cannot be completed: the client's connection closes.
            case cutOff(HTTPResponse.Status)
        }

        enum Upstream: Equatable {
            /// No connection was attached.
            case unattached
            /// Back to the pool: it can serve another request.
            case giveBack
            case close
        }

        var answer: Answer
        var failed: Bool
        /// The answer was a stream of events.
        var wasStream: Bool
        var upstream: Upstream
        /// Reading from the upstream was paused: it resumes before the connection goes back.
        var resumesUpstreamReads: Bool
        /// A read from the client asked for while they were held is made now.
        var readsClient: Bool
        /// The client's connection closes now; else the held requests go on (`nextHeldPart`).
        var closesClient: Bool
    }

    /// What is left of an exchange whose client went away.
    struct Abandonment: Equatable {
        /// Recorded: the answer's status, or 499 when none began.
        var status: HTTPResponse.Status
        var failed: Bool
        var wasStream: Bool
        var closesUpstream: Bool
    }
}

/// How a chunked answer's framing reaches the client.
enum AnswerChunks: Equatable {
    /// As the upstream sent it.
    case asSent
    /// In chunks of the gateway's: a stream of events, read as its chunks' data, so that the gateway can end it between
    /// two chunks when it shuts down.
    case again
    /// Not at all: an HTTP/1.0 client gets the data, and the end of its connection ends the answer.
    case removed
}
