import Foundation
import ServiceDefaults

/// Where and how the gateway's own span path (`SpanExport`) sends its spans, read from the same OpenTelemetry
/// variables swift-otel reads for every other span of the process (`TracingBootstrap`), so one configuration covers
/// both: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as it is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces`
/// appended), `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or `http/json`),
/// `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,...`, percent-decoded), `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`,
/// `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`, `OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT`, and the batch
/// processor's `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE` and `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (times in
/// milliseconds). `OTEL_EXPORTER_OTLP_COMPRESSION=gzip` is not applied to these spans (`compressionIgnored`): they go
/// uncompressed, which every collector takes.
struct SpanExportSettings: Sendable {
    enum Encoding: Sendable {
        case protobuf, json

        var contentType: String { self == .protobuf ? "application/x-protobuf" : "application/json" }
    }

    var endpoint: URL
    var encoding: Encoding
    var headers: [(name: String, value: String)]
    var resource: [SpanAttribute]
    var sampler: SpanSampler
    var scheduleDelay: Duration
    var maxQueueSize: Int
    var maxExportBatchSize: Int
    var exportTimeout: Duration
    /// gzip was asked for, and these spans go uncompressed (said once at startup).
    var compressionIgnored = false

    init(
        endpoint: URL, encoding: Encoding = .protobuf, headers: [(name: String, value: String)] = [], service: String = "gateway",
        sampler: SpanSampler = .parentBased(root: .always), scheduleDelay: Duration = .seconds(5), maxQueueSize: Int = 2048,
        maxExportBatchSize: Int = 512, exportTimeout: Duration = .seconds(10)
    ) {
        self.endpoint = endpoint
        self.encoding = encoding
        self.headers = headers
        self.resource = [SpanAttribute("service.name", service)]
        self.sampler = sampler
        self.scheduleDelay = scheduleDelay
        self.maxQueueSize = maxQueueSize
        self.maxExportBatchSize = min(maxExportBatchSize, maxQueueSize)
        self.exportTimeout = exportTimeout
    }

    /// The settings `environment` asks for; nil when it asks for no traces (the rule of `TracingBootstrap.isRequested`).
    init?(environment: [String: String]) throws {
        guard TracingBootstrap.isRequested(environment: environment) else { return nil }
        let value = { (name: String) in environment[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 } }
        let endpointText: String
        if let traces = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            endpointText = traces
        } else {
            let base = value("OTEL_EXPORTER_OTLP_ENDPOINT") ?? ""
            endpointText = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
        }
        guard let endpoint = URL(string: endpointText), let scheme = endpoint.scheme, ["http", "https"].contains(scheme), endpoint.host != nil
        else { throw ConfigurationError.invalid("OTEL_EXPORTER_OTLP_ENDPOINT", reason: "not an http(s) URL: \(endpointText)") }
        let encoding: Encoding
        switch value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value("OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf" {
        case "http/protobuf": encoding = .protobuf
        case "http/json": encoding = .json
        case let other:
            throw ConfigurationError.invalid("OTEL_EXPORTER_OTLP_PROTOCOL", reason: "\(other) is not built in (http/protobuf or http/json)")
        }
        let headers = try Self.pairs(
            value("OTEL_EXPORTER_OTLP_TRACES_HEADERS") ?? value("OTEL_EXPORTER_OTLP_HEADERS"), name: "OTEL_EXPORTER_OTLP_HEADERS")
        let milliseconds = { (name: String, fallback: Int) throws -> Duration in
            guard let text = value(name) else { return .milliseconds(fallback) }
            guard let number = Int(text), number > 0 else { throw ConfigurationError.invalid(name, reason: "not a positive number of milliseconds") }
            return .milliseconds(number)
        }
        let count = { (name: String, fallback: Int) throws -> Int in
            guard let text = value(name) else { return fallback }
            guard let number = Int(text), number > 0 else { throw ConfigurationError.invalid(name, reason: "not a positive number") }
            return number
        }
        // `OTEL_SERVICE_NAME` wins over a `service.name` among the resource attributes, as the specification says.
        let attributes = try Self.pairs(value("OTEL_RESOURCE_ATTRIBUTES"), name: "OTEL_RESOURCE_ATTRIBUTES")
        let service = value("OTEL_SERVICE_NAME") ?? attributes.last { $0.name == "service.name" }?.value ?? "gateway"
        self.init(
            endpoint: endpoint, encoding: encoding, headers: headers, service: service,
            sampler: try SpanSampler(name: value("OTEL_TRACES_SAMPLER"), argument: value("OTEL_TRACES_SAMPLER_ARG")),
            scheduleDelay: try milliseconds("OTEL_BSP_SCHEDULE_DELAY", 5000), maxQueueSize: try count("OTEL_BSP_MAX_QUEUE_SIZE", 2048),
            maxExportBatchSize: try count("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
            exportTimeout: try milliseconds(
                value("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") == nil ? "OTEL_EXPORTER_OTLP_TIMEOUT" : "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", 10000))
        compressionIgnored = (value("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION") ?? value("OTEL_EXPORTER_OTLP_COMPRESSION")) == "gzip"
        resource += attributes.filter { $0.name != "service.name" }.map { SpanAttribute($0.name, $0.value) }
    }

    /// `key=value` pairs separated by commas, each percent-decoded (the W3C Baggage form the OTLP variables use).
    static func pairs(_ text: String?, name: String) throws -> [(name: String, value: String)] {
        guard let text else { return [] }
        return try text.split(separator: ",").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let key = parts[0].trimmingCharacters(in: .whitespaces).removingPercentEncoding, !key.isEmpty,
                let value = parts[1].trimmingCharacters(in: .whitespaces).removingPercentEncoding
            else { throw ConfigurationError.invalid(name, reason: "not key=value pairs separated by commas") }
            return (key, value)
        }
    }
}

/// Which requests' spans are recorded (`OTEL_TRACES_SAMPLER`): always, never, a share of trace ids, or as the
/// caller's `traceparent` says with one of those for requests that start a trace (`parentbased_*`, the default being
/// `parentbased_always_on`).
indirect enum SpanSampler: Equatable, Sendable {
    case always
    case never
    /// Trace ids whose lower 8 bytes fall below `ratio` of the range: the same decision for a trace everywhere.
    case ratio(Double)
    case parentBased(root: SpanSampler)

    init(name: String?, argument: String?) throws {
        let ratio = {
            guard let argument else { return 1.0 }
            guard let value = Double(argument), (0...1).contains(value) else {
                throw ConfigurationError.invalid("OTEL_TRACES_SAMPLER_ARG", reason: "not a ratio between 0 and 1")
            }
            return value
        }
        switch name ?? "parentbased_always_on" {
        case "always_on": self = .always
        case "always_off": self = .never
        case "traceidratio": self = .ratio(try ratio())
        case "parentbased_always_on": self = .parentBased(root: .always)
        case "parentbased_always_off": self = .parentBased(root: .never)
        case "parentbased_traceidratio": self = .parentBased(root: .ratio(try ratio()))
        case let other: throw ConfigurationError.invalid("OTEL_TRACES_SAMPLER", reason: "\(other) is not a sampler the gateway knows")
        }
    }

    /// Whether a request of trace `traceId`, whose caller sent `parent` (nil for none), is recorded.
    func samples(_ traceId: TraceID, parent: TraceParent?) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .ratio(let ratio): ratio >= 1 || Double(traceId.low >> 11) < ratio * Double(UInt64(1) << 53)
        case .parentBased(let root): parent.map(\.sampled) ?? root.samples(traceId, parent: nil)
        }
    }
}
