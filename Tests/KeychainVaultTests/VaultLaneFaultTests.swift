import Dispatch
import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import Testing

/// A long-lived backend's kept-open connection when things go wrong on it: an answer lost after
/// the server acted, a connection that goes silent, a server that goes away and comes back.
/// Each fault is made by scripts/tcp-proxy.py in front of the shared dev server.
@Suite("vault backend's kept-open connection under faults")
struct VaultLaneFaultTests {
    let prefix = VaultTestServer.uniquePrefix("lanefaults")

    private func lines(in log: URL) throws -> [Substring] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
    }

    private func requests(_ method: String, in log: URL) throws -> Int {
        try lines(in: log).filter { $0.split(separator: " ").dropFirst().first == Substring(method) }.count
    }

    /// scripts/tcp-proxy.py in front of the dev server with `faults`, and the log it writes.
    private func faultyProxy(faults: [String] = []) throws -> (proxy: TestServerProcess, log: URL) {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        return (try TestServerProcess.countingProxy(upstream: try VaultTestServer.root().address, log: log, faults: faults), log)
    }

    private func backend(through proxy: TestServerProcess, requestTimeout: TimeInterval = 10) throws -> VaultBackend {
        VaultBackend(configuration: try VaultConfiguration(address: proxy.address, token: VaultToken(try VaultTestServer.root().token),
                                                           prefix: prefix, requestTimeout: requestTimeout))
    }

    /// The same items, read straight from the server.
    private func direct() throws -> VaultBackend {
        VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
    }

    private func key(_ service: String, _ account: String) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string(service), .account: .string(account)]))
    }

    /// libcurl sends a request again on a new connection when a reused one closes before any
    /// answer; for a write the server may already have applied, that would apply it twice. The
    /// write fails instead, saying its outcome is unknown, and was sent once.
    @Test func anUpdateWhoseAnswerIsLostIsSentOnceAndFails() throws {
        let (proxy, log) = try faultyProxy(faults: ["--drop-answer", "^PATCH "])
        defer { proxy.stop() }
        let backend = try backend(through: proxy)
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        try backend.add(genericItem("app", "alice", Data("one".utf8)))

        let error = keychainError { _ = try backend.update(ItemQuery(primaryKey: key("app", "alice")), with: ItemChanges(secret: SecretBytes(Data("two".utf8)))) }
        #expect(error?.status == errSecIO)
        #expect(error?.message.contains("may have been applied") == true, "\(String(describing: error))")
        #expect(try requests("PATCH", in: log) == 1)
        // The server applied it once; the connection is usable again after.
        #expect(try storedSecret(try direct(), "app", "alice") == Data("two".utf8))
        #expect(try storedSecret(backend, "app", "alice") == Data("two".utf8))
    }

    /// An add whose answer is lost is not sent again, where the second copy's check-and-set
    /// would fail and report the item this very add created as a duplicate.
    @Test func anAddWhoseAnswerIsLostIsNotReportedAsADuplicate() throws {
        let (proxy, log) = try faultyProxy(faults: ["--drop-answer", "^POST .*/data/"])
        defer { proxy.stop() }
        let backend = try backend(through: proxy)
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")

        let error = keychainError { try backend.add(genericItem("app", "bob", Data("one".utf8))) }
        #expect(error?.status == errSecIO, "\(String(describing: error))")
        #expect(try requests("POST", in: log) == 1)
        #expect(try storedSecret(try direct(), "app", "bob") == Data("one".utf8))
    }

    /// A read or a delete is safe to send twice, so one whose answer is lost on a reused
    /// connection is sent again on a new one and succeeds.
    @Test func aReadAndADeleteWhoseAnswersAreLostAreSentAgainAndSucceed() throws {
        let (proxy, log) = try faultyProxy(faults: ["--drop-answer", "^GET .*/data/", "--drop-answer", "^DELETE "])
        defer { proxy.stop() }
        let backend = try backend(through: proxy)
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        try backend.add(genericItem("app", "hank", Data("s".utf8)))
        #expect(try storedSecret(backend, "app", "hank") == Data("s".utf8))
        #expect(try backend.delete(exactQuery("app", "hank")) == 1)
        #expect(try storedSecret(try direct(), "app", "hank") == nil)
        #expect(try requests("DELETE", in: log) == 2)
    }

    /// A connection that goes silent after taking a request: that request, and the one sent
    /// beside it and queued behind it on the same connection (HTTP/1.1, one connection per
    /// server), each fail with a timeout, not a hang; the next request gets a new connection.
    @Test func aStalledAnswerTimesOutItAndTheRequestQueuedBehindIt() throws {
        let (proxy, _) = try faultyProxy(faults: ["--stall-answer", "^GET .*/data/"])
        defer { proxy.stop() }
        let seeded = try direct()
        try seeded.add(genericItem("app", "carol", Data("s".utf8)))
        let backend = try backend(through: proxy, requestTimeout: 2)
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")

        let started = Date()
        let error = keychainError { _ = try storedSecret(backend, "app", "carol") }
        let elapsed = Date().timeIntervalSince(started)
        #expect(error?.status == errSecIO)
        #expect(error?.message.contains("No answer") == true, "\(String(describing: error))")
        #expect(elapsed < 2 * 2 + 1.5, "the stalled request and the one queued behind it took \(elapsed) s")
        #expect(try storedSecret(backend, "app", "carol") == Data("s".utf8))
    }

    /// The server goes away between two requests of one process (nothing listens on its port):
    /// the next request fails at once as unreachable; once it is back, requests work again.
    @Test func aServerGoneBetweenRequestsIsUnreachableThenReconnected() throws {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        let upstream = try VaultTestServer.root().address
        var proxy = try TestServerProcess.countingProxy(upstream: upstream, log: log)
        defer { proxy.stop() }
        let backend = try backend(through: proxy)
        try backend.add(genericItem("app", "dave", Data("s".utf8)))
        let port = try #require(URLComponents(string: proxy.address)?.port)
        proxy.stop()
        Thread.sleep(forTimeInterval: 0.2)

        let started = Date()
        let error = keychainError { _ = try storedSecret(backend, "app", "dave") }
        #expect(error?.status == errSecNotAvailable, "\(String(describing: error))")
        #expect(Date().timeIntervalSince(started) < 2)
        proxy = try TestServerProcess.countingProxy(upstream: upstream, log: log, port: port)
        #expect(try storedSecret(backend, "app", "dave") == Data("s".utf8))
    }
}

