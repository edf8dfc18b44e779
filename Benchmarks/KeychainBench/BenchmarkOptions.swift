/// Command-line options of `keychain-bench`.
struct BenchmarkOptions {
    /// Few iterations and small stores: proves the target runs, as CI does. Times mean nothing.
    var quick = false
    var jsonPath: String?
    var svgPath: String?
    var markdownPath: String?
    /// Only these backends, or all available when empty.
    var backends: [String] = []
    /// The largest store the growth rows go to; nil: 10,000, and 1,000 on the Secret Service.
    var maximumItems: Int?
    /// Only the whole-process rows, put in place of those of the report already at `--json`.
    var wholeProcessOnly = false
    /// Only the bundle rows (`BundleBenchmark`) at this many items, put in place of those of
    /// the report already at `--json`.
    var bundleItems: Int?

    static let usage = """
    usage: keychain-bench [--quick] [--whole-process | --bundle N] [--json PATH] [--svg PATH] [--markdown PATH] [--backend NAME]... [--max-items N]
      --quick          a short smoke run (CI); its times are not meaningful
      --whole-process  only the whole-process rows, replacing those of the report at --json PATH
      --bundle N       only a bundle of N items exported from keyring and imported into each
                       --backend (default file, vault, keyring, secret-service; secret-service
                       at 1000 unless --max-items allows more), beside N raw adds; the rows
                       replace those of the report at --json PATH, and no --svg is drawn
      --json PATH      write the figures as JSON
      --svg PATH       draw p50 per backend and operation, with raw baselines, on a log scale
      --markdown PATH  write the table as Markdown (docs/benchmark.md)
      --backend NAME   measure only NAME (repeatable); default: every backend usable here
      --max-items N    grow stores to at most N items (sizes are 10, 100, 1000, 10000; default
                       10000, and 1000 on secret-service, whose every write rewrites its whole file)
    """

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--whole-process": wholeProcessOnly = true
            case "--bundle":
                let text = try Self.value(after: argument, in: &remaining)
                guard let number = Int(text), number >= 1 else {
                    throw BenchmarkUsageError(message: "--bundle needs a number of items, not \(text)")
                }
                bundleItems = number
            case "--json": jsonPath = try Self.value(after: argument, in: &remaining)
            case "--svg": svgPath = try Self.value(after: argument, in: &remaining)
            case "--markdown": markdownPath = try Self.value(after: argument, in: &remaining)
            case "--backend": backends.append(try Self.value(after: argument, in: &remaining))
            case "--max-items":
                let text = try Self.value(after: argument, in: &remaining)
                guard let number = Int(text), number >= 10 else {
                    throw BenchmarkUsageError(message: "--max-items needs a number of at least 10, not \(text)")
                }
                maximumItems = number
            default: throw BenchmarkUsageError(message: "unknown argument \(argument)")
            }
        }
    }

    /// Timed calls per operation.
    var iterations: Int { quick ? 20 : 300 }

    private static func value(after option: String, in remaining: inout ArraySlice<String>) throws -> String {
        guard let value = remaining.popFirst() else { throw BenchmarkUsageError(message: "\(option) needs a value") }
        return value
    }
}

struct BenchmarkUsageError: Error {
    let message: String
}
