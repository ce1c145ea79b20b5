#pragma once
// Random-access iterators over a whole distributed container, so std::ranges / range-v3
// algorithms and range-for work on it (correct, but one remote access per element).

#include <pgas/detail/internal_only.hpp>
#include <pgas/global_ref.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/lifetime.hpp>

#include <compare>
#include <cstddef>
#include <iterator>
#include <type_traits>

namespace pgas {

/// Iterates over global indices of `Container`, whose `element(i)` gives a global_ptr and whose
/// `lifetime(internal)` what an iterator holds to know the container still lives where it was
/// (a stale iterator throws usage_error instead of reaching freed memory). `T` is the element
/// type; a read-only iterator has a const Container and a const T.
template <class Container, class T>
class global_iterator {
 public:
  using value_type = std::remove_const_t<T>;
  using difference_type = std::ptrdiff_t;
  using reference = global_ref<T>;
  using iterator_concept = std::random_access_iterator_tag;
  // The reference is a proxy, so to the classic iterator categories this is an input iterator.
  using iterator_category = std::input_iterator_tag;

  global_iterator() noexcept = default;
  global_iterator(Container* c, difference_type i)
      : c_{c}, life_{c->lifetime(detail::internal)}, i_{i} {}
  /// A mutable iterator converts to a read-only one.
  template <class MutableContainer, class U>
  requires(std::is_same_v<const MutableContainer, Container> &&
           !std::is_same_v<MutableContainer, Container> && std::is_same_v<const U, T>)
      global_iterator(const global_iterator<MutableContainer, U>& it)
  noexcept  // NOLINT
      : c_{it.c_}, life_{it.life_}, i_{it.i_} {}

  /// The element here; out_of_range past either end (a remote access there would reach
  /// another image's memory or none).
  [[nodiscard]] reference operator*() const {
    runtime::require_alive(life_, "an iterator");
    const auto i = static_cast<std::size_t>(i_);  // a negative index wraps to a huge one
    if (i >= c_->size())
      runtime::throw_out_of_range("iterator index", i, c_->size());
    return reference{c_->element(i)};
  }
  [[nodiscard]] reference operator[](difference_type k) const { return *(*this + k); }
  /// The global index this iterator stands at. Local.
  [[nodiscard]] difference_type index() const noexcept { return i_; }
  /// The container; usage_error once it is gone (destroyed or moved from). Local.
  [[nodiscard]] Container* container() const {
    runtime::require_alive(life_, "an iterator");
    return c_;
  }

  global_iterator& operator++() noexcept { return *this += 1; }
  global_iterator operator++(int) noexcept {
    global_iterator old = *this;
    ++*this;
    return old;
  }
  global_iterator& operator--() noexcept { return *this -= 1; }
  global_iterator operator--(int) noexcept {
    global_iterator old = *this;
    --*this;
    return old;
  }
  global_iterator& operator+=(difference_type k) noexcept {
    i_ += k;
    return *this;
  }
  global_iterator& operator-=(difference_type k) noexcept {
    i_ -= k;
    return *this;
  }
  friend global_iterator operator+(global_iterator it, difference_type k) noexcept {
    return it += k;
  }
  friend global_iterator operator+(difference_type k, global_iterator it) noexcept {
    return it += k;
  }
  friend global_iterator operator-(global_iterator it, difference_type k) noexcept {
    return it -= k;
  }
  friend difference_type operator-(const global_iterator& a, const global_iterator& b) noexcept {
    return a.i_ - b.i_;
  }
  friend bool operator==(const global_iterator& a, const global_iterator& b) noexcept {
    return a.i_ == b.i_;
  }
  friend std::strong_ordering operator<=>(const global_iterator& a,
                                          const global_iterator& b) noexcept {
    return a.i_ <=> b.i_;
  }

 private:
  template <class C, class U>
  friend class global_iterator;
  Container* c_ = nullptr;
  runtime::lifetime_token life_;
  difference_type i_ = 0;
};

}  // namespace pgas