/// A process that used the backend and then forks: the child inherits the kept-open
/// connection's socket (and over TLS its session state), which the parent goes on using, so
/// the child opens a connection of its own and leaves the parent's alone.
@Suite("vault backend after fork")
struct VaultForkTests {
    let prefix = VaultTestServer.uniquePrefix("fork")

    @Test func aForkedChildOpensItsOwnConnectionAndTheParentKeepsItsOwn() throws {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        let proxy = try TestServerProcess.countingProxy(upstream: try VaultTestServer.root().address, log: log)
        defer { proxy.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: proxy.address,
                                                                        token: VaultToken(try VaultTestServer.root().token), prefix: prefix))
        try backend.add(genericItem("app", "erin", Data("s".utf8)))

        let status = try inChild {
            let read = try? storedSecret(backend, "app", "erin")
            return read == Data("s".utf8) ? 0 : 1
        }
        #expect(status == 0, "the child's read failed (exit status \(status))")
        #expect(try storedSecret(backend, "app", "erin") == Data("s".utf8))

        // Every request line, with the connection it went on: the child's read on a second
        // connection, the parent's before and after on its first.
        let requests = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("connection ") }
        let connections = requests.compactMap { $0.split(separator: " ").first }
        #expect(Set(connections).count == 2, "requests by connection: \(requests)")
        #expect(connections.first == connections.last, "requests by connection: \(requests)")
    }

    /// When libcurl's driving loop fails (here poll(2), refused by an open-file limit below
    /// the descriptors it watches), the request gets a transport error that names the failing
    /// call, not an "HTTP 0" answer; the lane works again for the next request.
    @Test func aDrivingLoopFailureIsATransportErrorAndTheLaneStillWorks() throws {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        let proxy = try TestServerProcess.countingProxy(upstream: try VaultTestServer.root().address, log: log,
                                                        faults: ["--stall-answer", "^GET .*/data/"])
        defer { proxy.stop() }
        try VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
            .add(genericItem("app", "frank", Data("s".utf8)))
        let backend = VaultBackend(configuration: try VaultConfiguration(address: proxy.address,
                                                                        token: VaultToken(try VaultTestServer.root().token), prefix: prefix))
        let status = try inChild {
            // Opens the child's connection; the read below reuses it, so it needs no new descriptor.
            guard backend.availability().isAvailable else { return 10 }
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            var one = limit
            one.rlim_cur = 1
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &one)
            var message = ""
            do { _ = try storedSecret(backend, "app", "frank") } catch { message = "\(error)" }
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            if message.contains("HTTP 0") { return 11 }
            if !message.contains("curl_multi_poll") { return 12 }
            return (try? storedSecret(backend, "app", "frank")) == Data("s".utf8) ? 0 : 13
        }
        // 10: not available; 11: "HTTP 0"; 12: another message; 13: the next read failed.
        #expect(status == 0, "exit status \(status)")
    }

    /// Runs `body` in a forked child and returns its exit status; kills it after 15 s.
    private func inChild(_ body: () -> Int32) throws -> Int32 {
        let child = fork()
        if child == 0 { _exit(body()) }
        try #require(child > 0, "fork failed")
        var status: Int32 = 0
        var waited: pid_t = 0
        for _ in 0..<300 where waited == 0 {
            waited = waitpid(child, &status, WNOHANG)
            if waited == 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        if waited == 0 {
            kill(child, SIGKILL)
            _ = waitpid(child, &status, 0)
            Issue.record("the forked child did not finish within 15 s")
        }
        return (status >> 8) & 0xff
    }
}

