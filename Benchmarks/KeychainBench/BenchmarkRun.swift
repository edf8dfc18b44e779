import Foundation
import LinuxKeychain

/// The whole run: which backends, at which store sizes, with which baselines.
struct BenchmarkRun {
    let options: BenchmarkOptions

    func run() throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let registry = KeychainBackendRegistry.withBuiltIns
        let names = options.backends.isEmpty ? registry.names : options.backends
        for name in names {
            let backend = try registry.backend(named: name)
            if case .unavailable(let reason) = backend.availability() {
                progress("skipping \(name): \(reason.message)")
                continue
            }
            progress("measuring \(name)")
            let benchmark = BackendBenchmark(backend: backend, iterations: options.iterations, items: 10)
            results += try benchmark.run { _ in nil }
        }
        progress("measuring front-end overhead")
        results.append(try FrontEndOverhead.measure(iterations: options.iterations))
        progress("done")
        return results
    }

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("[keychain-bench] \(message)\n".utf8))
    }
}
