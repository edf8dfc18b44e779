print("keychain")
