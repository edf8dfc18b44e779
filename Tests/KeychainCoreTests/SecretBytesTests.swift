import KeychainCore
import Testing

@Suite("SecretBytes")
struct SecretBytesTests {
    struct ReadFailed: Error {}

    // A throwing initializer used to free the storage itself and then again in deinit: glibc
    // aborts the process on that double free, so this test fails by crashing if it returns.
    @Test func aThrowingInitializerFreesTheStorageOnce() {
        for _ in 0..<100 {
            #expect(throws: ReadFailed.self) {
                _ = try SecretBytes(count: 16) { buffer in
                    buffer.storeBytes(of: 0xAB, as: UInt8.self)
                    throw ReadFailed()
                }
            }
        }
    }
}
