#pragma once
// Whether single-element accesses (a[i], global_ref, atomics, futures, the aggregator's add)
// tell the race checker what they touch. Decided when the program is compiled, as
// ThreadSanitizer instruments at compile time: a check on a runtime flag in a loop of 5 ns
// element reads cost 15-20 % even with the checker off (it keeps the compiler from folding the
// handle's liveness check across the call it might make). So:
// - PGAS_RACE_CHECK=1 (the default without NDEBUG, as assert is): element accesses are seen
//   when the program runs with PGAS_CHECK=1, and cost one load and a branch when it does not;
// - PGAS_RACE_CHECK=0 (the default with NDEBUG): element accesses cost nothing and are not seen.
// Transfers, patches, gathers and scatters are always seen under PGAS_CHECK=1 (their check is
// small beside their work). A program run with PGAS_CHECK=1 whose code was compiled with
// PGAS_RACE_CHECK=0 is told so on image 0's stderr at its start: a race the checker cannot see
// is never passed over in silence.

#include <pgas/runtime/race_check.hpp>

#ifndef PGAS_RACE_CHECK
#ifdef NDEBUG
#define PGAS_RACE_CHECK 0
#else
#define PGAS_RACE_CHECK 1
#endif
#endif

namespace pgas::detail {

#if !PGAS_RACE_CHECK
// Defined (and so initialised, before main) only when some translation unit is compiled
// without element checks; the runtime says so if the checker is then turned on.
inline const bool element_checks_compiled_out =
    runtime::race_check::note_code_without_element_checks();
#endif

/// Used by every element path instead of a direct check: nothing when compiled out (but the
/// program is marked as having such code), the runtime flag's test when compiled in.
template <class Note>
void note_element_access(Note&& note) {
#if PGAS_RACE_CHECK
  if (runtime::race_check::enabled()) [[unlikely]]
    note();
#else
  static_cast<void>(note);
  static_cast<void>(element_checks_compiled_out);
#endif
}

}  // namespace pgas::detail
