#pragma once
// The objects the module keeps for the life of the process (buffer pools,
// worker threads): one each, never destroyed (arrays may outlive statics,
// and no destructor may wait on a thread at exit). A child forked from the
// process gets fresh ones: it has none of its parent's threads, and a copy
// of a mutex one of them held stays locked for ever. The parent's copies
// are left behind in the child, unused.

#include <pthread.h>

#include <mutex>

namespace glccl::python {

template <class T>
T& processWide() {
    static T* instance = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        instance = new T();
        pthread_atfork(nullptr, nullptr, [] { instance = new T(); });
    });
    return *instance;
}

}  // namespace glccl::python
