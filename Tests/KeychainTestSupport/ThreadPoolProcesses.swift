#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
package import KeychainConformance

/// The many-process form of the thread-pool case: `processes` KeychainThreadPoolProbe
/// processes each run `workload` on the backend `environment` selects, on accounts of their
/// own (`p<process>-<thread>-<item>`) of one `service`. They start together: each says it is
/// ready (a file), and once all are (or 30 s passed) their stdin is closed back to back.
/// Returns each process's Result, in process order.
package func runThreadPoolInProcesses(_ processes: Int, _ workload: ThreadPoolWorkload, service: String,
                                      environment: [String: String], timeout: Double = 120) throws -> [ThreadPoolWorkload.Result] {
    let probe = try builtExecutable("KeychainThreadPoolProbe")
    let json = String(decoding: try JSONEncoder().encode(workload), as: UTF8.self)
    let readiness = try makeScratchDirectory("pool-ready")
    defer { try? FileManager.default.removeItem(at: readiness) }
    let readyFiles = (0..<processes).map { readiness.appendingPathComponent("\($0)").path }
    let started = (0..<processes).map { process in
        KeychainCLIProcess(probe, ["--accounts", "p\(process)-", "--ready", readyFiles[process], service, json],
                           environment: environment, holdingInput: true)
    }
    let deadline = Date(timeIntervalSinceNow: 30)
    while Date() < deadline, !readyFiles.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) {
        Thread.sleep(forTimeInterval: 0.02)
    }
    for process in started { process.release(nil) }
    return try started.enumerated().map { index, process in
        let run = try process.wait(timeout: timeout)
        guard let result = try? JSONDecoder().decode(ThreadPoolWorkload.Result.self, from: run.output) else {
            throw ConformanceFailure("process \(index) printed no result (exit \(run.status)"
                                     + (run.timedOut ? ", killed after \(timeout) s" : "") + "): \(run.errorText)")
        }
        return result
    }
}

/// Everything wrong with a many-process run of `workload` on `backend`: `processes` processes
/// (`runThreadPoolInProcesses`) with `environment` and an XDG_RUNTIME_DIR of their own, so that
/// the library's lock files there (`linux-keychain/*.lock`) are theirs alone. After them, a
/// process that failed, a file under that directory or `lockedFilesUnder` still `flock`ed, an
/// item left, or a write that fails (`problemsAfterProcesses`) is a problem; none means it passed.
package func problemsOfManyProcesses(_ workload: ThreadPoolWorkload, processes: Int = 16, on backend: String,
                                     environment: [String: String] = [:],
                                     lockedFilesUnder directories: [String] = []) throws -> [String] {
    let runtime = try makeScratchDirectory("many-runtime")
    defer { try? FileManager.default.removeItem(at: runtime) }
    let service = "lkc-many-\(backend)-\(UUID().uuidString.prefix(8).lowercased())"
    let environment = environment.merging(["KEYCHAIN_BACKEND": backend, "XDG_RUNTIME_DIR": runtime.path]) { _, new in new }
    let results = try runThreadPoolInProcesses(processes, workload, service: service, environment: environment)
    print("\(backend), \(processes) processes of \(workload.threads) threads: slowest "
          + String(format: "%.1f s, slowest call %.2f s", results.map(\.elapsed).max() ?? 0, results.map(\.slowestCall).max() ?? 0))
    var problems = results.enumerated().filter { !$0.element.passed }.map { "process \($0.offset): \($0.element)" }
    problems += ([runtime.path] + directories).flatMap { filesLockedByFlock(under: $0) }.map { "still locked: \($0)" }
    return try problems + problemsAfterProcesses(service: service, environment: environment)
}

/// What is wrong with `service` after a many-process run, as the `linux-keychain` CLI sees it
/// with `environment` (whose KEYCHAIN_BACKEND it uses): an item still listed, or a `set` and
/// `delete` that fail, as they would (after the lock's timeout) behind a stale lock.
package func problemsAfterProcesses(service: String, environment: [String: String]) throws -> [String] {
    let cli = try builtCLI()
    var problems: [String] = []
    let listed = try KeychainCLIProcess.run(cli, ["list", service, "--json"], environment: environment, timeout: 60)
    let items = (try? JSONSerialization.jsonObject(with: listed.output)) as? [Any]
    if listed.status != 0 || items?.isEmpty != true {
        problems.append("list \(service): exit \(listed.status), \(items.map { "\($0.count) items left" } ?? listed.errorText)")
    }
    let set = try KeychainCLIProcess.run(cli, ["set", service, "after"], input: Data("s".utf8), environment: environment, timeout: 60)
    let delete = try KeychainCLIProcess.run(cli, ["delete", service, "after"], environment: environment, timeout: 60)
    for (name, run) in [("set", set), ("delete", delete)] where run.status != 0 {
        problems.append("\(name) after the run: exit \(run.status), \(run.errorText)")
    }
    return problems
}

/// The files under `directory` (at any depth) that some process holds a `flock` on, as
/// /proc/locks lists them: after every user of a store has ended, any would be a stale lock.
package func filesLockedByFlock(under directory: String) -> [String] {
    guard let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
    // "1: FLOCK  ADVISORY  WRITE 1234 08:02:131075 0 EOF": device (hex major:minor) and inode.
    let locked = Set(table.split(separator: "\n").compactMap { line -> String? in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 6, fields[1] == "FLOCK" else { return nil }
        return String(fields[5])
    })
    let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
    return files.filter { name in
        var status = stat()
        guard lstat(directory + "/" + name, &status) == 0 else { return false }
        let device = UInt64(status.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        return locked.contains(String(format: "%02llx:%02llx:%llu", major, minor, UInt64(status.st_ino)))
    }
}
