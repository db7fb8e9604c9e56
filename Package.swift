// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "iidbatch",
    // Linux is where it runs (librdkafka from Debian); on Apple platforms the code's Span needs 26.
    platforms: [.macOS(.v26)],
    products: [
        .executable(name: "iidbatch", targets: ["iidbatch"]),
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "WireJSON", targets: ["WireJSON"]),
        .library(name: "InstanceAPI", targets: ["InstanceAPI"]),
        .library(name: "Emulator", targets: ["Emulator"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.21.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.60.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        // Benchmarks and end-to-end tests start processes with it, not Foundation's `Process`.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
    ],
    targets: [
        // librdkafka from Debian's librdkafka-dev: rdkafka.h and rdkafka_mock.h.
        .systemLibrary(
            name: "CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),
        // A small, safe Swift API over librdkafka. All C interop lives in Sources/Kafka/RDKafka/.
        .target(
            name: "Kafka",
            dependencies: ["CRdKafka"]
        ),
        // Strict JSON reading and fast writing, the packed containers items travel in, the wire time
        // format: the one owner of the JSON every other module reads and writes. Of Foundation, Data and Date only.
        .target(name: "WireJSON"),
        // The backend APIs: typed operations, the HTTP client, service-account auth, result taxonomy.
        .target(
            name: "InstanceAPI",
            dependencies: [
                "WireJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // An HTTP server that behaves like the backend APIs, with state, auth and fault injection.
        .target(
            name: "Emulator",
            dependencies: [
                "InstanceAPI", "WireJSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Requests and outcomes on the wire, validation, batching, execution, retries, offsets, the worker.
        .target(
            name: "Pipeline",
            dependencies: [
                "Kafka", "InstanceAPI", "WireJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Names the commit the binary is built from (BuildInfo.commit): git, or $IIDBATCH_COMMIT in
        // a Docker build. It writes under .build only, and only when the commit changed.
        .plugin(
            name: "BuildInfoPlugin",
            capability: .buildTool(),
            path: "Sources/BuildInfoPlugin"
        ),
        // What every `iidbatch` command shares, the product's and the benchmarks' alike: its output
        // lines and log format, its errors and exit statuses, how the process exits and stops on a
        // signal, how a worker process runs its tasks and timers.
        .target(
            name: "CommandSupport",
            dependencies: [
                "Kafka", "WireJSON", "InstanceAPI", "Pipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The benchmark harness, `iidbatch bench …`: figures from the shipped pipeline files, the
        // embedded broker and the emulator; none of the product's commands use it.
        .target(
            name: "Bench",
            dependencies: [
                "CommandSupport", "Kafka", "InstanceAPI", "Emulator", "Pipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "iidbatch",
            dependencies: [
                "Bench",
                "CommandSupport",
                "Kafka",
                "InstanceAPI",
                "Emulator",
                "Pipeline",
                "WireJSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            plugins: ["BuildInfoPlugin"]
        ),
        // What two or more test targets share: a loopback socket of their own, a fixture's failure,
        // a fixture always stopped. Only what is shared lives here; a target's own fixtures stay with it.
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "KafkaTests",
            dependencies: ["Kafka", "TestSupport"]
        ),
        .testTarget(
            name: "PipelineTests",
            dependencies: ["Pipeline", "InstanceAPI", "Kafka", "WireJSON", "TestSupport", .product(name: "MetricsTestKit", package: "swift-metrics")]
        ),
        .testTarget(
            name: "InstanceAPITests",
            dependencies: [
                "InstanceAPI", "WireJSON", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // The strict parser (with its differential fuzz test against Foundation), the writer, the packed
        // containers. InstanceAPI only for SplitMix64, the seeded generator of the fuzz cases.
        .testTarget(
            name: "WireJSONTests",
            dependencies: ["WireJSON", "InstanceAPI", "TestSupport"]
        ),
        // The client against the emulator over real HTTP.
        .testTarget(
            name: "EmulatorTests",
            dependencies: [
                "InstanceAPI", "Emulator", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The command line's own decisions as pure functions: exit statuses, log severities.
        .testTarget(
            name: "IIDBatchTests",
            dependencies: [
                "iidbatch", "CommandSupport", "InstanceAPI", "Kafka", "Pipeline", .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The benchmark harness's own rules: real-size items, how a shipped pipeline file is rewritten.
        .testTarget(
            name: "BenchTests",
            dependencies: ["Bench", "CommandSupport", "Pipeline"]
        ),
        // Runs the built `iidbatch` binary as a user would, next to kcat and real sockets.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "InstanceAPI", "Kafka", "Emulator", "Pipeline", "WireJSON", "TestSupport", .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Subprocess", package: "swift-subprocess"), .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
