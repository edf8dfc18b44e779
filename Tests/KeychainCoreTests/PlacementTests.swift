import Foundation
import KeychainCore
import KeychainTestSupport
import Testing

/// Where the backend comes from (environment, user file, system file, recorded, automatic),
/// the files' format, and the access-group rules, on registries with their own directories,
/// so that nothing here reads or writes the real user's files.
@Suite("placement: pins, recorded choice, access groups")
struct PlacementTests {
    /// A scratch HOME with its own XDG directories and system file, removed at the end.
    final class Scratch {
        let directory = scratchPath("lkc-placement").path
        var userFile: String { directory + "/config/linux-keychain/config" }
        var systemFile: String { directory + "/etc-config" }
        var recordFile: String { directory + "/state/linux-keychain/backend" }

        func placement(_ extra: [String: String] = [:]) -> BackendPlacement {
            BackendPlacement(environment: ["HOME": directory, "XDG_CONFIG_HOME": directory + "/config",
                                           "XDG_STATE_HOME": directory + "/state",
                                           BackendPlacement.systemFileVariable: systemFile].merging(extra) { _, new in new })
        }

        func write(_ text: String, to path: String) throws {
            try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                    withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Four usable backends, `first` the one auto picks.
    private func registry(_ placement: BackendPlacement) -> KeychainBackendRegistry {
        let registry = KeychainBackendRegistry(placement: placement)
        registry.register("first", automaticRank: 1) { MemoryBackend() }
        for name in ["user-pin", "system-pin", "recorded", "from-environment"] {
            registry.register(name) { MemoryBackend() }
        }
        return registry
    }

    @Test func precedenceIsEnvironmentThenUserThenSystemThenRecordedThenAutomatic() throws {
        let scratch = Scratch()
        try scratch.write("backend = user-pin\n", to: scratch.userFile)
        try scratch.write("[keychain]\nbackend = system-pin\n", to: scratch.systemFile)
        try scratch.write("recorded\n", to: scratch.recordFile)

        let environment = try registry(scratch.placement([KeychainBackendRegistry.selectionVariable: "from-environment"]))
            .resolveSelection()
        #expect(environment.source == .environment)
        #expect(try registry(scratch.placement()).resolveSelection().source == .userFile(scratch.userFile))
        // `auto` in the environment is the automatic order, which starts with the files.
        #expect(try registry(scratch.placement([KeychainBackendRegistry.selectionVariable: "auto"])).resolveSelection().source
                == .userFile(scratch.userFile))
        try FileManager.default.removeItem(atPath: scratch.userFile)
        #expect(try registry(scratch.placement()).resolveSelection().source == .systemFile(scratch.systemFile))
        try FileManager.default.removeItem(atPath: scratch.systemFile)
        #expect(try registry(scratch.placement()).resolveSelection().source == .recorded(scratch.recordFile))
        try FileManager.default.removeItem(atPath: scratch.recordFile)
        #expect(try registry(scratch.placement()).resolveSelection().source == .automatic)
    }

    @Test func firstWriteThroughAutoIsRecordedOnceAndNeverReplaced() throws {
        let scratch = Scratch()
        let registry = registry(scratch.placement())
        let chosen = try registry.currentSelection()
        #expect(chosen.source == .automatic)
        try registry.claimAutomaticChoice(chosen.backend)
        // The name it is registered under, which the next run looks up; not the instance's own
        // `name` ("memory"), which no registration of this registry answers to.
        #expect(try scratch.placement().recordedBackend() == "first")
        try registry.claimAutomaticChoice(PlaceholderBackend(name: "other", reason: "unused"))
        #expect(throws: KeychainError.self, "another process's later claim of another backend is refused") {
            try KeychainBackendRegistry(placement: scratch.placement()).claimAutomaticChoice(PlaceholderBackend(name: "other", reason: "unused"))
        }
        #expect(try scratch.placement().recordedBackend() == "first", "a later write replaced the recorded choice")
        let nextRun = try self.registry(scratch.placement()).resolveSelection()
        #expect(nextRun.source == .recorded(scratch.recordFile))
    }

