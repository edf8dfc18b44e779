import CBuiltInBackendsHook
package import KeychainCore

extension KeychainBackendRegistry {
    /// The shared registry, with the built-in backends registered first when the program links
    /// the LinuxKeychain module (through the weak hook in CShims/CBuiltInBackendsHook). A program
    /// that links only LinuxKeychainFrontEnd finds there only what it registered itself.
    package static var prepared: KeychainBackendRegistry {
        linux_keychain_prepare_registry()
        return .shared
    }
}
