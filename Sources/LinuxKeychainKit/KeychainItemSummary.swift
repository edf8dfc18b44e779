public import Foundation
public import KeychainCore

extension Keychain {
    /// One stored item as `allItems()` returns it: its names and attributes, never its secret.
    public struct Item: Sendable, Hashable {
        /// The account (user name) the item is for.
        public let account: String
        /// The generic password's service; nil for an internet password.
        public let service: String?
        /// The internet password's server; nil for a generic password.
        public let server: String?
        /// The internet password's protocol, if it has one.
        public let `protocol`: InternetProtocol?
        /// The internet password's port, if it has one.
        public let port: Int?
        /// The internet password's path, if it has one.
        public let path: String?
        /// The name people see for it (Seahorse, Keychain Access), if it has one.
        public let label: String?
        /// The comment stored with it, if any.
        public let comment: String?
        /// Apple's `kSecAttrAccessible` value it was stored with, if any.
        public let accessibility: Accessibility?
        /// Its access group, if it has one.
        public let accessGroup: String?
        /// Whether it is marked synchronizable (`kSecAttrSynchronizable`).
        public let isSynchronizable: Bool
        /// When it was created, if the store knows.
        public let creationDate: Date?
        /// When it was last changed, if the store knows.
        public let modificationDate: Date?
        /// The internet password's authentication type, if it has one.
        public let authenticationType: AuthenticationType?
        /// The internet password's security domain (an HTTP realm, say), if it has one.
        public let securityDomain: String?
        /// Every attribute as stored, for those without a property here (`kSecAttrDescription`
        /// is `attributes[.itemDescription]`, `kSecAttrGeneric` is `attributes[.generic]`).
        /// Attributes only: an item never carries its secret.
        public let attributes: ItemAttributes

        init(_ item: KeychainItem) {
            let attributes = item.attributes
            func text(_ key: AttributeKey) -> String? {
                guard let value = attributes.string(key), !value.isEmpty else { return nil }
                return value
            }
            func date(_ key: AttributeKey) -> Date? {
                if case .date(let date)? = attributes[key] { return date }
                return nil
            }
            account = attributes.string(.account) ?? ""
            service = item.itemClass == .genericPassword ? attributes.string(.service) ?? "" : nil
            server = item.itemClass == .internetPassword ? attributes.string(.server) ?? "" : nil
            `protocol` = text(.protocol).map(InternetProtocol.init(rawValue:))
            if case .integer(let number)? = attributes[.port], number != 0 { port = Int(number) } else { port = nil }
            path = text(.path)
            label = text(.label)
            comment = text(.comment)
            accessibility = text(.accessible).map(Accessibility.init(rawValue:))
            accessGroup = text(.accessGroup)
            isSynchronizable = attributes.flag(.synchronizable)
            creationDate = date(.creationDate)
            modificationDate = date(.modificationDate)
            authenticationType = text(.authenticationType).map(AuthenticationType.init(rawValue:))
            securityDomain = text(.securityDomain)
            self.attributes = attributes
        }
    }
}
