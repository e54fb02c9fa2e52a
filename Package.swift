// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swget",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SwgetKit", targets: ["SwgetKit"]),
        .executable(name: "swget", targets: ["swget"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Chain and hostname verification inside NIOSSL's custom verification callback, so the
        // session's server-trust challenge can accept, reject or defer to default evaluation.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        .target(
            name: "SwgetKit",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                "CZlib", "CBrotli", "CZstd",
            ]
        ),
        // The system compression libraries, reached through tiny module maps (headers from
        // zlib1g-dev, libbrotli-dev and libzstd-dev; scripts/install-deps installs them).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .systemLibrary(name: "CBrotli", path: "Sources/CBrotli"),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd"),
        .systemLibrary(name: "CBrotliEncoder", path: "Tests/CBrotliEncoder"),
        .executableTarget(
            name: "swget",
            dependencies: [
                "SwgetKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The scriptable in-process HTTP(S) server that tests use to misbehave on purpose.
        .target(
            name: "SwgetTestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                "CZlib", "CZstd", "CBrotliEncoder",
            ],
            path: "Tests/SwgetTestSupport"
        ),
        .testTarget(
            name: "SwgetKitTests",
            dependencies: ["SwgetKit", "SwgetTestSupport"]
        ),
        .testTarget(
            name: "swgetTests",
            // Depends on the executable so that building the tests builds the binary they run.
            dependencies: ["swget", "SwgetTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
