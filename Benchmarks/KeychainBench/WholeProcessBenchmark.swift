import Foundation

/// `linux-keychain get` from process start to exit, next to the other tools an operator would use
/// for the same read: `keyctl pipe` and `python3 -m keyring get`.
///
/// Processes are started with `posix_spawnp` and reaped with `waitpid`, because Foundation's
/// `Process` adds tens of milliseconds of its own bookkeeping to each launch, which would
/// swamp the figures being compared.
enum WholeProcessBenchmark {
    /// Times each of `commands` as a whole process `iterations` times, taking them in turns, one
    /// run of each per round after one untimed round, so that every command meets the same
    /// spells of a shared machine and their ratios hold. A command that fails is dropped from
    /// the rounds after, and missing from the result; `skipped` is told why.
    static func measureInTurns(_ commands: [String: [String]], iterations: Int,
                               skipped: (String, any Error) -> Void) -> [String: LatencySample] {
        var timings: [String: [Double]] = commands.mapValues { _ in [] }
        for round in -1..<iterations {
            for (name, arguments) in commands.sorted(by: { $0.key < $1.key }) where timings[name] != nil {
                do {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let status = try spawnAndWait(arguments)
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
                    guard status == 0 else {
                        throw BaselineError(description: "\(arguments.joined(separator: " ")) exited \(status)")
                    }
                    if round >= 0 { timings[name]?.append(elapsed) }
                } catch {
                    timings[name] = nil
                    skipped(name, error)
                }
            }
        }
        return timings.mapValues { LatencySample(microseconds: $0) }
    }

    /// Runs `arguments` with stdin, stdout and stderr on /dev/null and returns its exit status.
    static func spawnAndWait(_ arguments: [String]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw BaselineError(description: "could not start \(arguments[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BaselineError(description: "waitpid failed: errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift cannot import as macros.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// The `linux-keychain` executable built beside this one.
    static var cliPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("linux-keychain").path
    }
}
