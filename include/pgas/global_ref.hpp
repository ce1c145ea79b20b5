#pragma once
// A reference to one element of a distributed container: reading gets, assigning puts,
// compound assignment accumulates.

#include <pgas/detail/locality.hpp>
#include <pgas/future.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <concepts/type_traits.hpp>
#include <concepts>
#include <type_traits>

namespace pgas {

/// A proxy for one element, wherever it lives. Plain reads and writes of an element in this
/// process's memory (its own, or a same-node peer's mapped here: global_ptr::is_local()) are
/// loads and stores with no MPI call; others are MPI_Get / MPI_Put. Compound
/// assignments and the atomic members are atomic with respect to every other accumulate and
/// atomic: MPI accumulates, also for the owner, except on a window every image shares, where
/// every image applies them with the processor's atomics (runtime/in_place_updates.hpp).
/// A write is complete and visible to every image after the next sync point.
template <class T>
class global_ref {
 public:
  using value_type = std::remove_const_t<T>;
  static_assert(runtime::transferable<value_type>,
                "pgas elements must be trivially copyable: they travel through MPI as bytes");

  explicit global_ref(global_ptr<T> target) noexcept : target_{target} {}
  /// A reference made at `where` in the user's program (`a[i]`): the race checker names it.
  global_ref(global_ptr<T> target, const runtime::watchdog::source_location& where) noexcept
      : target_{target}, where_{where} {}
  global_ref(const global_ref&) noexcept = default;  // declared, or -Wdeprecated-copy fires
  /// A reference to non-const converts to a reference to const.
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>) global_ref(const global_ref<U>& r)
  noexcept : target_{r.address()}, where_{r.made_at()} {}  // NOLINT

  /// Reads the element. Local; blocks until the value has arrived; sees this image's own earlier
  /// writes to it, and other images' writes completed by a sync point.
  operator value_type() const {  // NOLINT(google-explicit-constructor): a reference reads
    return detail::load(target_, "a blocking read of an element", site());
  }
  /// Same as the conversion, spelled out. Local.
  [[nodiscard]] value_type get() const { return static_cast<value_type>(*this); }

  /// Writes v. Local; returns at once; complete at the next sync point.
  // Const-qualified on purpose: std::indirectly_writable assigns through a const proxy.
  const global_ref& operator=(const value_type& v) const requires(!std::is_const_v<T>) {
    detail::store(target_, v, site());
    return *this;
  }
  /// `a[i] = b[j]` copies the value; assigning a reference never rebinds it.
  const global_ref& operator=(const global_ref& other) const requires(!std::is_const_v<T>) {
    return *this = other.get();
  }
  template <class U>
  const global_ref& operator=(const global_ref<U>& other) const
      requires(!std::is_const_v<T> &&
               std::convertible_to<typename global_ref<U>::value_type, value_type>) {
    return *this = static_cast<value_type>(other.get());
  }

