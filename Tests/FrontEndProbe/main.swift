import Foundation
import LinuxKeychainFrontEnd

// A program that links LinuxKeychainFrontEnd alone, for the tests that the front end brings no
// libkeyutils with it and maps libcrypto only at its first key (FrontEndLinkTests): SecRandom
// reads /dev/urandom through the shared system-call layer, which must not need the kernel
// keyring's library.
//
//     KeychainFrontEndProbe          prints 32 random bytes from SecRandomCopyBytes, in hex
//     KeychainFrontEndProbe keys     prints whether libcrypto is mapped ("mapped" or "not mapped")
//                                    before and after SecKeyCreateRandomKey, one line each
//
// Exit status: 0 success, 1 when SecRandomCopyBytes or SecKeyCreateRandomKey fails (why on stderr).

/// Whether libcrypto is among this process's mappings.
func libcryptoState() -> String {
    // Read to the end: /proc files have no size, and a one-shot read may stop at a page (the
    // sanitizers' many mappings push libcrypto's past the first).
    let file = FileHandle(forReadingAtPath: "/proc/self/maps")
    defer { try? file?.close() }
    let maps = String(decoding: (try? file?.readToEnd()) ?? Data(), as: UTF8.self)
    return maps.contains("/libcrypto.so") ? "mapped" : "not mapped"
}

if CommandLine.arguments.dropFirst().first == "keys" {
    print(libcryptoState())
    var error: Unmanaged<CFError>?
    let parameters = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256] as CFDictionary
    guard SecKeyCreateRandomKey(parameters, &error) != nil else {
        FileHandle.standardError.write(Data("SecKeyCreateRandomKey: \(error?.takeRetainedValue().localizedDescription ?? "")\n".utf8))
        exit(1)
    }
    print(libcryptoState())
    exit(0)
}

var bytes = [UInt8](repeating: 0, count: 32)
let status = bytes.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, $0.count, $0.baseAddress!) }
guard status == errSecSuccess else {
    FileHandle.standardError.write(Data("SecRandomCopyBytes: OSStatus \(status)\n".utf8))
    exit(1)
}
print(bytes.map { String(format: "%02x", $0) }.joined())
