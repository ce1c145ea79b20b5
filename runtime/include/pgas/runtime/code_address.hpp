#pragma once
// A function's address in a form every image of one program reads back as its own copy of the
// same function, whatever address each process loaded the program and its libraries at.

#include <cstdint>

namespace pgas::runtime {

/// The loaded object (executable or shared library) that holds `function`, by its position in
/// the dynamic linker's list, and the offset into it. Every image of one SPMD program loads the
/// same objects in the same order, so another image turns it back into its own address with
/// local_code_address. Throws usage_error for an address inside no loaded object. Local;
/// callers keep the result (it walks the linker's list once per object).
[[nodiscard]] std::uint64_t portable_code_address(const void* function);

/// The address here of what portable_code_address named on any image. Throws usage_error for a
/// name this process cannot have produced (another program). Local, constant time.
[[nodiscard]] const void* local_code_address(std::uint64_t portable);

}  // namespace pgas::runtime
