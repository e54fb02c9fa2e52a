// swift-tools-version:6.0
// libFuzzer targets for swget's parsers: a package of its own, so that neither `swift build` nor
// `swift test` at the root compiles them. Build and run through `scripts/fuzz` (it passes
// `-sanitize=fuzzer,address`); each target is one small main.swift handing libFuzzer's inputs to
// its property in the root package's SwgetFuzzChecks (Sources/SwgetFuzzChecks/), which drives a
// production entry point (SwgetKit's public API, or `FuzzEntry` for an internal parser). The
// normal suite replays Fuzz/Corpus through the same properties.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (lowercased), which differs between clones.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()
let checks = Target.Dependency.product(name: "SwgetFuzzChecks", package: root)

let targets = [
    "FuzzResponseHead", "FuzzContentDisposition", "FuzzContentRange", "FuzzDecoders", "FuzzResumeData",
    "FuzzCookies", "FuzzAuth", "FuzzNetrc", "FuzzProxy", "FuzzHSTS", "FuzzFTP", "FuzzURL",
    "FuzzConfigFile", "FuzzWriteOut", "FuzzInputList",
]

let package = Package(
    name: "SwgetFuzz",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [checks]),
    ] + targets.map { name in
        .executableTarget(name: name, dependencies: ["FuzzSupport", checks])
    },
    swiftLanguageModes: [.v6]
)
