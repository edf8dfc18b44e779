/// The entry points' hook (CShims/CBuiltInBackendsHook): KeychainEntryPoints calls it through a
/// weak reference before its first use of the registry, so linking this module (LinuxKeychain
/// and the CLI do) is what registers the built-in backends. Internal, so no import brings a
/// name of it: the C symbol is still linked by name within the program.
@_cdecl("linux_keychain_register_built_in_backends")
func linuxKeychainRegisterBuiltInBackends() {
    BuiltInBackends.ensureRegistered()
}
