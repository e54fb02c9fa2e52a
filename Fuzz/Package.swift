// swift-tools-version:6.0
// libFuzzer targets for swget's parsers: a package of its own, so that neither `swift build` nor
// `swift test` at the root compiles them. Build and run through `scripts/fuzz` (it passes
// `-sanitize=fuzzer,address`); each target is one small main.swift driving a production entry
// point (SwgetKit's public API, or `FuzzEntry` for an internal parser).
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (lowercased), which differs between clones.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()
let swgetKit = Target.Dependency.product(name: "SwgetKit", package: root)

let targets = [
    "FuzzResponseHead", "FuzzContentDisposition", "FuzzContentRange", "FuzzDecoders", "FuzzResumeData",
    "FuzzCookies", "FuzzAuth", "FuzzNetrc", "FuzzProxy", "FuzzHSTS", "FuzzFTP", "FuzzURL",
]

let package = Package(
    name: "SwgetFuzz",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [swgetKit]),
    ] + targets.map { name in
        .executableTarget(name: name, dependencies: [
            "FuzzSupport",
            swgetKit,
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ])
    },
    swiftLanguageModes: [.v6]
)
