#ifndef LINUX_KEYCHAIN_CBUILDINFO_H
#define LINUX_KEYCHAIN_CBUILDINFO_H

/// The git commit the CLI was built from, as Package.swift passed it (LINUX_KEYCHAIN_COMMIT in
/// the build's environment, which the scripts set), or "unknown". Swift cannot take a value
/// from the build's command line, C can: hence this one function.
const char *CBuildInfo_commit(void);

#endif
