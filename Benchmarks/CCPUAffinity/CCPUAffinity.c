// See include/CCPUAffinity.h.
#define _GNU_SOURCE
#include "CCPUAffinity.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(CCPUAffinityMask) == sizeof(cpu_set_t), "CCPUAffinityMask must hold a cpu_set_t");

int ccpuaffinity_widen(CCPUAffinityMask *saved) {
    cpu_set_t current, every;
    if (sched_getaffinity(0, sizeof current, &current) != 0) return -1;
    memcpy(saved, &current, sizeof current);
    CPU_ZERO(&every);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < online && cpu < CPU_SETSIZE; cpu++) CPU_SET((int)cpu, &every);
    return sched_setaffinity(0, sizeof every, &every);
}

int ccpuaffinity_restore(const CCPUAffinityMask *saved) {
    cpu_set_t mask;
    memcpy(&mask, saved, sizeof mask);
    return sched_setaffinity(0, sizeof mask, &mask);
}
