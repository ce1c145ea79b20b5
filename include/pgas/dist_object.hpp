#pragma once
// pgas::dist_object<T>: one T on every image of a team, named alike everywhere, so that a
// remote call can carry "the object" and find the target's own instance (UPC++'s dist_object).

#include <pgas/detail/wire.hpp>
#include <pgas/future.hpp>
#include <pgas/rpc.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/names.hpp>
#include <pgas/runtime/team.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <utility>

namespace pgas {

template <class T>
class dist_object;

namespace detail {

// This image's dist_objects by the name every image of their team gave them
// (runtime/names.hpp), with their type (std::type_info's hash, the same in every image of one
// program).
struct dist_registry {
  struct entry {
    void* object;
    std::size_t type;
  };
  std::unordered_map<std::uint64_t, entry> objects;
  /// The object a stream of calls names, found once: most streams name one object.
  std::uint64_t last_id = 0;
  entry last{nullptr, 0};
  [[nodiscard]] const entry* find(std::uint64_t id) {
    if (last.object != nullptr && id == last_id)
      return &last;
    const auto it = objects.find(id);
    if (it == objects.end())
      return nullptr;
    last_id = id;
    last = it->second;
    return &last;
  }
  void erase(std::uint64_t id) {
    objects.erase(id);
    if (id == last_id)
      last = entry{nullptr, 0};
  }
};
inline dist_registry& dist_objects() {
  static dist_registry r;
  return r;
}

}  // namespace detail

/// One T per image of a team. Collective to construct (over the team in force, or the team
/// given first) and to destroy; neither copyable nor movable (remote calls name it).
///
/// `*d` and `d->` are this image's T. `d.fetch(image)` is a future of image's T (a number in
/// the object's team). A `dist_object<T>&` passed to pgas::rpc or rpc_ff arrives as the
/// target's own instance.
template <class T>
class dist_object {
 public:
  explicit dist_object(T value) : dist_object(current_team(), std::move(value)) {}
  dist_object(const pgas::team& t, T value) : team_(t), value_(std::move(value)) {
    auto& registry = detail::dist_objects();
    id_ = runtime::agree_on_new_name(t.native());
    registry.objects.emplace(id_, detail::dist_registry::entry{this, typeid(T).hash_code()});
    // Nobody may name it before every member has it.
    runtime::messages::barrier(t.native());
  }
  dist_object(const dist_object&) = delete;
  dist_object& operator=(const dist_object&) = delete;
  dist_object(dist_object&&) = delete;
  dist_object& operator=(dist_object&&) = delete;
  /// Collective over the team: every call naming it, from any member, has been handled first.
  ~dist_object() {
    try {
      runtime::messages::quiescent_barrier(team_.native());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: destroying a dist_object: %s\n", e.what());
    }
    detail::dist_objects().erase(id_);
  }

  [[nodiscard]] T& operator*() noexcept { return value_; }
  [[nodiscard]] const T& operator*() const noexcept { return value_; }
  [[nodiscard]] T* operator->() noexcept { return &value_; }
  [[nodiscard]] const T* operator->() const noexcept { return &value_; }

  /// A future of image `image`'s T (image in the object's team); out_of_range, before anything
  /// is sent, for an image the team does not have. T must travel (see pgas::rpc). Local.
  [[nodiscard]] future<T> fetch(std::size_t image) const {
    if (image >= team_.size())
      runtime::throw_out_of_range("image", image, team_.size());
    return detail::remote::rpc_world(
        team_.world_image(image), [](const dist_object& d) { return *d; }, *this);
  }
  /// The team it lives on. Local.
  [[nodiscard]] const pgas::team& team() const noexcept { return team_; }
  /// The number every image of the team knows it by. Local.
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }

 private:
  pgas::team team_;
  T value_;
  std::uint64_t id_ = 0;
};

namespace detail::wire {
// A dist_object travels as its number and arrives as the target's own instance.
template <class T>
struct codec<dist_object<T>> {
  static std::size_t size(const dist_object<T>&) { return sizeof(std::uint64_t); }
  static void write(std::byte*& out, const dist_object<T>& d) {
    codec<std::uint64_t>::write(out, d.id());
  }
  static void skip(const std::byte*& in) { in += sizeof(std::uint64_t); }
  static dist_object<T>& read(const std::byte*& in) {
    static const std::size_t type = typeid(T).hash_code();
    const std::uint64_t id = codec<std::uint64_t>::read(in);
    const dist_registry::entry* found = dist_objects().find(id);
    if (found == nullptr || found->type != type) {
      throw usage_error(
          "a remote call names a pgas::dist_object this image does not have (it is "
          "not a member of the object's team, or the object is destroyed)");
    }
    return *static_cast<dist_object<T>*>(found->object);
  }
};
}  // namespace detail::wire

}  // namespace pgas
