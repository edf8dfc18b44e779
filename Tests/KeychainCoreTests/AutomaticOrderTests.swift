import KeychainCore
import Testing

/// `auto`'s order as `unlockNeedsPrompt` and `retention` shape it: a store that would ask a
/// person goes after every store that would not, and the registry's backends say what their
/// items outlive.
@Suite("auto's order and what each store keeps")
struct AutomaticOrderTests {
    @Test func aBackendThatWouldPromptIsTriedAfterOnesThatWouldNot() throws {
        let registry = KeychainBackendRegistry()
        registry.register("prompting", automaticRank: 1) { StubBackend(name: "prompting", needsPrompt: true) }
        registry.register("volatile", automaticRank: 2) { StubBackend(name: "volatile", retention: .untilReboot) }
        #expect(registry.automaticNames == ["prompting", "volatile"])
        #expect(try registry.automaticChoice().get().name == "volatile")
    }

    @Test func aBackendThatWouldPromptIsStillChosenWhenNothingElseIsUsable() throws {
        let registry = KeychainBackendRegistry()
        registry.register("prompting", automaticRank: 1) { StubBackend(name: "prompting", needsPrompt: true) }
        registry.register("absent", automaticRank: 2) { StubBackend(name: "absent", usable: false) }
        #expect(try registry.automaticChoice().get().name == "prompting")
    }

    @Test func theRankDecidesAmongBackendsThatNeedNoPrompt() throws {
        let registry = KeychainBackendRegistry()
        registry.register("volatile", automaticRank: 2) { StubBackend(name: "volatile", retention: .untilReboot) }
        registry.register("durable", automaticRank: 1) { StubBackend(name: "durable") }
        let chosen = try registry.automaticChoice().get()
        #expect(chosen.name == "durable" && chosen.retention.survivesReboot && chosen.retention.warning == nil)
    }

    @Test func retentionIsDurableUnlessTheBackendSaysOtherwise() throws {
        #expect(StubBackend(name: "plain").retention == .durable)
        #expect(StubBackend(name: "plain").unlockNeedsPrompt == false)
        #expect(MemoryBackend().retention == .processLifetime)
        #expect(ItemRetention.untilReboot.warning == "kept in memory: lost at reboot")
        #expect(!ItemRetention.untilReboot.survivesReboot && !ItemRetention.processLifetime.survivesReboot)
    }
}

/// A backend that only answers the questions `auto` asks; its items go nowhere.
private final class StubBackend: KeychainBackend {
    let name: String
    let retention: ItemRetention
    let unlockNeedsPrompt: Bool
    let usable: Bool

    init(name: String, retention: ItemRetention = .durable, needsPrompt: Bool = false, usable: Bool = true) {
        self.name = name
        self.retention = retention
        self.unlockNeedsPrompt = needsPrompt
        self.usable = usable
    }

    func availability() -> BackendAvailability {
        usable ? .available("stub") : .unavailable(KeychainError(errSecNotAvailable, "absent here", backend: name))
    }
    func add(_ item: KeychainItem) throws { throw KeychainError(errSecUnimplemented, "stub") }
    func search(_ query: ItemQuery) throws -> [KeychainItem] { [] }
    func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int { 0 }
    func delete(_ query: ItemQuery) throws -> Int { 0 }
}