  /// Adds v atomically (MPI_Accumulate with MPI_SUM). Local; complete at the next sync point.
  const global_ref& operator+=(const value_type& v) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    return accumulate(v, runtime::reduce_op::sum);
  }
  /// Subtracts v atomically, as the sum of -v (wrapping for unsigned types, as C++ does).
  const global_ref& operator-=(const value_type& v) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    return accumulate(static_cast<value_type>(value_type{} - v), runtime::reduce_op::sum);
  }
  /// Multiplies by v atomically (MPI_PROD).
  const global_ref& operator*=(const value_type& v) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    return accumulate(v, runtime::reduce_op::prod);
  }
  const global_ref& operator&=(const value_type& v) const
      requires(!std::is_const_v<T> && std::integral<value_type>) {
    return accumulate(v, runtime::reduce_op::band);
  }
  const global_ref& operator|=(const value_type& v) const
      requires(!std::is_const_v<T> && std::integral<value_type>) {
    return accumulate(v, runtime::reduce_op::bor);
  }
  const global_ref& operator^=(const value_type& v) const
      requires(!std::is_const_v<T> && std::integral<value_type>) {
    return accumulate(v, runtime::reduce_op::bxor);
  }

  /// Atomically adds v and returns the previous value. Local; blocks for the result.
  value_type fetch_add(const value_type& v) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    return detail::fetch_and_op(target_, v, runtime::reduce_op::sum, site());
  }
  /// Atomically combines v with the value (and, or, xor: integers; min, max: any arithmetic
  /// type) and returns the previous value. Local; blocks for the result.
  value_type fetch_and(const value_type& v) const
      requires(!std::is_const_v<T> && std::integral<value_type> &&
               runtime::accumulable<value_type>) {
    return detail::fetch_and_op(target_, v, runtime::reduce_op::band, site());
  }
  value_type fetch_or(const value_type& v) const
      requires(!std::is_const_v<T> && std::integral<value_type> &&
               runtime::accumulable<value_type>) {
    return detail::fetch_and_op(target_, v, runtime::reduce_op::bor, site());
  }
  value_type fetch_xor(const value_type& v) const
      requires(!std::is_const_v<T> && std::integral<value_type> &&
               runtime::accumulable<value_type>) {
    return detail::fetch_and_op(target_, v, runtime::reduce_op::bxor, site());
  }
  value_type fetch_min(const value_type& v) const
      requires(!std::is_const_v<T> && std::is_arithmetic_v<value_type> &&
               runtime::accumulable<value_type>) {
    return detail::fetch_and_op(target_, v, runtime::reduce_op::min, site());
  }
  value_type fetch_max(const value_type& v) const
      requires(!std::is_const_v<T> && std::is_arithmetic_v<value_type> &&
               runtime::accumulable<value_type>) {
    return detail::fetch_and_op(target_, v, runtime::reduce_op::max, site());
  }
  /// Atomically stores v (an atomic with no result: ordered with other atomics on the element,
  /// unlike a plain assignment). Local; complete when it returns.
  void atomic_store(const value_type& v) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    (void)detail::fetch_and_op(target_, v, runtime::reduce_op::replace, site());
  }
  /// Starts an atomic add; the future holds the previous value (MPI_Rget_accumulate). Local.
  [[nodiscard]] future<value_type> async_fetch_add(const value_type& v) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    return detail::async_fetch_and_op(target_, v, runtime::reduce_op::sum, site());
  }
  /// Starts an atomic compare-and-swap: `desired` replaces the value if it equals `expected`.
  /// The future holds the previous value (equal to `expected` when the swap happened). Local.
  [[nodiscard]] future<value_type> async_compare_exchange(const value_type& expected,
                                                          const value_type& desired) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    return detail::async_compare_and_swap(target_, desired, expected, site());
  }
  /// Atomically replaces the value by v and returns the previous one. Local.
  value_type exchange(const value_type& v) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    return detail::fetch_and_op(target_, v, runtime::reduce_op::replace, site());
  }
  /// Atomically: if the value equals `expected`, stores `desired` and returns true; otherwise
  /// loads the value into `expected` and returns false (as std::atomic does). Local.
  bool compare_exchange(value_type& expected, const value_type& desired) const
      requires(!std::is_const_v<T> && runtime::accumulable<value_type>) {
    const value_type old = detail::compare_and_swap(target_, desired, expected, site());
    if (old == expected)
      return true;
    expected = old;
    return false;
  }
  /// Atomically reads the value through MPI (MPI_Fetch_and_op with MPI_NO_OP), for reading an
  /// element other images update with atomics before the next sync point. Local.
  [[nodiscard]] value_type atomic_load() const requires runtime::accumulable<value_type> {
    return detail::fetch_and_op(target_, value_type{}, runtime::reduce_op::no_op, site());
  }

  /// Starts reading the element; the future holds the value once it has arrived. Local.
  [[nodiscard]] future<value_type> async_get() const { return detail::async_load(target_, site()); }
  /// Starts writing v; the future is ready once v need not be kept (it is copied at once
  /// anyway). Local; the write is complete at the next sync point.
  [[nodiscard]] future<void> async_put(const value_type& v) const requires(!std::is_const_v<T>) {
    return detail::async_store(target_, v, site());
  }

  /// The element's address. Local.
  [[nodiscard]] global_ptr<T> address() const noexcept { return target_; }
  /// Where in the user's program the reference was made, if known (line 0: not known). Local.
  [[nodiscard]] const runtime::watchdog::source_location& made_at() const noexcept {
    return where_;
  }

  friend void swap(const global_ref& a, const global_ref& b) requires(!std::is_const_v<T>) {
    const value_type tmp = a.get();
    a = b.get();
    b = tmp;
  }

 private:
  const global_ref& accumulate(const value_type& v, runtime::reduce_op op) const {
    detail::accumulate(target_, v, op, site());
    return *this;
  }
  // Not read unless the race checker is on (which takes line 0 for "not known").
  [[nodiscard]] const runtime::watchdog::source_location* site() const noexcept { return &where_; }
  global_ptr<T> target_;
  runtime::watchdog::source_location where_{};
};

}  // namespace pgas

// Reading through a global_ref yields a value, so that is what it has in common with T&: this
// makes global iterators indirectly_readable for std::ranges and range-v3 alike.
template <class T, class U, template <class> class TQ, template <class> class UQ>
requires std::same_as<std::remove_const_t<T>, std::remove_cvref_t<U>>
struct std::basic_common_reference<pgas::global_ref<T>, U, TQ, UQ> {
  using type = std::remove_const_t<T>;
};
template <class T, class U, template <class> class TQ, template <class> class UQ>
requires std::same_as<std::remove_const_t<T>, std::remove_cvref_t<U>>
struct std::basic_common_reference<U, pgas::global_ref<T>, TQ, UQ> {
  using type = std::remove_const_t<T>;
};
template <class T, class U, template <class> class TQ, template <class> class UQ>
struct std::basic_common_reference<pgas::global_ref<T>, pgas::global_ref<U>, TQ, UQ> {
  using type = std::remove_const_t<T>;
};
namespace concepts {  // range-v3's own common_reference machinery
template <class T, class U, template <class> class TQ, template <class> class UQ>
requires std::same_as<std::remove_const_t<T>, std::remove_cvref_t<U>>
struct basic_common_reference<pgas::global_ref<T>, U, TQ, UQ> {
  using type = std::remove_const_t<T>;
};
template <class T, class U, template <class> class TQ, template <class> class UQ>
requires std::same_as<std::remove_const_t<T>, std::remove_cvref_t<U>>
struct basic_common_reference<U, pgas::global_ref<T>, TQ, UQ> {
  using type = std::remove_const_t<T>;
};
template <class T, class U, template <class> class TQ, template <class> class UQ>
struct basic_common_reference<pgas::global_ref<T>, pgas::global_ref<U>, TQ, UQ> {
  using type = std::remove_const_t<T>;
};
}  // namespace concepts
