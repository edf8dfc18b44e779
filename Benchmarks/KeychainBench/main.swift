import Foundation
import LinuxKeychain

// keychain-bench: get/set/add/delete latency of every backend usable here, through the front
// end, next to the raw calls measured in the same run. See docs/performance.md.
// A whole-process row writes a secret to its child's stdin; a child that exited first (a
// binary not built: exit 127) must fail that row with EPIPE, not end the whole run by SIGPIPE
// before any table is printed.
signal(SIGPIPE, SIG_IGN)
let options: BenchmarkOptions
do {
    options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch let error as BenchmarkUsageError {
    try? FileHandle.standardError.write(contentsOf: Data("keychain-bench: \(error.message)\n\(BenchmarkOptions.usage)\n".utf8))
    exit(2)
}

do {
    var results = try BenchmarkRun(options: options).run()
    if options.wholeProcessOnly || options.bundleItems != nil, let path = options.jsonPath, FileManager.default.fileExists(atPath: path) {
        // The earlier full run's rows, with those of this kind (always its last) replaced.
        let kind = options.bundleItems == nil ? "(whole process)" : "(bundle)"
        results = try ReportWriter.readJSON(from: path).filter { !$0.operation.hasSuffix(kind) } + results
    }
    print(ReportWriter.table(results))
    if let summary = DurableDefaultAgainstKeyring.summary(results) { print(summary) }
    if let path = options.jsonPath { try ReportWriter.writeJSON(results, to: path) }
    // Seconds-long bundle rows would flatten the microsecond scale of the rest.
    if let path = options.svgPath, options.bundleItems == nil {
        try ReportWriter.writeSVG(results.filter { !$0.operation.hasSuffix("(bundle)") }, to: path)
    }
    if let path = options.markdownPath { try ReportWriter.writeMarkdown(results, to: path) }
} catch {
    try? FileHandle.standardError.write(contentsOf: Data("keychain-bench: \(error)\n".utf8))
    exit(1)
}
