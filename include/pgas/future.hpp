#pragma once
// Futures for non-blocking gets and puts: wait, ready, get, then, and when_all.

#include <pgas/runtime/error.hpp>
#include <pgas/runtime/lifetime.hpp>
#include <pgas/runtime/request.hpp>
#include <pgas/runtime/watchdog.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace pgas {

template <class T>
class future;

namespace detail {

// What a future waits for. `T` is std::monostate for future<void>.
template <class T>
struct future_source {
  future_source() = default;
  future_source(const future_source&) = delete;
  future_source& operator=(const future_source&) = delete;
  future_source(future_source&&) = delete;
  future_source& operator=(future_source&&) = delete;
  virtual ~future_source() = default;
  virtual bool ready() = 0;  // never blocks
  virtual T take() = 0;      // blocks until done, then yields the value once
};

template <class T>
struct ready_source final : future_source<T> {
  explicit ready_source(T v) : value(std::move(v)) {}
  bool ready() override { return true; }
  T take() override { return std::move(value); }
  T value;
};

// A request-based transfer; the value (if any) lands in `value`, whose address stays fixed.
// Of an element of a container that must still live when the future is used (`life`).
template <class T>
struct request_source final : future_source<T> {
  bool ready() override {
    runtime::require_alive(life, "a future");
    return request.test();
  }
  T take() override {
    runtime::require_alive(life, "a future");
    request.wait();
    return std::move(value);
  }
  T value{};
  runtime::request request;
  runtime::lifetime_token life;
};

template <class T, class U, class F>
struct then_source final : future_source<T> {
  then_source(future<U> p, F f) : parent(std::move(p)), fn(std::move(f)) {}
  bool ready() override { return parent.ready(); }
  T take() override {
    if constexpr (std::is_void_v<U>) {
      parent.get();
      if constexpr (std::is_same_v<T, std::monostate>) {
        fn();
        return {};
      } else {
        return fn();
      }
    } else {
      if constexpr (std::is_same_v<T, std::monostate>) {
        fn(parent.get());
        return {};
      } else {
        return fn(parent.get());
      }
    }
  }
  future<U> parent;
  F fn;
};

template <class T>
using stored_t = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

}  // namespace detail

/// The result of a non-blocking operation. Move-only; a value is taken once with get().
/// Local. A future that is never waited for is completed by the next sync point at the latest
/// (its transfer is) and waited for when destroyed.
template <class T>
class [[nodiscard]] future {
 public:
  using value_type = T;
  using stored = detail::stored_t<T>;

  future() = default;
  /// Wraps a source of the value. Local.
  explicit future(std::unique_ptr<detail::future_source<stored>> source)
      : source_{std::move(source)} {}
  /// A future that is ready at once with `v`. Local.
  template <class V = T>
  requires(!std::is_void_v<V>) [[nodiscard]] static future make_ready(V v) {
    return future{std::make_unique<detail::ready_source<stored>>(std::move(v))};
  }

  /// True if get() would not block. Never blocks. Local.
  [[nodiscard]] bool ready() {
    require_valid("ready");
    return value_.has_value() || source_->ready();
  }
  /// Blocks until the value has arrived (for a put: the source buffer is reusable). Local.
  void wait(
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    const runtime::watchdog::waiting_in watched("pgas::future::wait", where);
    require_valid("wait");
    if (!value_)
      value_.emplace(source_->take());
  }
  /// Waits, then hands over the value; the future is empty afterwards. Local.
  T get(runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    wait(where);
    source_.reset();
    stored out = std::move(*value_);
    value_.reset();
    if constexpr (!std::is_void_v<T>)
      return out;
  }
  /// True until get() has been called (or for a default-constructed future, false). Local.
  [[nodiscard]] bool valid() const noexcept { return source_ != nullptr; }

  /// A future of f applied to this one's value; this future is consumed. f runs when the new
  /// future is waited for, on the waiting image. Local.
  template <class F>
  [[nodiscard]] auto then(F f) && {
    using result =
        std::conditional_t<std::is_void_v<T>, std::invoke_result<F>, std::invoke_result<F, T>>;
    using U = typename result::type;
    require_valid("then");
    if (value_) {
      // Already waited: rewrap the value so the continuation still sees it once.
      if constexpr (std::is_void_v<T>) {
        source_ = std::make_unique<detail::ready_source<stored>>(stored{});
      } else {
        source_ = std::make_unique<detail::ready_source<stored>>(std::move(*value_));
      }
      value_.reset();
    }
    return future<U>{std::make_unique<detail::then_source<detail::stored_t<U>, T, F>>(
        std::move(*this), std::move(f))};
  }

 private:
  void require_valid(const char* what) const {
    if (!source_)
      throw usage_error(std::string("future::") + what + " on an empty future");
  }
  std::unique_ptr<detail::future_source<stored>> source_;
  std::optional<stored> value_;
};

namespace detail {
template <class... T>
struct all_source final : future_source<std::tuple<stored_t<T>...>> {
  explicit all_source(future<T>&&... f) : parts(std::move(f)...) {}
  bool ready() override {
    return std::apply([](auto&... f) { return (f.ready() && ...); }, parts);
  }
  std::tuple<stored_t<T>...> take() override {
    return std::apply([](auto&... f) { return std::tuple<stored_t<T>...>{take_one(f)...}; }, parts);
  }
  template <class U>
  static stored_t<U> take_one(future<U>& f) {
    if constexpr (std::is_void_v<U>) {
      f.get();
      return {};
    } else {
      return f.get();
    }
  }
  std::tuple<future<T>...> parts;
};
}  // namespace detail

/// A future of all the values (std::monostate for a future<void>), ready when all are. Local.
template <class... T>
[[nodiscard]] future<std::tuple<detail::stored_t<T>...>> when_all(future<T>&&... parts) {
  return future<std::tuple<detail::stored_t<T>...>>{
      std::make_unique<detail::all_source<T...>>(std::move(parts)...)};
}

}  // namespace pgas
