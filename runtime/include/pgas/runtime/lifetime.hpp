#pragma once
// Lifetimes a handle can check: an object (a container's state) holds a `lifetime`; every
// handle made from it (global_ptr, iterator, future, halo exchange) holds its token. Once the
// object is destroyed or renewed (its container moved from), every token made before says so,
// even after the object's memory, its window and its slot have been reused — so a stale handle
// can never write into the container that came next.

#include <cstdint>

namespace pgas::runtime {

/// Names one lifetime: a slot of the process's table and the generation the slot had when the
/// token was made. Slot 0 belongs to nothing and never ends (a handle made by no container).
struct lifetime_token {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
};

namespace detail {
// Each slot's current generation, indexed by slot; slot 0 is always 0. One load per check.
extern const std::uint32_t* lifetime_generations;  // NOLINT: read by every handle check
[[noreturn]] void throw_lifetime_ended(const char* what);
}  // namespace detail

/// True while the object the token was made from lives and has not been renewed. Local.
[[nodiscard]] inline bool alive(lifetime_token t) noexcept {
  return detail::lifetime_generations[t.slot] == t.generation;
}
/// Throws usage_error naming `what` (the kind of handle) unless alive(t). Local.
inline void require_alive(lifetime_token t, const char* what) {
  if (!alive(t)) [[unlikely]]
    detail::throw_lifetime_ended(what);
}

/// The lifetime of one object. Neither copied nor moved: it belongs to an object that stays
/// put (a container's heap state); the object's owner renews it when it is moved from.
class lifetime {
 public:
  lifetime();
  ~lifetime();
  lifetime(const lifetime&) = delete;
  lifetime& operator=(const lifetime&) = delete;
  lifetime(lifetime&&) = delete;
  lifetime& operator=(lifetime&&) = delete;

  /// What a handle made now holds. Local. Inline: a handle made and used at once (`a[i] = v`)
  /// then checks what it just read, which the compiler folds away.
  [[nodiscard]] lifetime_token token() const noexcept {
    return {slot_, detail::lifetime_generations[slot_]};
  }
  /// Ends every token made so far; tokens made from now on are alive. Local.
  void renew() noexcept;

 private:
  std::uint32_t slot_;
};

}  // namespace pgas::runtime
