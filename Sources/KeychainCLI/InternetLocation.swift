import KeychainCore
import KeychainBuiltInBackends

/// Where an internet password is: protocol, server, port and path, as the CLI shows them in
/// three spellings: the `list` column (`https://git.example.com:8443/api`), the options that
/// name it (`--protocol https --port 8443 --path /api`) and a `run` reference
/// (`keychain+https://alice@git.example.com:8443/api`). Empty strings and port 0 are how a
/// store spells "not given", so they are left out.
struct InternetLocation {
    /// The protocol as people type it (`https`), or nil.
    let protocolName: String?
    let server: String
    let port: Int64?
    let path: String?

    init(_ attributes: ItemAttributes) {
        protocolName = attributes.string(.protocol).flatMap { $0.isEmpty ? nil : ProtocolNames.name(for: $0) }
        server = attributes.string(.server) ?? ""
        if case .integer(let port)? = attributes[.port], port != 0 { self.port = port } else { port = nil }
        path = attributes.string(.path).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `https://git.example.com:8443/api`, or as much of it as the item has.
    var text: String {
        var text = server
        if let protocolName { text = protocolName + "://" + text }
        if let port { text += ":\(port)" }
        if let path { text += path.hasPrefix("/") ? path : "/" + path }
        return text
    }

    /// The options that name an item here, beyond SERVER ACCOUNT: at least `--internet`.
    var options: [String] {
        var options: [String] = []
        if let protocolName { options += ["--protocol", Self.shellQuoted(protocolName)] }
        if let port { options += ["--port", String(port)] }
        if let path { options += ["--path", Self.shellQuoted(path)] }
        return options.isEmpty ? ["--internet"] : options
    }

    /// The `run` reference to the item of `account` here (see `SecretReference`).
    func reference(account: String) -> String {
        var text = "keychain+\(protocolName ?? SecretReference.anyProtocol)://\(account)@\(server)"
        if let port { text += ":\(port)" }
        if let path { text += path.hasPrefix("/") ? path : "/" + path }
        return text
    }

    /// `text` as one shell word: as is when it holds only characters no shell treats specially.
    static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._/:@%+=,-".unicodeScalars.contains(scalar))
        }
        return plain ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
