import KeychainCore

// Replaced by the backend's implementation; see the backend's issue.
enum KeychainEncryptedFilePlaceholder {}
