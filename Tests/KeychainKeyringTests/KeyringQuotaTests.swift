import Foundation
import Glibc
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import Testing

/// The kernel's key quota, as an ordinary user meets it (root's quota is far larger): the
/// test runs the CLI as a throwaway unprivileged user it creates with `useradd`.
@Suite("kernel keyring quota for an unprivileged user", .serialized)
struct KeyringQuotaTests {
    static let userName = "lkc-keyring-quota"

    func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(executable, arguments, input: input)
    }

    func ensureUser() throws {
        if try run("/usr/bin/id", ["-u", Self.userName]).status == 0 { return }
        let added = try run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", Self.userName])
        // Another test run may have created it at the same moment.
        let exists = try run("/usr/bin/id", ["-u", Self.userName]).status == 0
        guard exists else {
            try skipOrFail("useradd \(Self.userName) failed: \(added.errorText)")
        }
    }

    /// A copy of the CLI that the unprivileged user can execute: the build directory may not
    /// be reachable for other users.
    func copyOfCLI() throws -> URL {
        guard let cli = ConformanceContext.locateCLI() else { try skipOrFail("the linux-keychain executable was not built") }
        return try copy(of: cli)
    }

    /// A copy of `executable` in a directory of its own that the unprivileged user can reach.
    func copy(of executable: String) throws -> URL {
        let directory = URL(fileURLWithPath: "/tmp/lkc-keyring-quota-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        let copy = directory.appendingPathComponent(URL(fileURLWithPath: executable).lastPathComponent)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: executable), to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        return copy
    }

    /// Skips (or fails, in CI) unless this runs as root, to make the user, and the kernel's
    /// key quota for other users is its default: 200 keys and 20,000 bytes.
    func requireRootAndTheDefaultQuota() throws {
        guard getuid() == 0 else { try skipOrFail("creating a throwaway user needs root") }
        let limits = ["maxkeys", "maxbytes"].map {
            (try? String(contentsOfFile: "/proc/sys/kernel/keys/\($0)", encoding: .utf8))
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        }
        guard limits == [200, 20_000] else {
            try skipOrFail("the key quota here is \(limits[0]) keys and \(limits[1]) bytes, not the kernel's default")
        }
    }

    func asUser(_ cli: URL, _ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try run("/usr/sbin/runuser", ["-u", Self.userName, "--", cli.path, "--backend", "keyring"] + arguments,
                input: input)
    }

    @Test func aSecretOverTheQuotaFailsNamingTheLimitsAndASmallOneRoundTrips() throws {
        guard getuid() == 0 else { try skipOrFail("creating a throwaway user needs root") }
        let maxBytes = (try? String(contentsOfFile: "/proc/sys/kernel/keys/maxbytes", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        guard maxBytes > 0, maxBytes < 25_000 else {
            try skipOrFail("/proc/sys/kernel/keys/maxbytes is \(maxBytes), so a 25 KB secret fits in the quota here")
        }
        try ensureUser()
        let cli = try copyOfCLI()
        defer { try? FileManager.default.removeItem(at: cli.deletingLastPathComponent()) }
        let service = uniqueService("quota")

        let small = Data("small secret".utf8)
        let set = try asUser(cli, ["set", service, "small"], input: small)
        #expect(set.status == 0, "set as \(Self.userName) failed: \(set.errorText)")
        let get = try asUser(cli, ["get", service, "small"])
        #expect(get.status == 0 && get.output == small, "get as \(Self.userName): \(get.status) \(get.errorText)")
        #expect(try asUser(cli, ["delete", service, "small"]).status == 0)

        let large = Data(repeating: 0x5A, count: 25_000)
        let refused = try asUser(cli, ["set", service, "large"], input: large)
        #expect(refused.status == 1, "a 25 KB secret as \(Self.userName) exited \(refused.status)")
        #expect(refused.errorText.contains("/proc/sys/kernel/keys/maxbytes") && refused.errorText.contains("maxkeys"),
                "the quota error does not name the limits: \(refused.errorText)")
        // What an item costs, as docs/keyring.md says.
        #expect(refused.errorText.contains("An item takes one key"), "the quota error misstates an item's cost: \(refused.errorText)")
        let leftover = try asUser(cli, ["get", service, "large"])
        #expect(leftover.status == CLIExit.notFound, "the refused item left something behind: \(leftover.errorText)")
    }

    /// How many items an ordinary user fits under the default quota: 32-byte secrets, service
    /// and account only, added one process at a time until the kernel refuses. Every one of
    /// them stays readable with `keyctl pipe`, which prints exactly the secret.
    @Test func anUnprivilegedUserFitsAtLeastOneHundredFiftyItemsEachReadableWithKeyctlPipe() throws {
        try requireRootAndTheDefaultQuota()
        try ensureUser()
        let cli = try copyOfCLI()
        defer { try? FileManager.default.removeItem(at: cli.deletingLastPathComponent()) }
        // The user's keyring is this test's alone (the suite is serialized), so the names can be
        // as short as an application's: the item key carries them against the quota.
        let service = "myapp"
        // One process for the whole loop: a runuser per item would take minutes. Each secret is
        // 32 bytes; the last item's is read back with keyctl, as an operator would.
        let script = """
        set -u
        n=0
        while printf 'secret-%025d' "$n" | "$1" --backend keyring set "$2" "user$n" 2>/dev/null; do
            n=$((n + 1)); [ "$n" -lt 400 ] || break
        done
        echo "count $n"
        grep " $(id -u):" /proc/key-users >&2
        last=$((n - 1))
        # A session keyring of its own (the one inherited may be root's), made in the room two
        # deleted items leave once the kernel has collected their keys, which it does shortly after.
        "$1" --backend keyring delete "$2" "user0" 2>/dev/null
        "$1" --backend keyring delete "$2" "user1" 2>/dev/null
        tries=0
        until keyctl session - sh -c 'keyctl pipe "$(keyctl search "$(keyctl get_persistent @s)" user "linux-keychain:genp:$1:user$2")"' sh "$2" "$last" 2>/dev/null; do
            tries=$((tries + 1)); [ "$tries" -lt 50 ] || { echo "no room for a session keyring"; break; }
            sleep 0.1
        done
        echo
        i=2
        while [ "$i" -lt "$n" ]; do "$1" --backend keyring delete "$2" "user$i" 2>/dev/null; i=$((i + 1)); done
        """
        let result = try run("/usr/sbin/runuser", ["-u", Self.userName, "--", "/bin/sh", "-c", script, "sh", cli.path, service])
        let lines = result.output.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        let count = lines.first { $0.hasPrefix("count ") }.flatMap { Int($0.dropFirst(6)) } ?? 0
        #expect(count >= 150, "only \(count) items fit: \(result.errorText)")
        print("capacity: \(count) items; \(result.errorText)")
        #expect(lines.contains(String(format: "secret-%025d", count - 1)), "keyctl pipe printed \(lines)")
    }

    /// Shell lines that wait (at most five seconds) until the kernel has collected the keys of
    /// the user's earlier processes and tests, so that a test starts from an empty quota.
    static let waitForAnEmptyQuota = waitForQuota(atMost: 40)

    /// Shell lines that wait (at most five seconds) until the user holds at most `keys` keys.
    static func waitForQuota(atMost keys: Int) -> String {
        """
        tries=0
        while [ "$(awk -v user="$(id -u):" '$1 == user { split($4, keys, "/"); print keys[1] }' /proc/key-users)" -gt \(keys) ] \\
            && [ "$tries" -lt 50 ]; do tries=$((tries + 1)); sleep 0.1; done

        """
    }

    /// `KeychainThreadPoolProbe ARGUMENTS` run by the throwaway user in a session keyring of its
    /// own, under the kernel's default quota, on the keyring backend; its JSON result.
    func probeAsUnprivilegedUser<Result: Decodable>(_ arguments: [String], _: Result.Type) throws -> Result {
        try requireRootAndTheDefaultQuota()
        guard let probe = ConformanceContext.locateExecutable(named: "KeychainThreadPoolProbe") else {
            try skipOrFail("the KeychainThreadPoolProbe executable was not built")
        }
        try ensureUser()
        let copy = try copy(of: probe)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let script = Self.waitForQuota(atMost: 4) + #"probe=$1; shift; KEYCHAIN_BACKEND=keyring KEYCHAIN_KEYRING=session exec "$probe" "$@""#
        let run = try run("/usr/sbin/runuser", ["-u", Self.userName, "--", "keyctl", "session", "-", "/bin/sh", "-c",
                                                script, "sh", copy.path] + arguments)
        guard let result = try? JSONDecoder().decode(Result.self, from: run.output) else {
            throw ConformanceFailure("the probe printed no result (exit \(run.status)): \(run.errorText)")
        }
        return result
    }

    /// 64 threads, each adding, reading, updating (three rounds) and deleting two items of its
    /// own, as an ordinary user: every call succeeds and every read-back is exact. Threads cost
    /// no keys of their own (one process keyring, one lock key); four items a thread would be
    /// 256 items at once, beyond the 200 keys of the quota whatever threads cost.
    @Test func aThreadPoolPassesTheWorkloadAsAnUnprivilegedUser() throws {
        let workload = ThreadPoolWorkload(threads: 64, itemsPerThread: 2)
        let json = String(decoding: try JSONEncoder().encode(workload), as: UTF8.self)
        let result = try probeAsUnprivilegedUser(["pool", json], ThreadPoolWorkload.Result.self)
        print("thread pool as \(Self.userName): \(result)")
        #expect(result.passed, "\(result)")
    }

    struct QuotaFillResult: Decodable {
        let stored: Int
        let failures: [String]
    }

    /// The capacity of an ordinary user while 64 threads of one process write: together they add
    /// items until the quota refuses, and store at least 150, each read back exactly. (A thread
    /// keyring and a lock key per thread would take 128 of the 200 keys.)
    @Test func sixtyFourWritingThreadsLeaveRoomForOneHundredFiftyItems() throws {
        let result = try probeAsUnprivilegedUser(["--fill", "64", "fill"], QuotaFillResult.self)
        print("64 threads filling the quota as \(Self.userName): \(result.stored) items")
        #expect(result.stored >= 150, "64 writing threads stored only \(result.stored) items")
        #expect(result.failures.isEmpty, "\(result.failures.prefix(5))")
    }

    /// A session keyring of the throwaway user's own, filled with items until the kernel
    /// refuses one (labels long enough that the bytes quota runs out first), then two deleted;
    /// then `script` runs; `before` runs in the empty keyring. `$1` is the CLI, `$L` a
    /// 100-character label.
    func runInFullKeyring(_ cli: URL, before: String = "", _ script: String) throws -> KeychainCLIProcess.Result {
        let fill = Self.waitForAnEmptyQuota + before + """

        set -u
        export KEYCHAIN_KEYRING=session
        L=$(printf 'L%.0s' $(seq 1 100))
        n=0; fails=0
        while [ "$n" -lt 400 ] && [ "$fails" -lt 3 ]; do
            if printf 'secret-%d' "$n" | "$1" --backend keyring set svc "user$n" --label "$L$n" 2>/dev/null; then
                fails=0; else fails=$((fails + 1)); fi
            n=$((n + 1))
        done
        "$1" --backend keyring delete svc user1 2>/dev/null; "$1" --backend keyring delete svc user2 2>/dev/null
        sleep 0.3

        """
        return try run("/usr/sbin/runuser", ["-u", Self.userName, "--", "keyctl", "session", "-", "/bin/sh", "-c",
                                             fill + script, "sh", cli.path])
    }

    /// Fills the user's keyring (`runInFullKeyring`, after `before`), then updates the item
    /// `account` with a secret a few bytes longer and a 3,000-character label, which goes to an
    /// attributes key far larger than the room left (a label that only grows the entry leaves
    /// the outcome to how much the kernel has collected by then; the random sets of
    /// `setsAndDeletesAgainstAFullQuotaChangeNothingWhenTheyFail` cover that path), while its
    /// secret would still fit. The update must be refused by the quota
    /// and leave the item as it was: `secret`, and a label starting with `label`.
    func expectAnUpdateRefusedByTheQuota(of account: String, keeps secret: String, label: String) throws {
        guard getuid() == 0 else { try skipOrFail("creating a throwaway user needs root") }
        try ensureUser()
        let cli = try copyOfCLI()
        defer { try? FileManager.default.removeItem(at: cli.deletingLastPathComponent()) }
        let result = try runInFullKeyring(cli, """
        big=$(printf 'B%.0s' $(seq 1 3000))
        printf '\(secret)-grown' | "$1" --backend keyring set svc \(account) --label "$big" 2>&1 >/dev/null | head -c 300
        echo
        echo "secret: $("$1" --backend keyring get svc \(account))"
        echo "label: $("$1" --backend keyring list svc 2>/dev/null | grep -c '\(account)  *(shared)  *\(label)')"
        """)
        let lines = result.outputText.split(separator: "\n").map(String.init)
        try #require(lines.first?.contains("Disk quota exceeded") == true,
                     "the update was not refused by the quota: \(lines) \(result.errorText)")
        #expect(lines.contains("secret: \(secret)"), "a refused update changed the secret: \(lines)")
        #expect(lines.contains("label: 1"), "a refused update changed the label: \(lines)")
    }

    @Test func anUpdateRefusedByTheQuotaLeavesTheItemAsItWas() throws {
        try expectAnUpdateRefusedByTheQuota(of: "user5", keeps: "secret-5", label: "L")
    }

    /// Sets (adds and updates, labels of 10 to 400 characters) and deletes in a random order,
    /// the user's quota full most of the time: each one that fails changes nothing, each one
    /// that succeeds is there, and the listing agrees.
    @Test func setsAndDeletesAgainstAFullQuotaChangeNothingWhenTheyFail() throws {
        guard getuid() == 0 else { try skipOrFail("creating a throwaway user needs root") }
        try ensureUser()
        let cli = try copyOfCLI()
        defer { try? FileManager.default.removeItem(at: cli.deletingLastPathComponent()) }
        let driver = #"""
        import os, random, subprocess, sys, time
        cli = sys.argv[1]
        env = dict(os.environ, KEYCHAIN_KEYRING="session", KEYCHAIN_BACKEND="keyring")
        def run(args, data=None, retrying=False):
            # Until the kernel has collected the keys of the process before, a read or a
            # delete may be refused too.
            for attempt in range(40 if retrying else 1):
                done = subprocess.run([cli] + args, input=data, capture_output=True, env=env)
                error = done.stderr.decode(errors="replace")
                if "Disk quota exceeded" not in error: break
                time.sleep(0.05)
            return done.returncode, done.stdout, error
        random.seed(1)
        model, refused = {}, 0
        for step in range(600):
            name = "user%d" % random.randrange(140)
            setting = random.random() < 0.6
            label = "L" * random.choice([10, 60, 120, 400]) + str(step)
            if setting:
                secret = ("s%d-%s" % (step, name)).encode() * random.choice([1, 2, 5])
                status, _, error = run(["set", "svc", name, "--label", label], secret)
                if status == 0: model[name] = secret
                elif "Disk quota exceeded" in error: refused += 1
                else: print("bad: set %s: %s" % (name, error))
            else:
                status, _, error = run(["delete", "svc", name], retrying=True)
                if status == 0 and name in model: del model[name]
                elif not (status == 3 and name not in model): print("bad: delete %s: %d %s" % (name, status, error))
        for index in range(140):
            name = "user%d" % index
            status, output, error = run(["get", "svc", name], retrying=True)
            if name in model and (status != 0 or output != model[name]):
                print("bad: %s reads %d %r, not %r %s" % (name, status, output[:40], model[name][:40], error[:200]))
            if name not in model and status != 3:
                print("bad: %s is there, or not readable: %d %s" % (name, status, error[:200]))
        status, output, _ = run(["list", "svc"], retrying=True)
        print("refused %d" % refused)
        print("items %d listed %d" % (len(model), len(output.decode().strip().splitlines()) - 1))
        """#
        let result = try run("/usr/sbin/runuser", ["-u", Self.userName, "--", "keyctl", "session", "-", "/bin/sh", "-c",
                                                   Self.waitForAnEmptyQuota + #"exec python3 -c "$1" "$2""#, "sh", driver, cli.path])
        let lines = result.outputText.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("bad") }.isEmpty, "\(lines.filter { $0.hasPrefix("bad") })")
        let refused = lines.first { $0.hasPrefix("refused ") }.flatMap { Int($0.dropFirst(8)) } ?? 0
        #expect(refused >= 10, "the quota refused only \(refused) sets, so this tested little: \(result.errorText)")
        let counts = lines.first { $0.hasPrefix("items ") }?.split(separator: " ")
        #expect(counts?.count == 4 && counts?[1] == counts?[3], "the listing disagrees: \(lines.last ?? "") \(result.errorText)")
    }

    /// An item whose attributes take a key of their own (a 3,000-character comment), deleted
    /// while the quota leaves room for the deleting process's process keyring and no more (no
    /// record lock key): the delete succeeds, and its attributes key goes with it, freeing
    /// its bytes, rather than staying behind as no item's.
    @Test func aDeleteWithNoRoomForTheRecordLockStillFreesTheAttributesKey() throws {
        guard getuid() == 0 else { try skipOrFail("creating a throwaway user needs root") }
        try ensureUser()
        let cli = try copyOfCLI()
        defer { try? FileManager.default.removeItem(at: cli.deletingLastPathComponent()) }
        let script = Self.waitForAnEmptyQuota + """
        set -u
        export KEYCHAIN_KEYRING=session
        comment=$(head -c 3000 /dev/zero | tr '\\0' c)
        # The keys of the tests before may not be collected yet.
        tries=0
        until printf 'large' | "$1" --backend keyring set svc large --comment "$comment" 2>/dev/null; do
            tries=$((tries + 1)); [ "$tries" -lt 50 ] || { echo "bad: set large"; break; }
            sleep 0.1
        done
        n=0
        while [ "$n" -lt 400 ] && printf 's' | "$1" --backend keyring set svc "user$n" 2>/dev/null; do n=$((n + 1)); done
        # The keys of the processes before collected, then every key but one taken.
        sleep 0.5
        i=0
        while [ "$i" -lt 400 ] && keyctl add user "pad$i" x @s >/dev/null 2>&1; do i=$((i + 1)); done
        keyctl unlink "$(keyctl search @s user pad0)" @s >/dev/null
        sleep 0.3
        "$1" --backend keyring delete svc large || echo "bad: delete large"
        keyctl show @s | grep -q 'linux-keychain-attributes:genp:svc:large' && echo "bad: the attributes key is left"
        "$1" --backend keyring get svc large >/dev/null 2>&1 && echo "bad: the item is still there"
        echo "done"
        """
        let result = try run("/usr/sbin/runuser", ["-u", Self.userName, "--", "keyctl", "session", "-", "/bin/sh", "-c",
                                                   script, "sh", cli.path])
        let lines = result.outputText.split(separator: "\n").map(String.init)
        #expect(lines.contains("done"), "\(lines) \(result.errorText)")
        #expect(lines.filter { $0.hasPrefix("bad") }.isEmpty, "\(lines.filter { $0.hasPrefix("bad") }) \(result.errorText)")
    }
}
