// Emscripten's libc (musl) declares the CPU affinity calls but has no
// definitions: a page runs on the one thread it is given. The cpu engine's
// count of usable cores (cpu/src/labeler.cpp) asks for them; here the answer
// is "not known", and it takes std::thread::hardware_concurrency() instead.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) {
    (void)pid;
    (void)size;
    (void)set;
    errno = ENOSYS;
    return -1;
}

int __sched_cpucount(size_t size, const cpu_set_t* set) {
    const unsigned char* bytes = (const unsigned char*)set;
    int count = 0;
    for (size_t i = 0; i < size; ++i) count += __builtin_popcount(bytes[i]);
    return count;
}
