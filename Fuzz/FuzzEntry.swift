import Foundation

// The libFuzzer entry points shared by every target. Each file in Targets/ defines
// `fuzzSeeds()` (real encoded values, made by the project's own encoders) and
// `fuzzCheck(_:)` (decode one input; trap on any broken contract). scripts/fuzz.sh compiles
// one of them with this file and the modules SwiftPM built with `-sanitize=fuzzer,address`.

/// With LKC_FUZZ_WRITE_SEEDS=DIR the binary writes its seeds into DIR and exits instead of
/// fuzzing: `scripts/fuzz.sh --seeds TARGET` regenerates Fuzz/corpus/TARGET this way.
@_cdecl("LLVMFuzzerInitialize")
func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    guard let directory = ProcessInfo.processInfo.environment["LKC_FUZZ_WRITE_SEEDS"] else {
        // Every seed must itself decode, or the corpus would not be "real encoded values".
        // Decoding them here also builds the decoders' lazy globals before fuzzing starts:
        // built during a run, they would count as memory an input leaked.
        for seed in fuzzSeeds() { fuzzCheck(seed) }
        return 0
    }
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (index, seed) in fuzzSeeds().enumerated() {
            fuzzCheck(seed)
            try seed.write(to: URL(fileURLWithPath: "\(directory)/seed-\(index)"))
        }
    } catch {
        fputs("fuzz: could not write the seeds to \(directory): \(error)\n", stderr)
        exit(1)
    }
    // _exit: LeakSanitizer's exit check would report the live values of globals and of this
    // function as leaks (scripts/sanitizers/live-values-probe.swift).
    _exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzCheck(Data(bytes: data, count: size))
    return 0
}

/// Stops the run with `message` as the finding (libFuzzer saves the input that caused it).
func fuzzFailure(_ message: String) -> Never {
    fputs("fuzz: \(message)\n", stderr)
    abort()
}
