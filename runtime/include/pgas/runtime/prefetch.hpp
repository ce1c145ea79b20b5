#pragma once
// Asking for a cache line that a loop will write some iterations from now.
//
// Why not __builtin_prefetch(p, 1) alone: without a -march that includes PRFCHW, GCC and clang
// emit a read prefetch for it on x86-64 (prefetcht0), which brings the line in shared when
// another core holds it. An atomic or a store then waits for every other copy to be
// invalidated, one line at a time. Where images update each other's tables on one node (gups),
// a scratch loop of atomics measured 17-21 ns an update that way against 7-10 with PREFETCHW,
// which asks for the line to own (AMD EPYC VM, 2 images). Intel has PREFETCHW from Broadwell,
// AMD from its first x86-64; one build must serve older processors too, so the processor is
// asked once (CPUID) and the instruction used only where it has it.

namespace pgas::runtime {

/// True when this processor has an instruction that prefetches a line for writing
/// (x86-64: CPUID 8000_0001h ECX bit 8, PRFCHW); read once, at start. Where false,
/// prefetch_for_write falls back to what the compiler emits. Local.
extern const bool processor_prefetches_for_write;

/// Asks for the cache line holding `p` to be brought in to be written: with PREFETCHW where the
/// processor has it (above), otherwise the compiler's write prefetch. A hint: it changes no
/// memory. `p` points into an object the loop will write. Always inlined: loops over scattered
/// memory call it every iteration.
[[gnu::always_inline]] inline void prefetch_for_write(const void* p) noexcept {
#if defined(__x86_64__) && !defined(__PRFCHW__)
  if (processor_prefetches_for_write) {
    asm("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
    return;
  }
#endif
  __builtin_prefetch(p, 1);
}

}  // namespace pgas::runtime
