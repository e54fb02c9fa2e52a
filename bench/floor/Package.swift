// swift-tools-version:6.0
// The batch scenario's floor: what SwiftNIO alone (NIOPosix and NIOHTTP1, no SwgetKit) costs to
// fetch a URL list over keep-alive connections and write each body to a file. See bench/README.md.
import PackageDescription

let package = Package(
    name: "nio-floor",
    dependencies: [.package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2")],
    targets: [
        .executableTarget(
            name: "nio-floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ]
)
