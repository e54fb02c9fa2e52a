// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swget",
    products: [
        .library(name: "SwgetKit", targets: ["SwgetKit"]),
        .executable(name: "swget", targets: ["swget"]),
        // The fuzz targets' properties, for the separate Fuzz/ package (a product only so that it
        // can link them); the normal suite replays Fuzz/Corpus through the same code. Not an API.
        .library(name: "SwgetFuzzChecks", targets: ["SwgetFuzzChecks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Chain and hostname verification inside NIOSSL's custom verification callback, so the
        // session's server-trust challenge can accept, reject or defer to default evaluation.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        // Digest authentication needs SHA-512/256 (CryptoExtras, 4.x); checksums and pins use SHA-256.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.5.2"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // Counts allocations for the allocation gate (Tests/AllocationProbe); never in the binary.
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
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
                // TLSUserEvent: FTPS learns that a control connection's TLS handshake finished.
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                "CZlib", "CBrotli", "CZstd", "CPSL", "CIDN2",
            ],
            swiftSettings: nonsendingByDefault
        ),
        // The system compression libraries, reached through tiny module maps (headers from
        // zlib1g-dev, libbrotli-dev and libzstd-dev; scripts/install-deps installs them).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // glibc's mallopt (malloc.h), for the command's allocator settings.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .systemLibrary(name: "CBrotli", path: "Sources/CBrotli"),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd"),
        // The public suffix list (libpsl-dev), so no server sets a cookie for co.uk or github.io.
        .systemLibrary(name: "CPSL", path: "Sources/CPSL"),
        // IDNA 2008 / UTS #46 host names (libidn2-dev), as curl and wget2 use it.
        .systemLibrary(name: "CIDN2", path: "Sources/CIDN2"),
        .systemLibrary(name: "CBrotliEncoder", path: "Tests/CBrotliEncoder"),
        // The command line: options -> requests, progress rendering, exit codes. A library so
        // that tests import it; the executable is a two-line main.
        .target(
            name: "SwgetCLI",
            dependencies: [
                "SwgetKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // NIOSingletons and MultiThreadedEventLoopGroup: the command sets how many event
                // loops carry its connections, and starts them while it parses its arguments.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "CMalloc",
            ],
            swiftSettings: nonsendingByDefault
        ),
        .executableTarget(name: "swget", dependencies: ["SwgetCLI"]),
        // SwgetKit used exactly as the README shows; built and run against the test server by
        // Tests/swgetTests/ExampleProgramTests.swift, so the documentation cannot rot.
        .executableTarget(name: "SwgetKitExample", dependencies: ["SwgetKit"], path: "Examples/SwgetKitExample"),
        // The swget command with its allocations counted, for the allocation gate
        // (Tests/swgetTests/AllocationGateTests.swift); run with the interposer preloaded.
        .executableTarget(
            name: "SwgetAllocationProbe",
            dependencies: ["SwgetCLI", .product(name: "MallocInterposerSwift", package: "malloc-interposer")],
            path: "Tests/AllocationProbe"
        ),
        // The property of every libFuzzer target in Fuzz/, shared by the fuzzers and the corpus
        // replay of SwgetKitTests (Tests/SwgetKitTests/Hardening/).
        .target(
            name: "SwgetFuzzChecks",
            dependencies: [
                "SwgetKit",
                "SwgetCLI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Docs tooling: renders man/swget.1 from the option declarations (never in the binary).
        .target(name: "SwgetDocs", path: "Sources/SwgetDocs"),
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
            dependencies: ["SwgetKit", "SwgetTestSupport", "SwgetFuzzChecks", .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: nonsendingByDefault
        ),
        .testTarget(
            name: "swgetTests",
            // Depends on the executable so that building the tests builds the binary they run.
            dependencies: ["swget", "SwgetKitExample", "SwgetAllocationProbe", "SwgetCLI", "SwgetKit", "SwgetDocs", "SwgetTestSupport"],
            swiftSettings: nonsendingByDefault
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// Async functions run on their caller's executor unless marked `@concurrent` (SE-0461). A
/// transfer awaits some fifty internal async calls per request; under the old rule each one
/// hopped to the generic executor and back, and each hop read the task's executor preference
/// under its status lock.
var nonsendingByDefault: [SwiftSetting] { [.enableUpcomingFeature("NonisolatedNonsendingByDefault")] }
