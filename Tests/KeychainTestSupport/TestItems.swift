import Foundation
package import KeychainCore
import KeychainConformance

// Items and queries come from KeychainConformance's vocabulary (genericItem, exactQuery,
// storedSecret), which every test target imports; this adds what only the tests want.

/// A generic password holding the UTF-8 bytes of `secret`.
package func genericItem(_ service: String, _ account: String, _ secret: String,
                         extra: [AttributeKey: AttributeValue] = [:]) -> KeychainItem {
    genericItem(service, account, Data(secret.utf8), extra: extra)
}
