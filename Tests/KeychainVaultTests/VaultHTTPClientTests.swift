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
        // Waiting in read(0, ...) shows in /proc/PID/syscall as syscall 0 on fd 0.
        var waitingOnStdin = false
        for _ in 0..<200 where !waitingOnStdin {
            let syscall = (try? String(contentsOfFile: "\(procDirectory)/syscall", encoding: .utf8)) ?? ""
            waitingOnStdin = syscall.hasPrefix("0 0x0 ")
            if !waitingOnStdin { Thread.sleep(forTimeInterval: 0.05) }
        }
        try #require(waitingOnStdin, "the CLI never waited for the secret on stdin")
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
    /// Sockets this process inherited (from the services wrapper) are left out of the count.
    @Test func theClientsSocketsAreCloseOnExec() throws {
        let inheritedBefore = Self.inheritableSockets()
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        // A read keeps its lane and the lane's connection open for the next request.
        #expect(try storedSecret(backend, "close-on-exec", "probe") == nil)
        withExtendedLifetime(backend) {
            let opened = Self.sockets().subtracting(inheritedBefore)
            // Tests beside this one open and close sockets too, so only "some" can be counted on.
            #expect(!opened.isEmpty, "the client holds no socket: the check below would prove nothing")
            let inheritable = Self.inheritableSockets().subtracting(inheritedBefore)
            #expect(inheritable.isEmpty, "sockets \(inheritable.sorted()) would be inherited across exec")
        }
    }

    /// The descriptors of this process that are sockets.
    private static func sockets() -> Set<Int32> {
        let numbers = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init)
        return Set(numbers.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?.hasPrefix("socket:") == true
        })
    }

    /// The sockets without close-on-exec; one closed since the listing answers -1 and is skipped.
    private static func inheritableSockets() -> Set<Int32> {
        sockets().filter { let flags = fcntl($0, F_GETFD); return flags >= 0 && flags & FD_CLOEXEC == 0 }
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
        #expect(seconds < 5, "the endless answer was read for \(seconds) s")
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
