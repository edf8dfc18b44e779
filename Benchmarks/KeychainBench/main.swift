print("keychain-bench: not built yet")