    @Test func aWriteThatCannotBeRecordedIsRefused() throws {
        let scratch = Scratch()
        // XDG_STATE_HOME is a plain file, so the record's directory cannot be made, even by root.
        try scratch.write("not a directory", to: scratch.directory + "/state-file")
        let registry = registry(scratch.placement(["XDG_STATE_HOME": scratch.directory + "/state-file"]))
        let chosen = try registry.currentSelection()
        do {
            try registry.claimAutomaticChoice(chosen.backend)
            Issue.record("a claim that could not be recorded succeeded")
        } catch let error as KeychainError {
            #expect(error.status == errSecIO)
            #expect(error.message.contains("nothing was written"))
        }
    }

    @Test func ofTwoFirstClaimsAtOnceTheSecondLearnsTheFirstsChoice() throws {
        let scratch = Scratch()
        let mine = registry(scratch.placement())
        let chosen = try mine.currentSelection()
        #expect(chosen.source == .automatic)
        // Another process records its choice after this one chose, before it writes.
        #expect(try scratch.placement().claim("recorded") == "recorded")
        do {
            try mine.claimAutomaticChoice(chosen.backend)
            Issue.record("the claim of a backend other than the recorded one succeeded")
        } catch let error as KeychainError {
            #expect(error.status == errSecIO)
            #expect(error.message.contains("'recorded'"))
        }
        #expect(try scratch.placement().recordedBackend() == "recorded")
        #expect(try mine.currentSelection().source == .recorded(scratch.recordFile), "the next attempt follows the record")
    }

    @Test func autoNamedAnywhereStillHonoursThePinsAndTheRecord() throws {
        let scratch = Scratch()
        try scratch.write("backend = auto\n", to: scratch.userFile)
        try scratch.write("backend = system-pin\n", to: scratch.systemFile)
        // A user file that says `auto` pins nothing: the system file's pin still applies.
        #expect(try registry(scratch.placement()).resolveSelection().source == .systemFile(scratch.systemFile))
        try FileManager.default.removeItem(atPath: scratch.systemFile)
        try scratch.write("recorded\n", to: scratch.recordFile)
        #expect(try registry(scratch.placement()).resolveSelection().source == .recorded(scratch.recordFile))

        // Naming `auto` (the CLI's `--backend auto`) reaches the recorded store, not auto's first.
        let registry = registry(scratch.placement())
        #expect(try registry.select("auto") === registry.backend(named: "recorded"))
        #expect(try registry.automaticSelection().source == .recorded(scratch.recordFile))
    }

    @Test func recordedBackendThatCannotRunSaysWhereTheItemsAreNeverNotFound() throws {
        let scratch = Scratch()
        try scratch.write("away\n", to: scratch.recordFile)
        let registry = registry(scratch.placement())
        registry.register("away") { PlaceholderBackend(name: "away", reason: "There is no session bus here.") }
        let error = #expect(throws: KeychainError.self) { try registry.currentSelection() }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.backend == "away")
        #expect(error?.message.contains("items are in 'away'") == true, "\(String(describing: error))")
        #expect(error?.message.contains(scratch.recordFile) == true)
        #expect(error?.message.contains("There is no session bus here.") == true)
    }

    @Test func autoStopsAtALockedStoreInsteadOfMovingOn() {
        let registry = KeychainBackendRegistry()
        registry.register("locked-store", automaticRank: 1) { LockedBackend() }
        registry.register("usable-later", automaticRank: 2) { MemoryBackend() }
        let error = #expect(throws: KeychainError.self) { try registry.select("auto") }
        #expect(error?.status == errSecInteractionNotAllowed)
        #expect(error?.backend == "locked-store")
        #expect(error?.message.contains("Unlock it first.") == true)
    }

    @Test func aDefaultRegistrationNeverReplacesTheProgramsOwn() throws {
        let registry = KeychainBackendRegistry()
        let mine = MemoryBackend()
        registry.register("vault") { mine }
        registry.registerDefault("vault") { PlaceholderBackend(name: "vault", reason: "built-in") }
        #expect(try registry.backend(named: "vault") === mine)
        // And a registration after the first use replaces the built-in one, choice included.
        registry.registerDefault("keyring") { PlaceholderBackend(name: "keyring", reason: "built-in") }
        _ = try? registry.select("keyring")
        registry.register("keyring") { mine }
        #expect(try registry.select("keyring") === mine)
    }

