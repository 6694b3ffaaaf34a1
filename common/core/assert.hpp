#pragma once
/// \file
/// ARBITER_ASSERT: checks for programmer bugs, active in Debug and sanitizer builds.
/// Never reachable from user input: untrusted text is rejected with an Expected error instead.

#include <cstdio>
#include <cstdlib>

#if !defined(NDEBUG) || defined(ARBITER_ENABLE_ASSERTS)
#define ARBITER_ASSERT(condition)                                                                  \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #condition); \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)
#else
#define ARBITER_ASSERT(condition) \
    do {                          \
        (void)sizeof(condition);  \
    } while (false)
#endif
