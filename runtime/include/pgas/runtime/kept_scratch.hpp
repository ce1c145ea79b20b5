#pragma once
// Scratch memory kept between calls. A collective update's buckets and what its exchange brings
// are tens of megabytes; allocated afresh each call, glibc maps them anew and every page faults
// in (zeroed) again: on an AMD EPYC VM, more than half of a bale-size histogram's time
// (bench/README, Eighteenth session). Large blocks given back are kept for the next call, within
// a bound; small ones go straight to the heap. Blocks of a transparent huge page or more are
// mapped on huge pages of their own where the kernel offers them (a first call then faults
// hundreds of times fewer).

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace pgas::runtime {

/// Blocks of at least this many bytes are kept when given back; smaller ones are the heap's.
inline constexpr std::size_t kept_scratch_smallest = std::size_t{1} << 20;
/// At most this many bytes are kept (blocks given back past it are freed).
inline constexpr std::size_t kept_scratch_most = std::size_t{1} << 28;

/// At least `bytes` of memory aligned for any type: a kept block that fits (and is not more than
/// four times the size), else a new one. Thread-safe.
[[nodiscard]] void* take_scratch(std::size_t bytes);
/// Gives back what take_scratch(bytes) returned. Thread-safe.
void give_back_scratch(void* block, std::size_t bytes) noexcept;
/// The bytes kept now, waiting for a call (for the tests).
[[nodiscard]] std::size_t kept_scratch_bytes() noexcept;
/// True when blocks of a transparent huge page or more are mapped on huge pages of their own:
/// the kernel offers a huge page size and this is not a sanitizer build (whose blocks stay on
/// the heap, where it checks them). Local.
[[nodiscard]] bool kept_scratch_maps_huge_pages() noexcept;

/// An allocator drawing on the kept scratch. Elements a container makes without a value are
/// left uninitialised, as `new T` leaves them: a buffer about to be overwritten is not zeroed.
template <class T>
struct scratch_allocator {
  using value_type = T;
  scratch_allocator() = default;
  template <class U>
  explicit(false) scratch_allocator(const scratch_allocator<U>&) noexcept {}
  [[nodiscard]] T* allocate(std::size_t n) { return static_cast<T*>(take_scratch(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { give_back_scratch(p, n * sizeof(T)); }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
  friend bool operator==(scratch_allocator, scratch_allocator) noexcept { return true; }
};

/// A vector on the kept scratch.
template <class T>
using scratch_vector = std::vector<T, scratch_allocator<T>>;

}  // namespace pgas::runtime
