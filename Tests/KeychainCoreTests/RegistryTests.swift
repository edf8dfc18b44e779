import Foundation
import KeychainCore
import Testing

@Suite("backend registry and selection")
struct RegistryTests {
    private func registry() -> KeychainBackendRegistry {
        let registry = KeychainBackendRegistry()
        registry.register("broken-first", automaticRank: 1) {
            PlaceholderBackend(name: "broken-first", reason: "First is broken.")
        }
        registry.register("broken-second", automaticRank: 2) {
            PlaceholderBackend(name: "broken-second", reason: "Second is broken.")
        }
        registry.register("third-party") { MemoryBackend() }
        return registry
    }

    @Test func unknownNameListsTheValidNames() {
        let error = #expect(throws: KeychainError.self) { try registry().select("nonsense") }
        #expect(error?.status == errSecParam)
        #expect(error?.message.contains("auto, broken-first, broken-second, third-party") == true)
    }

    @Test func namedBackendThatCannotRunIsAnErrorNotAFallback() {
        let error = #expect(throws: KeychainError.self) { try registry().select("broken-second") }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message == "Second is broken.")
        #expect(error?.backend == "broken-second")
    }

    @Test func autoListsEveryReasonWhenNothingWorks() {
        let error = #expect(throws: KeychainError.self) { try registry().select("auto") }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("broken-first: First is broken") == true)
        #expect(error?.message.contains("broken-second: Second is broken") == true)
        #expect(error?.message.contains("third-party") == false, "auto tried a backend without an automatic rank")
    }

    @Test func autoTakesTheFirstUsableInRankOrder() throws {
        let registry = registry()
        registry.register("usable-late", automaticRank: 5) { MemoryBackend() }
        registry.register("usable-early", automaticRank: 3) { MemoryBackend() }
        #expect(registry.automaticNames == ["broken-first", "broken-second", "usable-early", "usable-late"])
        let chosen = try registry.select("auto")
        #expect(chosen === (try registry.backend(named: "usable-early")))
    }

    @Test func thirdPartyBackendIsSelectedByNameLikeABuiltIn() throws {
        let registry = registry()
        let chosen = try registry.select("third-party")
        #expect(chosen === (try registry.backend(named: "third-party")), "the registry made a second instance")
    }

    @Test func choiceInCodeWins() throws {
        let registry = registry()
        let mine = MemoryBackend()
        registry.use(mine)
        #expect(try registry.current() === mine)
    }
}
