// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "iidbatch",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "iidbatch", targets: ["iidbatch"]),
        .library(name: "Kafka", targets: ["Kafka"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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
        .executableTarget(
            name: "iidbatch",
            dependencies: [
                "Kafka",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "KafkaTests",
            dependencies: ["Kafka"]
        ),
        // Runs the built `iidbatch` binary as a user would, next to kcat and real sockets.
        .testTarget(
            name: "EndToEndTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
