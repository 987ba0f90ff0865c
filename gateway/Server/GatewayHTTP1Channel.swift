import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The gateway's HTTP/1.1 connections: Hummingbird's `HTTP1Channel` pipeline without swift-nio-extras'
/// `HTTP1ToHTTPServerCodec` (which parses every request target as a URL, seen in the pass-through's profile): NIO's
/// HTTP/1 server codec, then the connection's handlers (`PassThroughHandler`, which reads NIO's request parts, gives
/// the router HTTPTypes' (`GatewayHTTP1Codec`) and writes NIO's answer parts itself), then the router's, as
/// `HTTP1Channel` adds them. The first of `handlers` must read NIO's parts and pass on HTTPTypes'.
struct GatewayHTTP1Channel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    /// Handlers between the codec and the router, made for each connection.
    let handlers: @Sendable () -> [any RemovableChannelHandler]

    /// A server of these connections, for `Application(server:)`.
    static func server(handlers: @escaping @Sendable () -> [any RemovableChannelHandler]) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GatewayHTTP1Channel(responder: responder, handlers: handlers) }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // Hummingbird's limits for a request's head.
            let hummingbirdLimits = HTTP1Channel.Configuration().httpDecoder
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = hummingbirdLimits.maxHeaderFieldSize
            limits.maxHeaderListSize = hummingbirdLimits.maxHeaderListSize
            limits.maxHeaderFieldCount = hummingbirdLimits.maxHeaderFieldCount
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // the pass-through and the router's channel order pipelined requests
                withErrorHandling: false,  // errors are answered by the router (`ErrorMiddleware`) and the pass-through
                withOutboundHeaderValidation: false,  // answers' fields are HTTPTypes', checked when they were made
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits
            )
            try channel.pipeline.syncOperations.addHandlers(handlers())
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
