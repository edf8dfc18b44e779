@testable import KeychainSecretService
import Testing

extension SecretServiceTests {
    /// What is sent to each provider to set an item's attributes (the real providers' side is
    /// covered by the conformance suite on gnome-keyring and KeePassXC).
    @Suite("provider differences")
    struct ProviderDifferences {
        let current = ["service": "s", "username": "old", "keychain:default-label": "1", "Uuid": "ab12", "Path": "/s (old)"]
        let wanted = ["service": "s", "username": "new", "Uuid": "ab12", "Path": "/s (old)"]

        @Test func processNamesTellTheProviders() {
            #expect(SecretServiceProvider.kind(ofCommand: "gnome-keyring-d") == .gnomeKeyring)
            #expect(SecretServiceProvider.kind(ofCommand: "keepassxc") == .keePassXC)
            #expect(SecretServiceProvider.kind(ofCommand: "kwalletd6") == .kWallet)
            #expect(SecretServiceProvider.kind(ofCommand: "") == .other)
        }

        /// gnome-keyring replaces all attributes: it gets the whole wanted set.
        @Test func replacingProviderGetsEverything() {
            let provider = SecretServiceProvider(uniqueName: ":1.2", processID: 0, command: "gnome-keyring-d")
            #expect(provider.attributesToSend(wanted, replacing: current) == wanted)
            #expect(provider.attributesToSend(current, replacing: current) == nil)
        }

        /// KeePassXC merges and refuses its read-only names: it gets the changes only, a dropped
        /// name as "", and never Uuid or Path.
        @Test func mergingProviderGetsTheChangesOnly() {
            let provider = SecretServiceProvider(uniqueName: ":1.2", processID: 0, command: "keepassxc")
            #expect(provider.attributesToSend(wanted, replacing: current) == ["username": "new", "keychain:default-label": ""])
            #expect(provider.attributesToSend(current, replacing: current) == nil)
        }
    }
}