    @Test func registeringANameAgainForgetsTheChoiceOfItsOldBackend() throws {
        let scratch = Scratch()
        let registry = KeychainBackendRegistry(placement: scratch.placement([KeychainBackendRegistry.selectionVariable: "corp"]))
        // Registered under a name other than the instances' own ("memory").
        let first = MemoryBackend()
        registry.register("corp") { first }
        #expect(try registry.current() === first)
        let second = MemoryBackend()
        registry.register("corp") { second }
        #expect(try registry.current() === second, "the choice of the replaced backend was kept")
    }

    @Test func filesRefuseSecretsAndUnknownKeysAndSettingsYieldToTheEnvironment() throws {
        for text in ["KEYCHAIN_FILE_PASSPHRASE = hunter2", "colour = blue", "just words", "backend ="] {
            let error = #expect(throws: KeychainError.self) { try PlacementFile(path: "/x/config", parsing: "# c\n\(text)\n") }
            #expect(error?.status == errSecParam)
            #expect(error?.message.hasPrefix("/x/config:2:") == true, "\(String(describing: error))")
            #expect(error?.message.contains("hunter2") == false, "the error repeats a secret")
        }
        let scratch = Scratch()
        try scratch.write("KEYCHAIN_FILE_DIR = /system\nKEYCHAIN_KEYRING = user\n", to: scratch.systemFile)
        try scratch.write("KEYCHAIN_FILE_DIR = /user\n", to: scratch.userFile)
        let settings = scratch.placement(["KEYCHAIN_KEYRING": "session"]).effectiveEnvironment
        #expect(settings["KEYCHAIN_FILE_DIR"] == "/user")
        #expect(settings["KEYCHAIN_KEYRING"] == "session")

        // A malformed file stops every selection before any store is touched.
        try scratch.write("nonsense\n", to: scratch.userFile)
        let error = #expect(throws: KeychainError.self) { try registry(scratch.placement()).select("first") }
        #expect(error?.status == errSecParam)
    }

    @Test func filesRefuseTheSettingsOnlyTheEnvironmentCanGive() {
        // A file's program identity would have been ignored silently (and, if read, would give
        // every program of the user or machine one group, whose class-wide delete is everyone's).
        for key in [KeychainProgramIdentity.variable, BackendPlacement.systemFileVariable] {
            let error = #expect(throws: KeychainError.self) { try PlacementFile(path: "/x/config", parsing: "\(key) = team\n") }
            #expect(error?.status == errSecParam)
            #expect(error?.message.contains(key) == true, "\(String(describing: error))")
        }
    }

