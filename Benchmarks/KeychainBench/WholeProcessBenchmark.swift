import Foundation

/// `keychain get` from process start to exit, next to the other tools an operator would use
/// for the same read: `keyctl pipe` and `python3 -m keyring get`.
enum WholeProcessBenchmark {
    /// Times `arguments` run as a whole process `iterations` times; fails if any run fails.
    static func measure(_ arguments: [String], iterations: Int, environment: [String: String] = [:]) throws -> LatencySample {
        try LatencySample.measure(iterations: iterations, warmup: 1) { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BaselineError(description: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
            }
        }
    }

    /// The `keychain` executable built beside this one.
    static var cliPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keychain").path
    }
}
