#pragma once
// Fortran-style coarrays: every image holds one T (coarray<T>) or N of them (coarray<T[N]>);
// x(img) reaches image img's copy.

#include <pgas/array.hpp>
#include <pgas/detail/access.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/rma.hpp>

#include <array>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

namespace pgas {

namespace detail {

// N elements of T on every image, image img's at global indices [img*N, img*N + N).
template <class T, std::size_t N>
class coarray_base {
 public:
  /// The window behind the coarray, for phases. Local.
  [[nodiscard]] runtime::window& window() const { return data_.window(); }

 protected:
  explicit coarray_base(const T& initial) : data_(N * num_images(), block{}, initial) {}
  [[nodiscard]] std::size_t checked_image(std::size_t img) const {
    if (img >= num_images()) runtime::throw_out_of_range("image", img, num_images());
    return img;
  }
  array<T, block> data_;
};

}  // namespace detail

/// One T on every image. `*x` is this image's copy; `x(img)` is image img's, readable and
/// writable from anywhere. Collective to construct and destroy.
template <class T>
class coarray : public detail::coarray_base<T, 1> {
 public:
  /// Collective. Every image's copy starts as `initial`.
  explicit coarray(const T& initial = T{}) : detail::coarray_base<T, 1>(initial) {}
  /// This image's copy. Local.
  [[nodiscard]] T& operator*() { return this->data_.local()[0]; }
  [[nodiscard]] const T& operator*() const { return this->data_.local()[0]; }
  [[nodiscard]] T* operator->() { return &**this; }
  [[nodiscard]] const T* operator->() const { return &**this; }
  /// Image img's copy. Local; throws out_of_range for an image that does not exist.
  [[nodiscard]] global_ref<T> operator()(std::size_t img) {
    return this->data_[this->checked_image(img)];
  }
  [[nodiscard]] global_ref<const T> operator()(std::size_t img) const {
    return std::as_const(this->data_)[this->checked_image(img)];
  }
};

/// Image img's N elements of a coarray<T[N]>, seen from any image; read-only when T is const.
template <class T, std::size_t N>
class coimage_ref {
 public:
  /// `first` is element 0 of that image's copy; the other N - 1 follow it in its memory.
  explicit coimage_ref(global_ptr<T> first) noexcept : first_{first} {}
  /// Element k of that image's copy. Local; throws out_of_range for k >= N.
  [[nodiscard]] global_ref<T> operator[](std::size_t k) const { return global_ref<T>{element(k)}; }
  /// N: the elements of one image's copy, for pgas::get / put on a part of it. Local.
  [[nodiscard]] static constexpr std::size_t size() noexcept { return N; }
  /// Where element k lives. Local; throws out_of_range for k >= N.
  [[nodiscard]] global_ptr<T> element(std::size_t k) const {
    if (k >= N) runtime::throw_out_of_range("coarray element", k, N);
    return first_ + static_cast<std::ptrdiff_t>(k);
  }
  /// All N elements lie consecutively in the image's memory: one run. Local.
  [[nodiscard]] std::size_t run_end(std::size_t k) const {
    (void)element(k);  // the same check
    return N;
  }
  /// All N elements in one transfer. Local; blocks until they have arrived.
  [[nodiscard]] std::array<std::remove_const_t<T>, N> get() const {
    std::array<std::remove_const_t<T>, N> out{};
    detail::load_n(first_, std::span(out), "a coarray image read");
    return out;
  }
  /// Writes all N elements in one transfer. Local; complete at the next sync point.
  const coimage_ref& operator=(const std::array<T, N>& values) const
    requires(!std::is_const_v<T>)
  {
    detail::store_n(first_, std::span<const T>(values));
    return *this;
  }

 private:
  global_ptr<T> first_;
};

/// N elements of T on every image: `x[k]` is this image's element k, `x(img)[k]` image img's.
/// Collective to construct and destroy.
template <class T, std::size_t N>
class coarray<T[N]> : public detail::coarray_base<T, N> {
  static_assert(N > 0, "a coarray<T[N]> holds at least one element per image");

 public:
  /// Collective. Every element on every image starts as `initial`.
  explicit coarray(const T& initial = T{}) : detail::coarray_base<T, N>(initial) {}
  /// This image's element k. Local; throws out_of_range for k >= N.
  [[nodiscard]] T& operator[](std::size_t k) { return local()[checked(k)]; }
  [[nodiscard]] const T& operator[](std::size_t k) const { return local()[checked(k)]; }
  /// This image's N elements. Local.
  [[nodiscard]] std::span<T, N> local() { return std::span<T, N>(this->data_.local().data(), N); }
  [[nodiscard]] std::span<const T, N> local() const {
    return std::span<const T, N>(this->data_.local().data(), N);
  }
  /// Image img's copy. Local; throws out_of_range for an image that does not exist.
  [[nodiscard]] coimage_ref<T, N> operator()(std::size_t img) {
    return coimage_ref<T, N>(this->data_.element(this->checked_image(img) * N));
  }
  [[nodiscard]] coimage_ref<const T, N> operator()(std::size_t img) const {
    return coimage_ref<const T, N>(std::as_const(this->data_).element(this->checked_image(img) * N));
  }
  [[nodiscard]] static constexpr std::size_t extent() noexcept { return N; }

 private:
  static std::size_t checked(std::size_t k) {
    if (k >= N) runtime::throw_out_of_range("coarray element", k, N);
    return k;
  }
};

}  // namespace pgas
