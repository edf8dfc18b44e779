import Foundation
import KeychainConformance
import KeychainCore

/// The soak: `workload` run on `backend` again and again for `minutes`, with this process's
/// footprint sampled between runs (when no workload thread is alive): after the first run, at
/// the first run boundary of each new minute, and at the end. After the second, a run starts
/// only if it would end by the deadline, judged by the run before.
///
/// It passes when every run passed and, between the baseline and the last sample, resident
/// memory grew by at most `residentGrowthLimit` kB and open descriptors changed by at most
/// `descriptorChangeLimit`. The baseline is the minute-1 sample, or for a soak of one minute
/// the sample after the first run (the start-up's allocations are behind both).
struct SoakRun {
    static let residentGrowthLimit = 5 * 1024
    static let descriptorChangeLimit = 2

    /// One sample: the footprint after `runs` runs, `seconds` into the soak.
    struct Sample {
        var seconds: Double
        var runs: Int
        var footprint: ProcessFootprint
        var minute: Int { Int(seconds / 60) }
    }

    let workload: ThreadPoolWorkload
    let minutes: Int

    /// Runs the soak, printing each sample and the verdict to standard output; true if it passed.
    func run(on backend: any KeychainBackend, service: String) -> Bool {
        let started = DispatchTime.now()
        func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }
        var samples: [Sample] = []
        var runs = 0, failedRuns = 0, slowestRun = 0.0
        while true {
            // Accounts of their own per run: items a failed run left cannot fail the next one.
            let result = workload.run(on: backend, service: service, accountPrefix: "soak\(runs)-")
            runs += 1
            slowestRun = max(slowestRun, result.elapsed)
            if !result.passed {
                failedRuns += 1
                report("run \(runs) failed: \(result)")
            }
            let now = seconds()
            if samples.isEmpty || Int(now / 60) > samples[samples.count - 1].minute {
                guard let footprint = ProcessFootprint.current() else {
                    report("soak: /proc/self/status or /proc/self/fd cannot be read")
                    return false
                }
                let sample = Sample(seconds: now, runs: runs, footprint: footprint)
                samples.append(sample)
                report(String(format: "minute %d (%.0f s): %d kB resident, %d open descriptors, %d runs, %d failed",
                              sample.minute, now, footprint.residentKilobytes, footprint.openDescriptors, runs, failedRuns))
            }
            // No run that would end past the deadline (judged by this one), so that a one-minute
            // soak (CI's) stays near its minute; but two at least, to have two samples.
            if runs >= 2, now + result.elapsed > Double(minutes * 60) {
                if samples[samples.count - 1].runs != runs, let footprint = ProcessFootprint.current() {
                    samples.append(Sample(seconds: now, runs: runs, footprint: footprint))
                    report(String(format: "end (%.0f s): %d kB resident, %d open descriptors, %d runs, %d failed",
                                  now, footprint.residentKilobytes, footprint.openDescriptors, runs, failedRuns))
                }
                break
            }
        }
        let baseline = minutes > 1 ? samples.first { $0.minute >= 1 } ?? samples[0] : samples[0]
        let last = samples[samples.count - 1]
        let growth = last.footprint.residentKilobytes - baseline.footprint.residentKilobytes
        let descriptorChange = last.footprint.openDescriptors - baseline.footprint.openDescriptors
        let passed = failedRuns == 0 && growth <= Self.residentGrowthLimit && abs(descriptorChange) <= Self.descriptorChangeLimit
        report("soak \(passed ? "passed" : "FAILED"): " + String(format: "%d runs of %d calls in %.0f s (slowest run %.1f s), %d failed; "
                          + "from %.0f s to %.0f s resident memory %+d kB (limit +%d), open descriptors %+d (limit ±%d)",
                      runs, workload.expectedCalls, last.seconds, slowestRun, failedRuns,
                      baseline.seconds, last.seconds, growth, Self.residentGrowthLimit, descriptorChange, Self.descriptorChangeLimit))
        return passed
    }

    private func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
