// `OSStatus` and the `errSec…` codes are Apple's names, so `import LinuxKeychainFrontEnd` (and
// so `import LinuxKeychain`) brings them, as `import Security` does. Nothing else of the
// package's own modules is re-exported.
@_exported import KeychainStatusCodes
