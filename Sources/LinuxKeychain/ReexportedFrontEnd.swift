// `import LinuxKeychain` brings what `import LinuxKeychainFrontEnd` brings (Apple's names only:
// SecItem*, kSec*, errSec*, OSStatus, the CF stand-ins), with the built-in backends registered.
@_exported import LinuxKeychainFrontEnd
// `KeychainBackendRegistry.withBuiltIns`, for programs that also import KeychainCore.
@_exported import KeychainBuiltInBackends
