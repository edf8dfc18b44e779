#ifndef LINUX_KEYCHAIN_CDYNAMICLIBRARY_H
#define LINUX_KEYCHAIN_CDYNAMICLIBRARY_H
// Loading a C library with dlopen at first use, for the shims of the libraries that only one
// backend needs (libsecret, libcurl): the program starts, and the other backends work, on a
// machine without them.
//
// A shim lists its functions once, as an X-macro of X(result, name, parameters), and expands
// it with the two macros below: one pointer per function, then one lookup per function.

#include <stddef.h>

/// Opens the shared library `path` for good: it is never closed, since the libraries loaded
/// this way register types, threads or TLS state that cannot be unloaded. Returns its handle,
/// or NULL with dlerror's text (or `path`) written to `reason`.
void *cdynamiclibrary_open(const char *path, char *reason, size_t reason_size);

/// The function `name` of the library `handle` opened from `path`, or NULL with
/// "PATH has no function NAME" and then `requirement` (such as " (libsecret 0.18 or newer is
/// needed)", or "") written to `reason`.
void *cdynamiclibrary_function(void *handle, const char *path, const char *name, const char *requirement,
                               char *reason, size_t reason_size);

/// Declares the pointer `p_NAME` for one function of the list.
#define CDYNAMICLIBRARY_DECLARE_POINTER(result, name, parameters) static result(*p_##name) parameters;

/// Sets `p_NAME` for one function of the list, or makes the enclosing function return -1 with
/// the reason written. Used inside a loader that returns int and has `handle`, `path`,
/// `requirement`, `reason` and `reason_size` in scope.
#define CDYNAMICLIBRARY_LOOK_UP(result, name, parameters) \
    if ((*(void **)(&p_##name) = cdynamiclibrary_function(handle, path, #name, requirement, reason, reason_size)) \
        == NULL) { \
        return -1; \
    }

#endif