    @Test func pinAndUnpinKeepTheFilesSettings() throws {
        let scratch = Scratch()
        try scratch.write("KEYCHAIN_FILE_DIR = /srv/keys\n", to: scratch.userFile)
        try scratch.placement().pin("user-pin")
        #expect(try PlacementFile.load(scratch.userFile, owners: [geteuid()]) == PlacementFile(path: scratch.userFile, backend: "user-pin",
                                                                          settings: ["KEYCHAIN_FILE_DIR": "/srv/keys"]))
        try scratch.placement().pin(nil)
        #expect(try PlacementFile.load(scratch.userFile, owners: [geteuid()])?.backend == nil)
        #expect(try PlacementFile.load(scratch.userFile, owners: [geteuid()])?.settings == ["KEYCHAIN_FILE_DIR": "/srv/keys"])
    }

    @Test func scopesTurnIntoOrdinaryAccessGroupConstraints() {
        let query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string("s")]))
        let program = AccessScope.program("app")
        #expect(program.searches(query).map { $0.constraints[.accessGroup] } == [.string("app"), .string("")])
        #expect(program.changeQueries(query).map { $0.constraints[.accessGroup] } == [.string("app")])
        #expect(AccessScope.group("team").searches(query).map { $0.constraints[.accessGroup] } == [.string("team")])
        #expect(AccessScope.everything.searches(query).map { $0.constraints[.accessGroup] } == [nil])
        #expect(AccessScope.everything.changeQueries(query).map { $0.constraints[.accessGroup] } == [nil])
        // A query that names a group keeps it: a shared group is shared.
        let named = query.constrained(toGroup: "team")
        #expect(program.searches(named).map { $0.constraints[.accessGroup] } == [.string("team")])
        #expect(program.changeQueries(named).map { $0.constraints[.accessGroup] } == [.string("team")])

        // An empty group, as a primary key spells "none", is no way around a program's scope.
        let spelledEmpty = query.constrained(toGroup: "")
        #expect(program.changeQueries(spelledEmpty).map { $0.constraints[.accessGroup] } == [.string("app")])
        #expect(program.searches(spelledEmpty).map { $0.constraints[.accessGroup] } == [.string("app"), .string("")])
        #expect(AccessScope.everything.searches(spelledEmpty).map { $0.constraints[.accessGroup] } == [.string("")])

        // A program entitled to several groups reaches each of them, its own first, and adds to its own.
        let entitled = AccessScope.program("app", alsoEntitled: ["team.shared", "app"])
        #expect(entitled.searches(query).map { $0.constraints[.accessGroup] } == [.string("app"), .string("team.shared"), .string("")])
        #expect(entitled.changeQueries(query).map { $0.constraints[.accessGroup] } == [.string("app"), .string("team.shared")])
        #expect(entitled.changeQueries(named).map { $0.constraints[.accessGroup] } == [.string("team")])

        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string("s")]))
        #expect(program.stamping(item).attributes[.accessGroup] == .string("app"))
        #expect(entitled.stamping(item).attributes[.accessGroup] == .string("app"))
        #expect(AccessScope.everything.stamping(item).attributes[.accessGroup] == nil)
        // Scoping completes a query's primary key, so backends' exact lookups apply to it.
        let exact = ItemQuery(itemClass: .genericPassword,
                              constraints: ItemAttributes([.service: .string("s"), .account: .string("a"),
                                                           .synchronizable: .bool(false)]))
        #expect(exact.onlyMatchingPrimaryKey == nil)
        #expect(program.searches(exact).allSatisfy { $0.onlyMatchingPrimaryKey != nil })
    }

    @Test func identityComesFromTheEnvironmentElseTheExecutable() throws {
        #expect(KeychainProgramIdentity.resolved(environment: [KeychainProgramIdentity.variable: "billing"]) == "billing")
        #expect(KeychainProgramIdentity.resolved(environment: [KeychainProgramIdentity.variable: ""])
                == KeychainProgramIdentity.executableName)
        #expect(!KeychainProgramIdentity.executableName.isEmpty)
        #expect(throws: KeychainError.self) { try KeychainProgramIdentity.use(accessGroup: "") }
    }

    @Test func entitledGroupsComeFromTheirVariableWhichWinsOverTheSingleGroup() throws {
        let groups = KeychainProgramIdentity.groupsVariable
        #expect(KeychainProgramIdentity.resolvedGroups(environment: [groups: "app, 27AEDK3C9F.shared,app,"]) == ["app", "27AEDK3C9F.shared"])
        #expect(KeychainProgramIdentity.resolvedGroups(environment: [groups: "app", KeychainProgramIdentity.variable: "other"]) == ["app"])
        #expect(KeychainProgramIdentity.resolvedGroups(environment: [groups: " , ", KeychainProgramIdentity.variable: "billing"]) == ["billing"])
        #expect(throws: KeychainError.self) { try KeychainProgramIdentity.use(accessGroups: []) }
        #expect(throws: KeychainError.self) { try KeychainProgramIdentity.use(accessGroups: ["app", ""]) }
    }
}

/// A store that is there but locked, as a Secret Service with its keyring locked is.
private final class LockedBackend: KeychainBackend {
    let name = "locked-store"
    func availability() -> BackendAvailability {
        .unavailable(KeychainError(errSecInteractionNotAllowed, "The store is locked. Unlock it first.", backend: name))
    }
    func add(_ item: KeychainItem) throws { throw KeychainError(errSecInteractionNotAllowed, "locked") }
    func search(_ query: ItemQuery) throws -> [KeychainItem] { throw KeychainError(errSecInteractionNotAllowed, "locked") }
    func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int { throw KeychainError(errSecInteractionNotAllowed, "locked") }
    func delete(_ query: ItemQuery) throws -> Int { throw KeychainError(errSecInteractionNotAllowed, "locked") }
}
