// Backends and the model speak in Apple's status codes, so whoever imports KeychainCore
// gets `OSStatus` and the `errSec…` names with it.
@_exported import KeychainStatusCodes
