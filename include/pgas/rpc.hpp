#pragma once
// Remote procedure calls: run a function on another image, with arguments that travel as
// bytes, through the owner-side message engine.
//
//   pgas::rpc_ff(image, f, args...);            // fire and forget: done by the next sync point
//   pgas::future<R> r = pgas::rpc(image, f, args...);  // R is what f returns
//
// The function runs on `image` (a number in the team in force) when that image makes progress
// (inside a pgas call: a sync point, a wait, pgas::progress()), never behind its back. f is a
// function pointer or a trivially copyable function object (a lambda capturing trivially
// copyable values by copy); arguments and results are trivially copyable values, std::string,
// std::vector or std::optional of those, or a pgas::dist_object<T>& (which arrives as the target's
// own instance); with pgas/serialization.hpp included (target pgas::serialization), also any
// value Boost.Serialization writes. Anything else does not compile, with a message saying so.

#include <pgas/detail/wire.hpp>
#include <pgas/future.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/team.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

namespace pgas {

/// Runs the handlers of messages that have arrived at this image (remote calls, owner-side
/// updates). Every waiting pgas call does this too. Local.
inline void progress() {
  runtime::messages::progress();
}

namespace detail::remote {

// Checks a call's types, with the sentence a user needs, before anything else fails.
template <class Fn, class... A>
constexpr void check_call() {
  static_assert(!(wire::refers_to_memory_here<A> || ...),
                "pgas::rpc/rpc_ff: an argument refers to this image's memory (a view such as "
                "std::string_view or std::span, a std::reference_wrapper, a pgas::global_ptr): "
                "it would arrive as an address that means nothing on the target; pass the "
                "values themselves (std::string, std::vector) or an index");
  static_assert(wire::callable_remotely<Fn>,
                "pgas::rpc/rpc_ff: the function must be a function pointer or a trivially copyable "
                "function object (a lambda that captures trivially copyable values by copy): it "
                "travels as bytes");
  static_assert(
      (wire::carried<A> && ...),
      "pgas::rpc/rpc_ff: every argument must be trivially copyable (and not a pointer), a "
      "std::string, a std::vector or std::optional of such values, or a pgas::dist_object<T>& "
      "(or, with pgas/serialization.hpp included, a value Boost.Serialization writes)");
}

template <class Fn, class... A>
using result_t = std::decay_t<std::invoke_result_t<Fn&, wire::passed_t<A>...>>;

// Decodes argument A from its own start: the order in which a call's arguments are evaluated
// does not matter.
template <class A>
wire::passed_t<A> decode_from(const std::byte* start) {
  return wire::codec<A>::read(start);
}

template <class Fn, class... A, std::size_t... I>
decltype(auto) call_decoded(Fn& fn,
                            const std::array<const std::byte*, sizeof...(A)>& starts,
                            std::index_sequence<I...>) {
  // Called directly, not through std::invoke (whose forwarding references would materialise
  // each value and move it into its parameter): Fn is a function pointer or a function object.
  return fn(decode_from<A>(starts[I])...);
}

// Decodes the function, finds where each argument starts, and calls the function with each
// argument decoded straight into its parameter: a string taken by value is the string decoded,
// not a move from a holder (a stream of calls with strings pays a move and a destruction fewer
// per string).
template <class Fn, class... A>
decltype(auto) decode_and_call(const std::byte*& at) {
  Fn fn = wire::read_function<Fn>(at);
  std::array<const std::byte*, sizeof...(A)> starts{};
  [[maybe_unused]] std::size_t k = 0;
  ((starts[k++] = at, wire::codec<A>::skip(at)), ...);  // left to right, the order written
  return call_decoded<Fn, A...>(fn, starts, std::index_sequence_for<A...>{});
}

template <class Fn, class... A>
std::size_t call_size(const Fn&, const A&... args) {
  return wire::function_size<Fn>() + (std::size_t{0} + ... + wire::codec<A>::size(args));
}

template <class Fn, class... A>
void encode_call(std::byte*& at, const Fn& f, const A&... args) {
  wire::write_function(at, f);
  (wire::codec<A>::write(at, args), ...);
}

// A call whose function and arguments have one size whatever their values: a stream of them
// is handled a run at a time (runtime::messages::reserve_in_runs), one handler call per run.
template <class... A>
inline constexpr bool fixed_size_arguments = (wire::plain<A> && ...);
// The bytes such a call takes, as call_size counts them (the plain codec writes sizeof(A)).
template <class Fn, class... A>
constexpr std::size_t fixed_call_bytes() {
  return wire::function_size<Fn>() + (std::size_t{0} + ... + sizeof(A));
}

// The handler of a run of fixed-size rpc_ff calls: each call padded to 8 bytes, back to back.
template <class Fn, class... A>
void run_ff_each(std::size_t, std::span<const std::byte> payload) {
  constexpr std::size_t stride = (fixed_call_bytes<Fn, A...>() + 7) / 8 * 8;
  for (std::size_t at = 0; at + stride <= payload.size(); at += stride) {
    const std::byte* p = payload.data() + at;
    decode_and_call<Fn, A...>(p);
  }
}

// The handler of a run of rpc_ff calls whose arguments differ in size (strings, vectors): one
// handler call per run, each call decoded in turn (runtime::messages::reserve_sized). An
// exception leaves it, and the engine ends the job naming it.
template <class Fn, class... A>
void run_ff_sized(std::size_t, std::span<const std::byte> payload) {
  runtime::messages::for_each_sized(payload, [](std::span<const std::byte> call) {
    const std::byte* at = call.data();
    decode_and_call<Fn, A...>(at);
  });
}

// What an rpc's future waits for; its address travels to the target and back.
template <class R>
struct call_state {
  bool done = false;
  std::optional<stored_t<R>> value;
  std::exception_ptr error;
};

// Exceptions travel as a kind and a message, and are rebuilt as the same type where it is one
// of these; anything else as pgas::remote_error.
enum class exception_kind : std::uint8_t {
  other,
  usage,
  pgas_out_of_range,
  io,
  invalid_argument,
  std_out_of_range,
  length,
  domain,
  logic,
  overflow,
  range,
  runtime
};

inline exception_kind kind_of(const std::exception& e) {
  if (dynamic_cast<const usage_error*>(&e))
    return exception_kind::usage;
  if (dynamic_cast<const pgas::out_of_range*>(&e))
    return exception_kind::pgas_out_of_range;
  if (dynamic_cast<const io_error*>(&e))
    return exception_kind::io;
  if (dynamic_cast<const std::invalid_argument*>(&e))
    return exception_kind::invalid_argument;
  if (dynamic_cast<const std::out_of_range*>(&e))
    return exception_kind::std_out_of_range;
  if (dynamic_cast<const std::length_error*>(&e))
    return exception_kind::length;
  if (dynamic_cast<const std::domain_error*>(&e))
    return exception_kind::domain;
  if (dynamic_cast<const std::logic_error*>(&e))
    return exception_kind::logic;
  if (dynamic_cast<const std::overflow_error*>(&e))
    return exception_kind::overflow;
  if (dynamic_cast<const std::range_error*>(&e))
    return exception_kind::range;
  if (dynamic_cast<const std::runtime_error*>(&e))
    return exception_kind::runtime;
  return exception_kind::other;
}

inline std::exception_ptr rebuild(exception_kind kind, const std::string& what) {
  switch (kind) {
    case exception_kind::usage:
      return std::make_exception_ptr(usage_error(what));
    case exception_kind::pgas_out_of_range:
      return std::make_exception_ptr(pgas::out_of_range(what));
    case exception_kind::io:
      return std::make_exception_ptr(io_error(what));
    case exception_kind::invalid_argument:
      return std::make_exception_ptr(std::invalid_argument(what));
    case exception_kind::std_out_of_range:
      return std::make_exception_ptr(std::out_of_range(what));
    case exception_kind::length:
      return std::make_exception_ptr(std::length_error(what));
    case exception_kind::domain:
      return std::make_exception_ptr(std::domain_error(what));
    case exception_kind::logic:
      return std::make_exception_ptr(std::logic_error(what));
    case exception_kind::overflow:
      return std::make_exception_ptr(std::overflow_error(what));
    case exception_kind::range:
      return std::make_exception_ptr(std::range_error(what));
    case exception_kind::runtime:
      return std::make_exception_ptr(std::runtime_error(what));
    case exception_kind::other:
      break;
  }
  return std::make_exception_ptr(remote_error(what));
}

enum class outcome : std::uint8_t { value, exception };

// The handler of a reply, on the caller: fills the state the call is waiting on.
template <class R>
void on_reply(std::size_t source, std::span<const std::byte> payload) {
  const std::byte* at = payload.data();
  auto* state = reinterpret_cast<call_state<R>*>(
      static_cast<std::uintptr_t>(wire::codec<std::uint64_t>::read(at)));
  if (wire::codec<outcome>::read(at) == outcome::value) {
    if constexpr (std::is_void_v<R>) {
      state->value.emplace();
    } else {
      state->value.emplace(wire::codec<R>::read(at));
    }
  } else {
    const auto kind = wire::codec<exception_kind>::read(at);
    const std::string what = wire::codec<std::string>::read(at);
    state->error = rebuild(kind, "pgas::rpc on image " + std::to_string(source) + ": " + what);
  }
  state->done = true;
}

template <class R>
void send_value(std::size_t to, std::uint64_t state, const stored_t<R>& value) {
  std::size_t bytes = sizeof state + sizeof(outcome);
  if constexpr (!std::is_void_v<R>)
    bytes += wire::codec<R>::size(value);
  std::byte* at =
      runtime::messages::reserve_reply(to, runtime::messages::name_of<&on_reply<R>>(), bytes)
          .data();
  wire::codec<std::uint64_t>::write(at, state);
  wire::codec<outcome>::write(at, outcome::value);
  if constexpr (!std::is_void_v<R>)
    wire::codec<R>::write(at, value);
}

template <class R>
void send_exception(std::size_t to,
                    std::uint64_t state,
                    exception_kind kind,
                    const std::string& what) {
  const std::size_t bytes =
      sizeof state + sizeof(outcome) + sizeof kind + wire::codec<std::string>::size(what);
  std::byte* at =
      runtime::messages::reserve_reply(to, runtime::messages::name_of<&on_reply<R>>(), bytes)
          .data();
  wire::codec<std::uint64_t>::write(at, state);
  wire::codec<outcome>::write(at, outcome::exception);
  wire::codec<exception_kind>::write(at, kind);
  wire::codec<std::string>::write(at, what);
}

// The handler of rpc, on the target: runs the call and sends back its result or exception, as
// a reply that travels ahead of the call's acknowledgement.
template <class R, class Fn, class... A>
void run_call(std::size_t source, std::span<const std::byte> payload) {
  const std::byte* at = payload.data();
  const std::uint64_t state = wire::codec<std::uint64_t>::read(at);
  std::optional<stored_t<R>> result;
  exception_kind kind = exception_kind::other;
  std::string what;
  try {
    if constexpr (std::is_void_v<R>) {
      decode_and_call<Fn, A...>(at);
      result.emplace();
    } else {
      result.emplace(decode_and_call<Fn, A...>(at));
    }
  } catch (const std::exception& e) {
    kind = kind_of(e);
    what =
        kind == exception_kind::other ? std::string(typeid(e).name()) + ": " + e.what() : e.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  if (result) {
    send_value<R>(source, state, *result);
  } else {
    send_exception<R>(source, state, kind, what);
  }
}

// An rpc's future: ready once the reply has been handled here. It holds the state the reply
// fills, in memory kept from call to call (below).
template <class R>
struct call_source final : future_source<stored_t<R>> {
  explicit call_source(std::size_t to) : target(to) {}
  // A loop of rpc(...).get() would take a block from the heap and give it back every round
  // trip: kept for the next call instead (the round trip on one node 6 % sooner, EPYC VM). The
  // engine's thread makes the calls.
  static void* operator new(std::size_t bytes) {
    std::vector<void*>& kept = kept_blocks();
    if (bytes != sizeof(call_source) || kept.empty())
      return ::operator new(bytes);
    void* block = kept.back();
    kept.pop_back();
    return block;
  }
  static void operator delete(void* block, std::size_t bytes) noexcept {
    std::vector<void*>& kept = kept_blocks();
    if (bytes == sizeof(call_source) && kept.size() < kept.capacity()) {
      kept.push_back(block);
      return;
    }
    ::operator delete(block);
  }
  // A result type aligned beyond what operator new gives: the heap's own aligned blocks.
  static void* operator new(std::size_t bytes, std::align_val_t alignment) {
    return ::operator new(bytes, alignment);
  }
  // Given back with the unsized aligned form: clang 14 declares the sized one only with
  // -fsized-deallocation.
  static void operator delete(void* block, std::size_t, std::align_val_t alignment) noexcept {
    ::operator delete(block, alignment);
  }
  // Room for 64 blocks, made once and never destroyed: a future destroyed as the program ends
  // may still give its block back.
  static std::vector<void*>& kept_blocks() {
    static std::vector<void*>* const kept = [] {
      auto* v = new std::vector<void*>;
      v->reserve(64);
      return v;
    }();
    return *kept;
  }
  call_source(const call_source&) = delete;
  call_source& operator=(const call_source&) = delete;
  ~call_source() override {
    // The reply writes into the state: it must not go before the reply is in.
    if (!sent || state.done)
      return;
    try {
      runtime::messages::progress_until([&] { return state.done; });
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: waiting for an rpc's reply: %s\n", e.what());
    }
  }
  bool ready() override {
    if (!state.done)
      runtime::messages::progress();
    return state.done;
  }
  stored_t<R> take() override {
    runtime::messages::progress_until([&] { return state.done; });
    if (state.error)
      std::rethrow_exception(state.error);
    return std::move(*state.value);
  }
  call_state<R> state;
  std::size_t target;
  bool sent = false;  // the call is on its way, and its reply will come
};

/// rpc_ff to a world rank (for containers addressing their own team's images).
template <class F, class... Args>
void rpc_ff_world(std::size_t world_rank, F&& f, Args&&... args) {
  using Fn = std::decay_t<F>;
  check_call<Fn, std::decay_t<Args>...>();
  const Fn& fn = f;
  std::byte* at = nullptr;
  if constexpr (fixed_size_arguments<std::decay_t<Args>...> &&
                fixed_call_bytes<Fn, std::decay_t<Args>...>() > 0) {
    constexpr std::size_t bytes = fixed_call_bytes<Fn, std::decay_t<Args>...>();
    at = runtime::messages::reserve_in_runs(
             world_rank, runtime::messages::name_of<&run_ff_each<Fn, std::decay_t<Args>...>>(),
             bytes)
             .data();
  } else {
    const std::size_t bytes = call_size<Fn, std::decay_t<Args>...>(fn, args...);
    at = runtime::messages::reserve_sized(
             world_rank, runtime::messages::name_of<&run_ff_sized<Fn, std::decay_t<Args>...>>(),
             bytes)
             .data();
  }
  encode_call<Fn, std::decay_t<Args>...>(at, fn, args...);
}

/// rpc to a world rank.
template <class F, class... Args>
auto rpc_world(std::size_t world_rank, F&& f, Args&&... args) {
  using Fn = std::decay_t<F>;
  check_call<Fn, std::decay_t<Args>...>();
  using R = result_t<Fn, std::decay_t<Args>...>;
  static_assert(
      std::is_void_v<R> || wire::carried<R>,
      "pgas::rpc: the function's result must be trivially copyable (and not a pointer), a "
      "std::string, a std::vector or std::optional of such values: it travels back as bytes");
  auto source = std::make_unique<call_source<R>>(world_rank);
  const Fn& fn = f;
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&source->state));
  const std::size_t bytes = sizeof address + call_size<Fn, std::decay_t<Args>...>(fn, args...);
  std::byte* at =
      runtime::messages::reserve(
          world_rank, runtime::messages::name_of<&run_call<R, Fn, std::decay_t<Args>...>>(), bytes)
          .data();
  wire::codec<std::uint64_t>::write(at, address);
  encode_call<Fn, std::decay_t<Args>...>(at, fn, args...);
  source->sent = true;
  // Someone waits for this one: it goes now, not when the buffer fills.
  runtime::messages::flush(world_rank);
  return future<R>{std::move(source)};
}

}  // namespace detail::remote

/// Runs f(args...) on `image` of the team in force and returns at once; f has run by the time
/// the caller's team's next sync point returns (and so have the calls f made in turn). Throws
/// out_of_range, before anything is sent, for an image the team does not have. If f throws on
/// the target, the job ends with a message naming the image and the exception. Local.
template <class F, class... Args>
void rpc_ff(std::size_t image, F&& f, Args&&... args) {
  detail::remote::rpc_ff_world(runtime::world_rank_in_force(image), std::forward<F>(f),
                               std::forward<Args>(args)...);
}

/// Runs f(args...) on `image` of the team in force; the future holds what f returns (future<void>
/// for void). An exception f throws on the target is rethrown by the future's get(): as its own
/// type for the standard and pgas exceptions, as pgas::remote_error otherwise; its message
/// names the image. Throws out_of_range, before anything is sent, for an image the team does
/// not have. Local.
template <class F, class... Args>
auto rpc(std::size_t image, F&& f, Args&&... args) {
  return detail::remote::rpc_world(runtime::world_rank_in_force(image), std::forward<F>(f),
                                   std::forward<Args>(args)...);
}

}  // namespace pgas
