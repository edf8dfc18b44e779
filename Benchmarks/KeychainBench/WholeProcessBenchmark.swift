import Foundation

/// `keychain get` from process start to exit, next to the other tools an operator would use
/// for the same read: `keyctl pipe` and `python3 -m keyring get`.
///
/// Processes are started with `posix_spawnp` and reaped with `waitpid`, because Foundation's
/// `Process` adds tens of milliseconds of its own bookkeeping to each launch, which would
/// swamp the figures being compared.
enum WholeProcessBenchmark {
    /// Times `arguments` run as a whole process `iterations` times, output discarded; fails if
    /// any run fails.
    static func measure(_ arguments: [String], iterations: Int) throws -> LatencySample {
        try LatencySample.measure(iterations: iterations, warmup: 1) { _ in
            let status = try spawnAndWait(arguments)
            guard status == 0 else {
                throw BaselineError(description: "\(arguments.joined(separator: " ")) exited \(status)")
            }
        }
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

    /// The `keychain` executable built beside this one.
    static var cliPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keychain").path
    }
}
