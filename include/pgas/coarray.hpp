#pragma once
// Fortran-style coarrays: every image holds one T (coarray<T>), N of them (coarray<T[N]>) or n
// chosen at run time (coarray<T[]>); x(img) reaches image img's copy.

#include <pgas/array.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/locality.hpp>
#include <pgas/detail/located_index.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace pgas {

namespace detail {

// n elements of T on every image, image img's at global indices [img*n, img*n + n).
template <class T>
class coarray_base {
 public:
  /// The window behind the coarray, for phases. Local.
  [[nodiscard]] runtime::window& window(pgas::detail::internal_only) const {
    return data_.window(pgas::detail::internal);
  }
  /// The team the coarray was made on: image numbers x(img) are its images'. Local.
  [[nodiscard]] const pgas::team& team() const { return data_.team(); }

 protected:
  coarray_base(const pgas::team& t, std::size_t n, const T& initial)
      : data_(t, n * t.size(), block{}, initial), n_{n} {}
  [[nodiscard]] std::size_t checked_image(std::size_t img) const {
    const std::size_t images = data_.team().size();
    if (img >= images)
      runtime::throw_out_of_range("image", img, images);
    return img;
  }
  [[nodiscard]] std::size_t checked_element(std::size_t k) const {
    if (k >= n_)
      runtime::throw_out_of_range("coarray element", k, n_);
    return k;
  }
  // Where image img's copy starts (a null pointer for copies of no elements, which transfers of
  // nothing never follow). Local; throws out_of_range for an image that does not exist.
  [[nodiscard]] global_ptr<T> first_of(std::size_t img) {
    const std::size_t at = checked_image(img) * n_;
    return n_ == 0 ? global_ptr<T>{} : data_.element(at);
  }
  [[nodiscard]] global_ptr<const T> first_of(std::size_t img) const {
    const std::size_t at = checked_image(img) * n_;
    return n_ == 0 ? global_ptr<const T>{} : std::as_const(data_).element(at);
  }
  array<T, block> data_;
  std::size_t n_;
};

}  // namespace detail

/// One T on every image. `*x` is this image's copy; `x(img)` is image img's, readable and
/// writable from anywhere. Collective to construct and destroy.
template <class T>
class coarray : public detail::coarray_base<T> {
 public:
  /// Collective. Every image's copy starts as `initial`.
  explicit coarray(const T& initial = T{}) : detail::coarray_base<T>(current_team(), 1, initial) {}
  /// Collective over team t: one copy on each of t's images, numbered as t numbers them.
  explicit coarray(const pgas::team& t, const T& initial = T{})
      : detail::coarray_base<T>(t, 1, initial) {}
  /// This image's copy. Local.
  [[nodiscard]] T& operator*() { return this->data_.local()[0]; }
  [[nodiscard]] const T& operator*() const { return this->data_.local()[0]; }
  [[nodiscard]] T* operator->() { return &**this; }
  [[nodiscard]] const T* operator->() const { return &**this; }
  /// Image img's copy. Local; throws out_of_range for an image that does not exist.
  [[nodiscard]] global_ref<T> operator()(
      std::size_t img,
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    return global_ref<T>{this->first_of(img), where};
  }
  [[nodiscard]] global_ref<const T> operator()(
      std::size_t img,
      runtime::watchdog::source_location where =
          runtime::watchdog::source_location::current()) const {
    return global_ref<const T>{this->first_of(img), where};
  }
};

/// Image img's elements of a coarray<T[N]> (or, with N = std::dynamic_extent, of a
/// coarray<T[]>), seen from any image; read-only when T is const.
template <class T, std::size_t N = std::dynamic_extent>
class coimage_ref {
  static constexpr bool sized_at_run_time = N == std::dynamic_extent;

 public:
  /// `first` is element 0 of that image's copy; the others follow it in its memory.
  explicit coimage_ref(global_ptr<T> first) noexcept requires(!sized_at_run_time)
      : first_{first}, size_{N} {}
  /// The same for a copy of n elements.
  coimage_ref(global_ptr<T> first, std::size_t n) noexcept requires sized_at_run_time
      : first_{first},
        size_{n} {}
  /// Element k of that image's copy. Local; throws out_of_range for k >= size().
  [[nodiscard]] global_ref<T> operator[](detail::located_index k) const {
    return global_ref<T>{element(k.index), k.where};
  }
  /// The elements of one image's copy, for pgas::get / put on a part of it. Local.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Where element k lives. Local; throws out_of_range for k >= size().
  [[nodiscard]] global_ptr<T> element(std::size_t k) const {
    if (k >= size_)
      runtime::throw_out_of_range("coarray element", k, size_);
    return first_ + static_cast<std::ptrdiff_t>(k);
  }
  /// All elements lie consecutively in the image's memory: one run. Local.
  [[nodiscard]] std::size_t run_end(std::size_t k) const {
    (void)element(k);  // the same check
    return size_;
  }
  /// All N elements in one transfer. Local; blocks until they have arrived.
  [[nodiscard]] std::array<std::remove_const_t<T>, N> get() const requires(!sized_at_run_time) {
    std::array<std::remove_const_t<T>, N> out{};
    detail::load_n(first_, std::span(out), "a coarray image read");
    return out;
  }
  /// Writes all N elements in one transfer. Local; complete at the next sync point.
  const coimage_ref& operator=(const std::array<T, N>& values) const
      requires(!std::is_const_v<T> && !sized_at_run_time) {
    detail::store_n(first_, std::span<const T>(values));
    return *this;
  }
  /// Reads the copy's first out.size() elements into out, in one transfer. Local; blocks until
  /// they have arrived; throws out_of_range if out is longer than the copy.
  void get(std::span<std::remove_const_t<T>> out) const {
    require_fits(out.size());
    detail::load_n(first_, out, "a coarray image read");
  }
  /// Writes `in` to the copy's first in.size() elements, in one transfer. Local; complete at the
  /// next sync point; throws out_of_range if `in` is longer than the copy.
  void put(std::span<const std::remove_const_t<T>> in) const requires(!std::is_const_v<T>) {
    require_fits(in.size());
    detail::store_n(first_, in);
  }

