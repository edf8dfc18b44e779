import Foundation

/// The Secret Service collection a test's items may go to on the provider with-services.sh
/// started: gnome-keyring's `session` one (in memory), or, on KeePassXC and KWallet, which have
/// no such collection, the `default` one, a scratch database or wallet made for the run.
package var scratchSecretServiceCollection: String {
    ["keepassxc", "kwallet"].contains(ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_TEST_PROVIDER"]) ? "default" : "session"
}