/// The session's lookup of a given token travels beside a process's first requests; when it
/// fails, the call fails, so what travelled beside it must not have been a write.
@Suite("vault session's lookup beside the first requests")
struct VaultLookupBesideTests {
    let prefix = VaultTestServer.uniquePrefix("beside")

    /// A process whose first request is an add (no `availability()` before it) and whose token
    /// lookup gets no answer: the add either fails and stored nothing, or succeeds; it never
    /// fails having stored the item, which would make the caller's retry a duplicate.
    @Test func aFailedLookupNeverFailsAWriteTheServerApplied() throws {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        let proxy = try TestServerProcess.countingProxy(upstream: try VaultTestServer.root().address, log: log,
                                                        faults: ["--drop-answer", "lookup-self"])
        defer { proxy.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: proxy.address,
                                                                        token: VaultToken(try VaultTestServer.root().token), prefix: prefix))
        var failure: (any Error)?
        do { try backend.add(genericItem("app", "gina", Data("s".utf8))) } catch { failure = error }
        let stored = try storedSecret(VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix)), "app", "gina")
        if let failure {
            #expect(stored == nil, "the add failed (\(failure)) but stored the item")
        } else {
            #expect(stored == Data("s".utf8))
        }
    }
}

/// Many threads sending at once through one backend: each takes a lane of its own, answers
/// reach the thread that asked, and no more than `CurlLanePool.maximumIdleLanes` (8)
/// connections stay open after.
@Suite("vault backend's lanes under many threads")
struct VaultLaneThreadTests {
    let prefix = VaultTestServer.uniquePrefix("lanethreads")

    @Test func threadsGetTheirOwnAnswersAndAtMostEightConnectionsStayOpen() throws {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        let proxy = try TestServerProcess.countingProxy(upstream: try VaultTestServer.root().address, log: log, faults: ["--log-closes"])
        defer { proxy.stop() }
        let threads = 12
        let seeded = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        for index in 0..<threads { try seeded.add(genericItem("app", "user\(index)", Data("secret \(index)".utf8))) }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: proxy.address,
                                                                        token: VaultToken(try VaultTestServer.root().token), prefix: prefix))
        #expect(backend.availability().isAvailable)

        let wrong = Locked<[String]>([])
        // Plain threads, started together: GCD would run only as many as there are cores.
        let start = DispatchGroup()
        start.enter()
        let done = DispatchGroup()
        for index in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                for _ in 0..<6 {
                    let read = try? storedSecret(backend, "app", "user\(index)")
                    if read != Data("secret \(index)".utf8) { wrong.withLock { $0.append("user\(index): \(String(describing: read))") } }
                }
                done.leave()
            }
        }
        start.leave()
        done.wait()
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0 })")

        Thread.sleep(forTimeInterval: 0.5)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let opened = Set(lines.filter { $0.hasPrefix("connection ") }.map { $0.dropFirst("connection ".count) })
        let closed = Set(lines.filter { $0.hasPrefix("closed ") }.map { $0.dropFirst("closed ".count) })
        #expect(opened.subtracting(closed).count <= 8, "\(opened.count) opened, \(opened.subtracting(closed).count) still open")
    }
}

