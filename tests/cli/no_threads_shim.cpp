// LD_PRELOAD shim for the no-threads tests (threads_cli.cmake): every pthread_create fails with
// EAGAIN, as under a process or container thread limit, so std::thread's constructor throws
// std::system_error. The readers must then read on the calling thread (same output), or say so
// as an input error: never crash, never "internal error".
#include <pthread.h>

#include <cerrno>

extern "C" int pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) { return EAGAIN; }
