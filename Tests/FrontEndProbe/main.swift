import Foundation
import LinuxKeychainFrontEnd

// A program that links LinuxKeychainFrontEnd alone, for the test that the front end brings no
// libkeyutils with it (FrontEndLinkTests): SecRandom reads /dev/urandom through the shared
// system-call layer, which must not need the kernel keyring's library.
//
//     KeychainFrontEndProbe    prints 32 random bytes from SecRandomCopyBytes, in hex
//
// Exit status: 0 success, 1 when SecRandomCopyBytes fails (the OSStatus on stderr).

var bytes = [UInt8](repeating: 0, count: 32)
let status = bytes.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, $0.count, $0.baseAddress!) }
guard status == errSecSuccess else {
    FileHandle.standardError.write(Data("SecRandomCopyBytes: OSStatus \(status)\n".utf8))
    exit(1)
}
print(bytes.map { String(format: "%02x", $0) }.joined())
