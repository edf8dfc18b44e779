import Foundation
import KeychainConformance
package import Testing

/// The `linux-keychain` CLI built beside the tests (or the one KEYCHAIN_CLI names); the test
/// fails without it, since `swift build --build-tests` always builds it.
package func builtCLI(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    try #require(ConformanceContext.locateCLI(), "the linux-keychain executable was not built beside the tests",
                 sourceLocation: sourceLocation)
}

/// The test-only program `name` (a probe), built beside the `linux-keychain` CLI.
package func builtExecutable(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let cli = try builtCLI(sourceLocation: sourceLocation)
    let path = URL(fileURLWithPath: cli).deletingLastPathComponent().appendingPathComponent(name).path
    try #require(FileManager.default.isExecutableFile(atPath: path), "\(name) was not built beside the tests",
                 sourceLocation: sourceLocation)
    return path
}

/// The full path of the program `name` on PATH, or nil when no directory there holds it.
package func pathOnPATH(_ name: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Whether the program `name` is on PATH.
package func toolExists(_ name: String) -> Bool {
    pathOnPATH(name) != nil
}
