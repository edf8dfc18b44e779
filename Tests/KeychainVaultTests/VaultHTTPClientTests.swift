import Dispatch
import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import Testing

/// The HTTP client: libcurl is loaded only by the vault backend, requests answer callers on
/// any kind of thread, and hostile answers are cut off.
@Suite("vault HTTP client")
struct VaultHTTPClientTests {
    let prefix = VaultTestServer.uniquePrefix("http")

    /// A `linux-keychain` process that uses only the kernel keyring maps neither libcurl nor
    /// FoundationNetworking. Its memory map is read while it waits for the secret on stdin,
    /// after it has chosen and opened its backend.
    @Test func keyringOnlyProcessMapsNoHTTPLibrary() throws {
        let child = KeychainCLIProcess(try builtCLI(),
                                       ["--backend", "keyring", "set", "lkc-maps-\(UUID().uuidString.prefix(8))", "probe"],
                                       holdingInput: true)
        let pid = try #require(child.processIdentifier, "the linux-keychain CLI did not start")
        // Killed before it reads a secret, so it never stores one.
        defer {
            kill(pid, SIGKILL)
            child.release(nil)
            _ = try? child.wait()
        }
        let procDirectory = "/proc/\(pid)"
        try #require(Self.waitsOnStandardInput(pid), "the CLI never waited for the secret on stdin")
        // Read to the end: /proc files have no size, and a one-shot read may stop at a page.
        let mapsFile = try FileHandle(forReadingFrom: URL(fileURLWithPath: "\(procDirectory)/maps"))
        defer { try? mapsFile.close() }
        let maps = String(decoding: try mapsFile.readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.contains("libkeyutils"), "the map does not look like the keyring CLI's:\n\(maps.suffix(2000))")
        #expect(!maps.contains("libcurl"), "a keyring-only process mapped libcurl")
        #expect(!maps.contains("FoundationNetworking"), "a keyring-only process mapped FoundationNetworking")
    }

    /// Every socket the client opens (its connection to the server, libcurl's own socketpair)
    /// is close-on-exec, so a program that starts another hands it no connection to Vault.
    /// Read from a `linux-keychain` process waiting for its secret, after its availability
    /// check has connected. Not from this process: Foundation keeps an inheritable socketpair
    /// for each child that the tests beside this one run, and children inherit those, so the
    /// CLI is started through a Python exec that closes every descriptor but 0 to 2 first.
    @Test func theClientsSocketsAreCloseOnExec() throws {
        let cleanExec = "import os, sys; os.closerange(3, os.sysconf('SC_OPEN_MAX')); os.execv(sys.argv[1], sys.argv[1:])"
        let child = KeychainCLIProcess(try VaultTestServer.executable("python3"),
                                       ["-c", cleanExec, try builtCLI(), "--backend", "vault", "set", "close-on-exec", "probe"],
                                       environment: try VaultTestServer.cliEnvironment(prefix: prefix), holdingInput: true)
        let pid = try #require(child.processIdentifier, "the linux-keychain CLI did not start")
        // Killed before it reads a secret, so it never stores one.
        defer {
            kill(pid, SIGKILL)
            child.release(nil)
            _ = try? child.wait()
        }
        try #require(Self.waitsOnStandardInput(pid), "the CLI never waited for the secret on stdin")
        let sockets = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)"))?.hasPrefix("socket:") == true
        }
        #expect(!sockets.isEmpty, "the client holds no socket: the check below would prove nothing")
        // fdinfo's `flags` is octal and includes O_CLOEXEC for a close-on-exec descriptor.
        let inheritable = try sockets.filter { descriptor in
            let info = try String(contentsOfFile: "/proc/\(pid)/fdinfo/\(descriptor)", encoding: .utf8)
            let flags = info.split(separator: "\n").first { $0.hasPrefix("flags:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) }
            return (flags ?? 0) & Int(O_CLOEXEC) == 0
        }
        #expect(inheritable.isEmpty, "sockets \(inheritable.sorted()) of \(sockets.sorted()) would be inherited across exec")
    }

    /// Whether process `pid` comes to wait in read(0, ...), which /proc/PID/syscall shows as
    /// syscall 0 on fd 0, within 10 seconds.
    private static func waitsOnStandardInput(_ pid: Int32) -> Bool {
        for _ in 0..<200 {
            let syscall = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? ""
            if syscall.hasPrefix("0 0x0 ") { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// 150 reads from GCD worker threads, each blocking its thread, finish like 150 reads from
    /// plain threads: no request waits for a pool thread that the callers occupy.
    @Test func callersOnGCDWorkerThreadsAreNotStarved() throws {
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        try backend.add(genericItem("gcd", "me", Data("threads".utf8)))
        defer { _ = try? backend.delete(exactQuery("gcd", "me")) }
        let calls = 150

        func run(_ start: (@escaping @Sendable () -> Void) -> Void) -> (seconds: Double, failures: Int) {
            let failures = Counter()
            let group = DispatchGroup()
            let started = Date()
            for _ in 0..<calls {
                group.enter()
                start {
                    let secret = try? storedSecret(backend, "gcd", "me")
                    if secret != Data("threads".utf8) { failures.increment() }
                    group.leave()
                }
            }
            group.wait()
            return (Date().timeIntervalSince(started), failures.value)
        }
        let plain = run { body in Thread.detachNewThread(body) }
        let pool = run { body in DispatchQueue.global().async(execute: body) }
        #expect(plain.failures == 0 && pool.failures == 0, "failures: plain threads \(plain.failures), GCD \(pool.failures)")
        // Starvation shows as calls waiting out their timeout (10 s each), far beyond this bound.
        #expect(pool.seconds < plain.seconds * 4 + 2, "GCD workers took \(pool.seconds) s, plain threads \(plain.seconds) s")
    }

    @Test func endlessAnswerIsRefusedPromptly() throws {
        let server = try TestServerProcess.misbehaving("endless")
        defer { server.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("irrelevant"),
                                                                        prefix: prefix, requestTimeout: 60))
        let started = Date()
        let error = keychainError { _ = try backend.search(exactQuery("endless", "me")) }
        let seconds = Date().timeIntervalSince(started)
        #expect(error?.status == errSecIO, "\(String(describing: error))")
        #expect(error?.message.contains("larger than") == true, "\(String(describing: error))")
        // Cut off by the size cap ("larger than"), well before the 60 s deadline; reading up to
        // the cap takes longer on a loaded machine, hence the wide bound.
        #expect(seconds < 30, "the endless answer was read for \(seconds) s")
    }

    /// A server that keeps sending, slowly, is cut off at the request's deadline, not only
    /// when it stays silent.
    @Test func deadlineCoversTheWholeTransfer() throws {
        let server = try TestServerProcess.misbehaving("trickle")
        defer { server.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("irrelevant"),
                                                                        prefix: prefix, requestTimeout: 1.5))
        let started = Date()
        let error = keychainError { _ = try backend.search(exactQuery("trickle", "me")) }
        let seconds = Date().timeIntervalSince(started)
        #expect(error?.status == errSecIO, "\(String(describing: error))")
        #expect(error?.message.contains("within 1.5 s") == true, "\(String(describing: error))")
        #expect(seconds < 5, "the request ran \(seconds) s past a 1.5 s deadline")
    }
}

/// A thread-safe count.
private final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