/// Request bodies reach libcurl through a read callback (so a write is never resent): bodies
/// larger than one read, and than the size at which libcurl asks `Expect: 100-continue`,
/// arrive whole, in an add (`POST`) and an update (`PATCH`).
@Suite("vault request bodies of several MiB")
struct VaultLargeBodyTests {
    let prefix = VaultTestServer.uniquePrefix("largebody")

    @Test func multiMegabyteSecretsAreWrittenWholeByAddAndUpdate() throws {
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        // Bytes that differ along the whole body (a cut or a repeated chunk shows), made fast.
        let first = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 16) })
        let second = Data((0..<((2 << 20) + 12345)).map { UInt8(truncatingIfNeeded: ($0 &* 40_503) >> 7) })
        try backend.add(genericItem("app", "large", first))
        #expect(try storedSecret(backend, "app", "large") == first)
        let key = PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string("app"), .account: .string("large")]))
        #expect(try backend.update(ItemQuery(primaryKey: key), with: ItemChanges(secret: SecretBytes(second))) == 1)
        #expect(try storedSecret(backend, "app", "large") == second)
    }
}

/// TLS settings on a lane that opens a new connection: after its first one is dropped, the
/// reused lane's handles still trust the private CA and present the client certificate; a
/// client with other settings in the same process never borrows that lane's connection.
@Suite("vault TLS settings on reused lanes")
struct VaultLaneTLSTests {
    let prefix = VaultTestServer.uniquePrefix("lanetls")

    @Test func aReconnectingLaneKeepsItsTLSSettingsAndOtherClientsDoNotShareIt() throws {
        let fixture = try VaultTLSServer()
        defer { fixture.stop() }
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        var proxy = try TestServerProcess.countingProxy(upstream: fixture.mutualAddress, log: log)
        defer { proxy.stop() }
        let port = try #require(URLComponents(string: proxy.address)?.port)
        let address = "https://127.0.0.1:\(port)"
        func backend(_ tls: VaultTLSSettings) throws -> VaultBackend {
            VaultBackend(configuration: try VaultConfiguration(address: address, token: VaultToken(fixture.rootToken), prefix: prefix,
                                                               probeTimeout: 15, tls: tls))
        }
        let mutual = try backend(VaultTLSSettings(caFile: fixture.caFile, clientCertificate: fixture.clientCertificate,
                                                  clientKey: fixture.clientKey))
        #expect(mutual.availability().isAvailable, "\(mutual.availability().explanation)")
        try mutual.add(genericItem("tls", "ivy", Data("s".utf8)))

        // Its connection is open; a client without the certificate still makes its own, refused.
        let withoutCertificate = try backend(VaultTLSSettings(caFile: fixture.caFile))
        let refusal = keychainError { _ = try storedSecret(withoutCertificate, "tls", "ivy") }
        #expect(refusal?.status == errSecNotAvailable, "\(String(describing: refusal))")

        proxy.stop()
        Thread.sleep(forTimeInterval: 0.2)
        proxy = try TestServerProcess.countingProxy(upstream: fixture.mutualAddress, log: log, port: port)
        #expect(try storedSecret(mutual, "tls", "ivy") == Data("s".utf8))
        // The restarted proxy's log: the read after the drop made a new TLS connection.
        let connections = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("connection ") }
        #expect(connections.count == 1, "\(connections)")
    }
}

/// Requests sent side by side over plain HTTP take turns on the lane's one connection; each
/// one's timeout counts from when they were all sent, so a request queued behind one that
/// never answers fails at its own deadline, not one deadline later.
@Suite("vault requests queued on one connection")
struct VaultQueuedTimeoutTests {
    @Test func aRequestQueuedBehindASilentOneFailsAtItsOwnDeadline() throws {
        let server = try TestServerProcess.misbehaving("hang")
        defer { server.stop() }
        let client = VaultHTTPClient(address: server.address, namespace: nil, tls: VaultTLSSettings())
        let request = VaultHTTPRequest(method: "GET", path: "sys/health", token: nil, timeout: 1.5)
        let started = Date()
        let results = client.sendAll([request, request])
        let elapsed = Date().timeIntervalSince(started)
        for result in results {
            guard case .failure(.timedOut) = result else {
                Issue.record("expected a timeout, got \(result)")
                continue
            }
        }
        #expect(elapsed < 2.5, "both failed after \(elapsed) s")
    }
}
