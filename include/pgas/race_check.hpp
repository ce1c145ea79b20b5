#pragma once
// The race checker's face: PGAS_CHECK=1 turns it on for the whole job (runtime/race_check.hpp
// says what it reports and when). Reports are printed on stderr by the image that checks them
// (the owner of the bytes) and kept here, so a program or a test can ask for them.

#include <pgas/runtime/race_check.hpp>

#include <string>
#include <vector>

namespace pgas {

/// True while the race checker is on (PGAS_CHECK=1 in the environment). Local.
[[nodiscard]] inline bool race_check_enabled() noexcept {
  return runtime::race_check::enabled();
}

/// False when some code of this program was compiled with PGAS_RACE_CHECK=0 (the default under
/// NDEBUG): its single-element accesses (a[i], global_ref, atomics, futures, aggregator
/// updates) are then not seen by the checker. Local.
[[nodiscard]] inline bool race_check_sees_element_accesses() noexcept {
  return !runtime::race_check::code_without_element_checks();
}

/// The races this image has reported so far, one line each: the container and index, both
/// images, what each did and where in the program. A report is made at the sync point that
/// orders both accesses (or when the container is destroyed), by the image owning the bytes.
/// Local.
[[nodiscard]] inline const std::vector<std::string>& race_reports() noexcept {
  return runtime::race_check::reports();
}

}  // namespace pgas
