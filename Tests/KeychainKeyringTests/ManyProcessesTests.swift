import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// Issue #29's many processes on the `keyring` backend, in a session keyring of their own.
///
/// They run as the test's own user: while each thread still costs a thread keyring and a lock
/// key, 128 threads of an unprivileged user would run out of the default quota.
@Suite("kernel keyring under many processes")
struct KeyringManyProcessesTests {
    /// `processes` probes in one session keyring, released together (the `--ready` files,
    /// then the end of their shared stdin); then the lock key is looked for, the items listed
    /// and one more item written and deleted.
    static let script = #"""
    probe=$1 cli=$2 service=$3 workload=$4 processes=$5
    export KEYCHAIN_BACKEND=keyring
    dir=$(mktemp -d)
    mkfifo "$dir/start"
    exec 3<>"$dir/start" 4<"$dir/start"
    p=0
    while [ "$p" -lt "$processes" ]; do
        "$probe" --accounts "p$p-" --ready "$dir/ready$p" "$service" "$workload" <&4 >"$dir/out$p" 2>&1 3>&- 4>&- &
        p=$((p + 1))
    done
    exec 4<&-
    tries=0
    while [ "$(ls "$dir" | grep -c '^ready')" -lt "$processes" ] && [ "$tries" -lt 300 ]; do tries=$((tries + 1)); sleep 0.1; done
    exec 3>&-
    wait
    p=0
    while [ "$p" -lt "$processes" ]; do echo "result $(tr -d '\n' <"$dir/out$p")"; p=$((p + 1)); done
    rm -rf "$dir"
    keyctl search @s user "linux-keychain:lock:$(keyctl id @s)" >/dev/null 2>&1 && echo "bad: the record lock key is left"
    echo "listed: $("$cli" --backend keyring list "$service" --json 2>/dev/null | grep -c '"account"')"
    printf s | "$cli" --backend keyring set "$service" after || echo "bad: a set after the run failed"
    "$cli" --backend keyring delete "$service" after || echo "bad: a delete after the run failed"
    """#

    /// 16 processes of 8 threads each run the thread-pool workload on one keyring at once:
    /// every call succeeds with the exact answer, and after them no lock key is left, no item
    /// is listed, and the next write goes through.
    @Test func sixteenProcessesOfEightThreadsLoseNothingAndLeaveNoLock() throws {
        let processes = 16, workload = ThreadPoolWorkload(threads: 8)
        let json = String(decoding: try JSONEncoder().encode(workload), as: UTF8.self)
        let run = try runInOwnSessionKeyring(Self.script, cli: try builtExecutable("KeychainThreadPoolProbe"),
                                             [try builtCLI(), "lkc-many-keyring", json, "\(processes)"], timeout: 180)
        #expect(run.status == 0 && !run.timedOut, "exit \(run.status), timed out \(run.timedOut): \(run.errorText)")
        let lines = run.outputText.split(separator: "\n").map(String.init)
        let results = lines.filter { $0.hasPrefix("result ") }.map { line in
            (line, try? JSONDecoder().decode(ThreadPoolWorkload.Result.self, from: Data(line.dropFirst(7).utf8)))
        }
        #expect(results.count == processes, "\(lines)")
        for (line, result) in results {
            #expect(result?.passed == true, "\(result.map(\.description) ?? line)")
        }
        print("keyring, \(processes) processes of 8 threads: slowest "
              + String(format: "%.1f s", results.compactMap(\.1?.elapsed).max() ?? 0))
        #expect(lines.filter { $0.hasPrefix("bad") }.isEmpty, "\(lines.filter { $0.hasPrefix("bad") })")
        #expect(lines.contains("listed: 0"), "\(lines.last ?? "")")
    }
}
