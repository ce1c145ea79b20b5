#pragma once
// PGAS_TEST_UNDER_ASAN is defined where AddressSanitizer is on: g++ says so with a macro, clang
// (before 18) only through __has_feature. Tests that measure memory or address space skip what
// the sanitizer's own bookkeeping would decide for them.
#if defined(__SANITIZE_ADDRESS__)
#define PGAS_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PGAS_TEST_UNDER_ASAN 1
#endif
#endif
