// swift-tools-version: 6.1
import PackageDescription

let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let lifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let configuration: Target.Dependency = .product(name: "Configuration", package: "swift-configuration")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let postgres: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let tracing: Target.Dependency = .product(name: "Tracing", package: "swift-distributed-tracing")
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics")
let metricsTestKit: Target.Dependency = .product(name: "MetricsTestKit", package: "swift-metrics")

/// Every backend service depends on the shared kit, plus what its own domain needs (`extra`).
/// `resources` are further folders copied into the bundle beside `Migrations` (templates).
func service(_ name: String, path: String, extra: [Target.Dependency] = [], resources: [String] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            "ServiceDefaults", "BackendKit", "PostgresSupport", "Messaging", "EventContracts", "SyncContracts", "Kafka", "WireJSON", hummingbird,
            httpTypes, configuration, metrics,
        ]
            + extra,
        path: path,
        exclude: ["Migrations"] + resources,
        resources: (["Migrations"] + resources).map { .copy($0) }
    )
}

let package = Package(
    name: "NutritionAI",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "AuthService", targets: ["AuthService"]),
        .executable(name: "MealsService", targets: ["MealsService"]),
        .executable(name: "MetricsService", targets: ["MetricsService"]),
        .executable(name: "TrendsService", targets: ["TrendsService"]),
        .executable(name: "SharingService", targets: ["SharingService"]),
        .executable(name: "FoodsService", targets: ["FoodsService"]),
        .executable(name: "Gateway", targets: ["Gateway"]),
        .executable(name: "LoadGenerator", targets: ["LoadGenerator"]),
        .library(name: "NutritionAIClient", targets: ["NutritionAIClient"]),
        .executable(name: "nutri", targets: ["nutri"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Hummingbird's HTTP parts (`NIOHTTPTypes`), which the gateway's pass-through handler reads and writes.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // The typed client's runtime and transport (its code is generated once from the OpenAPI document and committed).
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // OpenTelemetry traces over OTLP/HTTP only: the default traits would also build gRPC.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // MARK: Shared kit
        .systemLibrary(
            name: "CRdKafka",
            path: "Shared/CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev (2.3 or newer; deploy/setup.sh builds it)"])]
        ),
        .target(
            name: "Kafka",
            dependencies: [
                "CRdKafka", logging, lifecycle,
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Shared/Kafka"
        ),
        // How every JSON the system writes spells its ids: lower-case UUIDs (RFC 9562), in bodies, events and stored JSON.
        .target(name: "WireJSON", path: "Shared/WireJSON"),
        .target(name: "EventContracts", dependencies: ["WireJSON"], path: "Shared/EventContracts"),
        .target(
            name: "AccessTokens",
            dependencies: ["APIContracts", "WireJSON", .product(name: "JWTKit", package: "jwt-kit"), configuration, httpTypes],
            path: "Shared/AccessTokens"
        ),
        // What every HTTP answer and request of the API shares, with no server in it: the one error (`APIError`), what a
        // body that cannot be decoded says, list cursors, calendar days, base64url.
        .target(name: "APIContracts", dependencies: ["WireJSON", httpTypes], path: "Shared/APIContracts"),
        // The food catalog, with no server or database in it: the USDA foods in memory and their typo-tolerant search
        // (`FoodCatalog`), nutrient profiles and food traits, allergens, barcodes (GTIN), the energy check. Meals grounds
        // analyses on it; the foods service serves it with packaged products.
        .target(name: "FoodData", dependencies: ["APIContracts"], path: "Shared/FoodData"),
        .target(
            name: "ServiceDefaults",
            dependencies: [
                "APIContracts", "SyncContracts", "WireJSON", hummingbird, httpTypes, configuration, logging, lifecycle, tracing,
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Shared/ServiceDefaults"
        ),
        // PostgreSQL for any process that keeps state, the gateway's shared rate limits included: the pool, its
        // transactions and health, migrations, scheduled rounds. Links no Kafka.
        .target(
            name: "PostgresSupport",
            dependencies: [
                "ServiceDefaults", postgres, logging, lifecycle, configuration, tracing,
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Shared/PostgresSupport"
        ),
        // Events between services over PostgreSQL and Kafka: the transactional outbox and its relay, the inbox
        // consumer, parked events, the ids of deleted users.
        .target(
            name: "Messaging",
            dependencies: [
                "PostgresSupport", "Kafka", "EventContracts", "ServiceDefaults", "WireJSON", postgres, logging, lifecycle, configuration,
                tracing, .product(name: "Metrics", package: "swift-metrics"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Shared/Messaging"
        ),
        // What offline-first clients' sync is made of, in every owning service and the gateway: the changes-feed and
        // conflict shapes, the last-write-wins rule, the write stamp.
        .target(
            name: "SyncContracts",
            dependencies: [
                "APIContracts", "WireJSON", httpTypes, .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Shared/SyncContracts"
        ),
        // What a backend service is made of: its settings, Postgres pool, Kafka clients, outbox relay, inboxes,
        // topic setup, event-flow monitor and readiness, composed into one application.
        .target(
            name: "BackendKit",
            dependencies: [
                "ServiceDefaults", "PostgresSupport", "Messaging", "SyncContracts", "Kafka", "EventContracts", "WireJSON", postgres, hummingbird,
                logging, lifecycle, configuration, metrics, .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Shared/BackendKit"
        ),

        // MARK: Services
        service(
            "AuthService", path: "Services/Auth",
            extra: [
                "AccessTokens", postgres,
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        service(
            "MealsService", path: "Services/Meals",
            extra: [
                "FoodData", postgres,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]),
        service("MetricsService", path: "Services/Metrics", extra: [postgres]),
        service("TrendsService", path: "Services/Trends", extra: [postgres]),
        service(
            "SharingService", path: "Services/Sharing",
            extra: [
                postgres,
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: ["Templates"]),
        service(
            "FoodsService", path: "Services/Foods",
            extra: [
                "FoodData", postgres,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "Gateway",
            dependencies: [
                "ServiceDefaults", "AccessTokens", "SyncContracts", "PostgresSupport", "WireJSON", postgres, hummingbird, httpTypes,
                configuration, logging, lifecycle, metrics,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            path: "gateway",
            exclude: ["Migrations"],
            resources: [.copy("Resources/openapi.json"), .copy("Migrations")]
        ),

        // MARK: Load run (deploy/load): simulated app users through the gateway
        .executableTarget(
            name: "LoadGenerator",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "deploy/LoadGenerator"
        ),

        // MARK: Tests
        // The published contracts (OpenAPI, AsyncAPI) and the JSON Schema checks that hold real answers and events to them.
        .target(
            name: "NutritionAIClient",
            dependencies: [
                httpTypes, .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            path: "Clients/NutritionAIClient",
            exclude: ["openapi-generator-config.yaml", "Generated/openapi.json.sha256"]
        ),
        .executableTarget(
            name: "nutri",
            dependencies: ["NutritionAIClient", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Clients/nutri"
        ),
        .target(
            name: "ContractTesting",
            dependencies: ["SyncContracts", hummingbird, httpTypes, .product(name: "HummingbirdTesting", package: "hummingbird")],
            path: "Tests/ContractTesting"
        ),
        // What several test targets share (the in-memory configuration reader, seeded randomness and its seeds, the "today"s a
        // test about days runs under).
        .target(name: "TestSupport", dependencies: [configuration], path: "Tests/TestSupport"),
        // The trends read models in memory, behaving as their SQL does (`InMemoryTrendsStore`): the router tests' store, and
        // the consistency suite's second implementation beside PostgreSQL. It reads TrendsService's internals
        // (`@testable`), so it builds with the tests (debug), never into a product.
        // The foods service's product store in memory, behaving as its SQL does (`InMemoryProductStore`), and the events
        // foods consumes as tests make them: the router tests' store and the store suites' second implementation.
        .target(
            name: "FoodsTesting",
            dependencies: ["FoodsService", "FoodData", "EventContracts", "Messaging", logging],
            path: "Tests/FoodsTesting"
        ),
        .target(
            name: "TrendsTesting",
            dependencies: ["TrendsService", "ServiceDefaults", "EventContracts", logging],
            path: "Tests/TrendsTesting"
        ),
        .testTarget(
            name: "ContractTests",
            dependencies: ["ContractTesting", "EventContracts", "SyncContracts", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/ContractTests"
        ),
        .testTarget(
            name: "KafkaTests",
            dependencies: ["Kafka", "CRdKafka"],
            path: "Tests/KafkaTests"
        ),
        .testTarget(
            name: "ServiceDefaultsTests",
            dependencies: [
                "ServiceDefaults", "APIContracts", "TestSupport", hummingbird, lifecycle, logging, configuration, metrics, metricsTestKit, tracing,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Tests/ServiceDefaultsTests"
        ),
        .testTarget(
            name: "NutritionAIClientTests",
            dependencies: ["NutritionAIClient", httpTypes, .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Tests/NutritionAIClientTests"
        ),
        .testTarget(
            name: "SyncContractsTests",
            dependencies: ["SyncContracts", "ServiceDefaults", "TestSupport"],
            path: "Tests/SyncContractsTests"
        ),
        .testTarget(name: "FoodDataTests", dependencies: ["FoodData"], path: "Tests/FoodDataTests"),
        .testTarget(
            name: "EventContractsTests",
            dependencies: ["EventContracts", "WireJSON"],
            path: "Tests/EventContractsTests"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "BackendKit", "PostgresSupport", "Messaging", "SyncContracts", "Kafka", "CRdKafka", "EventContracts", "ServiceDefaults",
                "AccessTokens", "AuthService", "MealsService", "FoodsService", "FoodsTesting", "FoodData", "MetricsService", "TrendsService",
                "TrendsTesting",
                "SharingService", "Gateway",
                "ContractTesting", "TestSupport", postgres, logging, lifecycle, configuration, hummingbird, httpTypes, metricsTestKit, tracing,
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/IntegrationTests"
        ),
        .testTarget(
            name: "MealsTests",
            dependencies: [
                "MealsService", "FoodData", "ServiceDefaults", "BackendKit", "EventContracts", "SyncContracts", "WireJSON", "TestSupport",
                "ContractTesting",
                hummingbird, httpTypes, configuration, logging, metrics, metricsTestKit,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ],
            path: "Tests/MealsTests"
        ),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "AuthService", "ServiceDefaults", "ContractTesting", "TestSupport", hummingbird, httpTypes, logging, metrics, metricsTestKit,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/AuthTests"
        ),
        .testTarget(
            name: "MetricsTests",
            dependencies: [
                "MetricsService", "ServiceDefaults", "EventContracts", "SyncContracts", "ContractTesting", "TestSupport", hummingbird, httpTypes,
                logging,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/MetricsTests"
        ),
        .testTarget(
            name: "TrendsTests",
            dependencies: [
                "TrendsService", "TrendsTesting", "ServiceDefaults", "EventContracts", "TestSupport", "ContractTesting", hummingbird, httpTypes,
                configuration, logging, .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/TrendsTests"
        ),
        .testTarget(
            name: "SharingTests",
            dependencies: [
                "SharingService", "ServiceDefaults", "EventContracts", "ContractTesting", "TestSupport", hummingbird, httpTypes, metricsTestKit,
                lifecycle, logging,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/SharingTests"
        ),
        .testTarget(
            name: "FoodsTests",
            dependencies: [
                "FoodsService", "FoodsTesting", "FoodData", "ServiceDefaults", "EventContracts", "TestSupport", "ContractTesting", hummingbird,
                httpTypes,
                configuration, logging, metrics, metricsTestKit,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/FoodsTests"
        ),
        .testTarget(
            name: "BackendKitTests",
            dependencies: ["BackendKit"],
            path: "Tests/BackendKitTests"
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "ServiceDefaults", "AccessTokens", "SyncContracts", "TestSupport", hummingbird, httpTypes, configuration, logging,
                metrics, metricsTestKit, tracing,
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Tests/GatewayTests"
        ),
    ]
)