 private:
  void require_fits(std::size_t count) const {
    if (count > size_) {
      throw out_of_range(std::to_string(count) + " elements do not fit a coarray image copy of " +
                         std::to_string(size_));
    }
  }
  global_ptr<T> first_;
  std::size_t size_;
};

/// N elements of T on every image: `x[k]` is this image's element k, `x(img)[k]` image img's.
/// Collective to construct and destroy.
template <class T, std::size_t N>
class coarray<T[N]> : public detail::coarray_base<T> {
  static_assert(N > 0, "a coarray<T[N]> holds at least one element per image");

 public:
  /// Collective. Every element on every image starts as `initial`.
  explicit coarray(const T& initial = T{}) : detail::coarray_base<T>(current_team(), N, initial) {}
  /// Collective over team t: one copy on each of t's images, numbered as t numbers them.
  explicit coarray(const pgas::team& t, const T& initial = T{})
      : detail::coarray_base<T>(t, N, initial) {}
  /// This image's element k. Local; throws out_of_range for k >= N.
  [[nodiscard]] T& operator[](std::size_t k) { return local()[this->checked_element(k)]; }
  [[nodiscard]] const T& operator[](std::size_t k) const {
    return local()[this->checked_element(k)];
  }
  /// This image's N elements. Local.
  [[nodiscard]] std::span<T, N> local() { return std::span<T, N>(this->data_.local().data(), N); }
  [[nodiscard]] std::span<const T, N> local() const {
    return std::span<const T, N>(this->data_.local().data(), N);
  }
  /// Image img's copy. Local; throws out_of_range for an image that does not exist.
  [[nodiscard]] coimage_ref<T, N> operator()(std::size_t img) {
    return coimage_ref<T, N>(this->first_of(img));
  }
  [[nodiscard]] coimage_ref<const T, N> operator()(std::size_t img) const {
    return coimage_ref<const T, N>(this->first_of(img));
  }
  [[nodiscard]] static constexpr std::size_t extent() noexcept { return N; }
};

/// n elements of T on every image, n chosen at run time (Fortran's allocatable coarray
/// `real, allocatable :: x(:)[:]`): `x[k]` is this image's element k, `x(img)[k]` image img's,
/// `x(img).get(span)` / `x(img).put(span)` move many at once. Collective to construct (n the
/// same on every image: usage_error on every image otherwise) and to destroy.
template <class T>
class coarray<T[]> : public detail::coarray_base<T> {
 public:
  /// Collective. Every element on every image starts as `initial`.
  explicit coarray(std::size_t n, const T& initial = T{})
      : detail::coarray_base<T>(current_team(), n, initial) {}
  /// Collective over team t.
  coarray(const pgas::team& t, std::size_t n, const T& initial = T{})
      : detail::coarray_base<T>(t, n, initial) {}
  /// This image's element k. Local; throws out_of_range for k >= extent().
  [[nodiscard]] T& operator[](std::size_t k) { return local()[this->checked_element(k)]; }
  [[nodiscard]] const T& operator[](std::size_t k) const {
    return local()[this->checked_element(k)];
  }
  /// This image's n elements. Local.
  [[nodiscard]] std::span<T> local() { return this->data_.local(); }
  [[nodiscard]] std::span<const T> local() const { return this->data_.local(); }
  /// Image img's copy. Local; throws out_of_range for an image that does not exist.
  [[nodiscard]] coimage_ref<T> operator()(std::size_t img) {
    return coimage_ref<T>(this->first_of(img), this->n_);
  }
  [[nodiscard]] coimage_ref<const T> operator()(std::size_t img) const {
    return coimage_ref<const T>(this->first_of(img), this->n_);
  }
  /// Elements per image. Local.
  [[nodiscard]] std::size_t extent() const noexcept { return this->n_; }
};

}  // namespace pgas
