// See include/CDynamicLibrary.h for the contract.

#include "CDynamicLibrary.h"

#include <dlfcn.h>
#include <stdio.h>

void *cdynamiclibrary_open(const char *path, char *reason, size_t reason_size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL && reason != NULL && reason_size > 0) {
        const char *text = dlerror();
        snprintf(reason, reason_size, "%s", text != NULL ? text : path);
    }
    return handle;
}

void *cdynamiclibrary_function(void *handle, const char *path, const char *name, const char *requirement,
                               char *reason, size_t reason_size) {
    void *function = dlsym(handle, name);
    if (function == NULL && reason != NULL && reason_size > 0) {
        snprintf(reason, reason_size, "%s has no function %s%s", path, name, requirement != NULL ? requirement : "");
    }
    return function;
}
