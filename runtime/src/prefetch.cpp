#include <pgas/runtime/prefetch.hpp>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace pgas::runtime {
namespace {

bool ask_processor_for_write_prefetch() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // Leaf 8000_0001h: extended features; ECX bit 8 is PRFCHW (AMD calls it 3DNowPrefetch).
  if (__get_cpuid(0x80000001U, &eax, &ebx, &ecx, &edx) == 0)
    return false;
  return (ecx & (1U << 8)) != 0;
#else
  return false;
#endif
}

}  // namespace

extern const bool processor_prefetches_for_write = ask_processor_for_write_prefetch();

}  // namespace pgas::runtime
