#ifndef LINUX_KEYCHAIN_CFILESYSTEM_H
#define LINUX_KEYCHAIN_CFILESYSTEM_H
// Directory listing without opendir: Swift's Glibc module does not declare getdents64 (glibc
// does only under _GNU_SOURCE), and syscall(2) is variadic, which Swift cannot call.
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/// getdents64(2): fills `buffer` with `struct linux_dirent64` records from the directory's
/// current offset. Returns the bytes filled, 0 at the end, or -1 with errno.
static inline long CFileSystem_getdents64(int descriptor, void *buffer, size_t count) {
    return syscall(SYS_getdents64, descriptor, buffer, count);
}

/// syncfs(2), also declared only under _GNU_SOURCE: flushes the filesystem holding `descriptor`.
static inline long CFileSystem_syncfs(int descriptor) {
    return syscall(SYS_syncfs, descriptor);
}
#endif
