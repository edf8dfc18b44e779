#ifndef LINUX_KEYCHAIN_CPU_AFFINITY_H
#define LINUX_KEYCHAIN_CPU_AFFINITY_H
// The calling thread's CPU mask, which Swift cannot reach (sched_*affinity are GNU extensions).

/// An opaque copy of a thread's CPU mask.
typedef struct CCPUAffinityMask { unsigned long bits[16]; } CCPUAffinityMask;

/// Saves the calling thread's mask into `saved` and allows it every online CPU. 0, or -1 with
/// errno (the mask is then unchanged).
int ccpuaffinity_widen(CCPUAffinityMask *saved);

/// Gives the calling thread back a mask `ccpuaffinity_widen` saved. 0, or -1 with errno.
int ccpuaffinity_restore(const CCPUAffinityMask *saved);

#endif
