// The typed API throws `KeychainError` and takes `KeychainBackend`s, so its users get
// KeychainCore's model with it. This module is opt-in and never imported by Apple-style code,
// so these names cannot collide with a wrapper's.
@_exported import KeychainCore
