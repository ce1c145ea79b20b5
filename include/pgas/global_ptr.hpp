#pragma once
// A pointer to one element of a distributed container: (window, image, displacement), plus a
// direct pointer when the element is in this process's memory (its own, or a peer's mapped here).

#include <pgas/detail/internal_only.hpp>
#include <pgas/runtime/datatype.hpp>
#include <pgas/runtime/lifetime.hpp>
#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <compare>
#include <cstddef>
#include <type_traits>

namespace pgas {

template <class T>
class global_ref;

/// Points to an element that lives in some image's window memory. Arithmetic moves within the
/// owner's local memory (as UPC++'s global_ptr does); crossing images is the iterators' job.
template <class T>
class global_ptr {
 public:
  using element_type = T;
  using value_type = std::remove_const_t<T>;

  global_ptr() noexcept = default;
  /// Only containers make global_ptrs from parts: a pointer made up by hand could name memory
  /// no image exposes. `life` is the container's (a pointer that outlives it throws when used);
  /// `disp` is in the window's displacement units; `step` is how many units one
  /// element spans (1 for a window whose disp_unit is sizeof(T), sizeof(T) on a dynamic window,
  /// where displacements are addresses). `local` is the element's address in this process, or null
  /// when only RMA reaches it; `owned_here` says whether this image is its owner.
  global_ptr(detail::internal_only,
             runtime::window* win,
             runtime::lifetime_token life,
             std::size_t image,
             MPI_Aint disp,
             MPI_Aint step,
             T* local,
             bool owned_here) noexcept
      : win_{win},
        life_{life},
        image_{image},
        in_peer_memory_{local != nullptr && !owned_here},
        disp_{disp},
        step_{step},
        local_{local} {}
  /// A pointer to non-const converts to a pointer to const.
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>) global_ptr(const global_ptr<U>& p)
  noexcept  // NOLINT(google-explicit-constructor)
      : win_{p.win_},
        life_{p.life_},
        image_{p.image_},
        in_peer_memory_{p.in_peer_memory_},
        disp_{p.disp_},
        step_{p.step_},
        local_{p.local_} {}

  /// The library's view of the pointer: its window (usage_error once its container is gone:
  /// every MPI path asks for it), its displacement there and how many displacement units one
  /// element spans. Local.
  [[nodiscard]] runtime::window* window(detail::internal_only) const {
    runtime::require_alive(life_, "a global_ptr or global_ref");
    return win_;
  }
  [[nodiscard]] runtime::lifetime_token lifetime(detail::internal_only) const noexcept {
    return life_;
  }
  [[nodiscard]] MPI_Aint displacement(detail::internal_only) const noexcept { return disp_; }
  [[nodiscard]] MPI_Aint step(detail::internal_only) const noexcept { return step_; }
  /// The owning image, 0-based, numbered as the container numbers its images. Local.
  [[nodiscard]] std::size_t image() const noexcept { return image_; }
  /// True when this image can load and store the element directly: it owns it, or its owner's
  /// memory is mapped here (arrays and matrices when all images run on one node; as UPC++'s
  /// is_local() means the local team). Ownership is image(). Local.
  [[nodiscard]] bool is_local() const noexcept { return local_ != nullptr; }
  /// The element's address in this process, or null when only RMA reaches it; usage_error once
  /// its container is gone (destroyed or moved from). Local.
  [[nodiscard]] T* local() const {
    runtime::require_alive(life_, "a global_ptr or global_ref");
    return local_;
  }
  /// True when the element is another image's, mapped into this process. Local.
  [[nodiscard]] bool in_peer_memory() const noexcept { return in_peer_memory_; }
  /// True when this image owns the element (is_local() and not in a peer's memory). Local.
  [[nodiscard]] bool owned_here() const noexcept { return local_ != nullptr && !in_peer_memory_; }
  /// The element's address for reading, when is_local(). A peer's element is read under the
  /// rules of a get, so a program behaves alike on one node and on many: this image's earlier
  /// RMA writes to that peer are completed first, and inside a fence or neighbourhood phase
  /// the read is refused (usage_error naming `what`). Local.
  [[nodiscard]] const T* local_for_reading(const char* what) const {
    runtime::require_alive(life_, what);
    if (in_peer_memory_)
      win_->loading_from(what, static_cast<int>(image_));
    return local_;
  }
  [[nodiscard]] bool is_null() const noexcept { return win_ == nullptr; }
  /// The same element, reached through MPI only: for accumulates, which must not become plain
  /// stores even into this process's memory. Local.
  [[nodiscard]] global_ptr without_local_address(detail::internal_only) const noexcept {
    global_ptr p = *this;
    p.local_ = nullptr;
    p.in_peer_memory_ = false;
    return p;
  }

  [[nodiscard]] global_ref<T> operator*() const noexcept { return global_ref<T>{*this}; }
  [[nodiscard]] global_ref<T> operator[](std::ptrdiff_t k) const noexcept { return *(*this + k); }
  global_ptr& operator+=(std::ptrdiff_t k) noexcept {
    disp_ += static_cast<MPI_Aint>(k) * step_;
    if (local_ != nullptr)
      local_ += k;
    return *this;
  }
  global_ptr& operator-=(std::ptrdiff_t k) noexcept { return *this += -k; }
  friend global_ptr operator+(global_ptr p, std::ptrdiff_t k) noexcept { return p += k; }
  friend global_ptr operator-(global_ptr p, std::ptrdiff_t k) noexcept { return p -= k; }
  friend bool operator==(const global_ptr& a, const global_ptr& b) noexcept {
    return a.win_ == b.win_ && a.image_ == b.image_ && a.disp_ == b.disp_;
  }

 private:
  template <class U>
  friend class global_ptr;
  runtime::window* win_ = nullptr;
  runtime::lifetime_token life_;
  std::size_t image_ = 0;
  bool in_peer_memory_ = false;
  MPI_Aint disp_ = 0;
  MPI_Aint step_ = 1;
  T* local_ = nullptr;
};

}  // namespace pgas
