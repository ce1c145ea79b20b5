#pragma once
// What every distributed container of fixed size shares: a distribution, a window holding each
// image's part, and the index arithmetic between them. Containers add how they are built.

#include <pgas/detail/addressable.hpp>
#include <pgas/detail/container_core.hpp>
#include <pgas/detail/internal_only.hpp>
#include <pgas/detail/located_index.hpp>
#include <pgas/detail/mapped_parts.hpp>
#include <pgas/detail/type_digest.hpp>
#include <pgas/distributed_range.hpp>
#include <pgas/distribution.hpp>
#include <pgas/global_iterator.hpp>
#include <pgas/global_ptr.hpp>
#include <pgas/global_ref.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/deferred_writes.hpp>
#include <pgas/runtime/environment.hpp>
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/race_check.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>
#include <pgas/runtime/window.hpp>
#include <pgas/segment.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pgas::detail {

/// Checks, collectively over team t, that every image asks for the same container; throws
/// usage_error on every image if not, before any window exists.
template <class T, distribution Dist>
void require_same_everywhere(const char* container,
                             const pgas::team& t,
                             std::size_t n,
                             const Dist& dist) {
  runtime::require_environment(container);
  const long long mine[6] = {static_cast<long long>(n),
                             static_cast<long long>(dist.kind()),
                             static_cast<long long>(dist.parameter()),
                             static_cast<long long>(dist.cut_digest()),
                             static_cast<long long>(sizeof(T)),
                             type_digest<T>()};
  require_same_container(container, t, mine, "the size, the distribution or the element type");
  require_addressable<T>(container, n);
}

template <class T, distribution Dist>
class storage {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using distribution_type = Dist;
  using iterator = global_iterator<storage, T>;
  using const_iterator = global_iterator<const storage, const T>;

  /// Number of elements over all images. Local.
  [[nodiscard]] std::size_t size() const { return state().dist.size(); }
  [[nodiscard]] bool empty() const { return size() == 0; }
  /// The distribution, bound to this container's size and image count. Local.
  [[nodiscard]] const Dist& distribution() const { return state().dist; }
  /// The image that owns element i. Local.
  [[nodiscard]] std::size_t owner(std::size_t i) const {
    check_index(i);
    return state().dist.owner(i);
  }
  /// The elements this image owns, in local order. Local, no communication.
  [[nodiscard]] std::span<T> local() { return state().local; }
  [[nodiscard]] std::span<const T> local() const { return state().local; }
  /// How many elements image img owns. Local.
  [[nodiscard]] std::size_t local_size_of(std::size_t img) const {
    return state().dist.local_size(img);
  }
  /// The global index of this image's local element k. Local.
  [[nodiscard]] std::size_t global_index(std::size_t k) const {
    return state().dist.global_index(state().me, k);
  }
  /// How the container is laid over the images, for alignment checks. Local.
  [[nodiscard]] pgas::layout layout() const {
    const Dist& d = state().dist;
    return {d.kind(), d.parameter(), d.cut_digest(), d.size(), 0, d.size(), state().home->native()};
  }
  /// Every image's pieces, in global order. Local.
  [[nodiscard]] std::vector<segment> segments() const {
    std::vector<segment> out;
    const Dist& d = state().dist;
    for (std::size_t i = 0; i < d.size();) {
      const std::size_t end = d.run_end(i);
      out.push_back({d.owner(i), i, d.local_offset(i), end - i});
      i = end;
    }
    return out;
  }

  /// Element i. Local; throws out_of_range for i >= size(). Checked like at(): a bad index
  /// must never reach another image's memory, and the check is one compare.
  [[nodiscard]] global_ref<T> operator[](located_index i) {
    return global_ref<T>{element(i.index), i.where};
  }
  [[nodiscard]] global_ref<const T> operator[](located_index i) const {
    return global_ref<const T>{element(i.index), i.where};
  }
  /// Same as operator[]. Local.
  [[nodiscard]] global_ref<T> at(located_index i) { return (*this)[i]; }
  [[nodiscard]] global_ref<const T> at(located_index i) const { return (*this)[i]; }

  [[nodiscard]] iterator begin() { return iterator{this, 0}; }
  [[nodiscard]] iterator end() { return iterator{this, static_cast<std::ptrdiff_t>(size())}; }
  [[nodiscard]] const_iterator begin() const { return const_iterator{this, 0}; }
  [[nodiscard]] const_iterator end() const {
    return const_iterator{this, static_cast<std::ptrdiff_t>(size())};
  }
  /// What this container's handles hold to know it still lives here (runtime/lifetime.hpp).
  [[nodiscard]] runtime::lifetime_token lifetime(internal_only) const {
    return state().life.token();
  }
  [[nodiscard]] const_iterator cbegin() const { return begin(); }
  [[nodiscard]] const_iterator cend() const { return end(); }

  /// Where element i lives. Local; throws out_of_range for i >= size(). Read-only through a
  /// const container.
  [[nodiscard]] global_ptr<T> element(std::size_t i) { return element_in(state(), i); }
  [[nodiscard]] global_ptr<const T> element(std::size_t i) const { return element_in(state(), i); }
  /// One past the last index of the run from i that one image stores consecutively (i < size()).
  /// Local.
  [[nodiscard]] std::size_t run_end(std::size_t i) const {
    check_index(i);
    return state().dist.run_end(i);
  }
  /// The window behind the container, for phases and the runtime. Local.
  [[nodiscard]] runtime::window& window(internal_only) const { return state().win; }
  /// The team the container was made on: its indices, owner() and image numbers are that
  /// team's, whichever team is in force when it is used. Local.
  [[nodiscard]] const pgas::team& team() const { return *state().home; }
  /// Collective over the container's own team (not the team in force): a sync point for the
  /// images that share the container, so a container of a sub-team never waits for images that
  /// do not hold it.
  void sync() const { state().sync(); }

 protected:
  // The core (team, image, window, mapped parts: container_core.hpp), and a distribution's.
  struct state_type : container_core<T> {
    Dist dist;
    std::span<T> local;
    // Where each image's part starts, in window displacement units, and how many units one
    // element spans: none and 1 for a window with disp_unit sizeof(T); the published absolute
    // addresses and sizeof(T) for a dynamic window.
    std::vector<MPI_Aint> bases;
    MPI_Aint step = 1;
  };

 public:
  /// The container's elements, held for one use: size() and element(i) as the container's.
  class locked_elements {
   public:
    explicit locked_elements(std::shared_ptr<state_type> s) noexcept : s_{std::move(s)} {}
    [[nodiscard]] std::size_t size() const noexcept { return s_->dist.size(); }
    /// Where element i lives; throws out_of_range for i >= size().
    [[nodiscard]] global_ptr<T> element(std::size_t i) const { return element_in(*s_, i); }
    /// Element i (< size(), unchecked) as the image owning it and its offset among that
    /// image's elements: for streams of updates that go to owners in batches.
    struct place {
      std::size_t image;
      std::size_t offset;
    };
    [[nodiscard]] place place_of(std::size_t i) const noexcept {
      return {s_->dist.owner(i), s_->dist.local_offset(i)};
    }
    /// The distribution, by value: a loop over many indices keeps this copy in registers, where
    /// through the container's state each store of a size_t-wide value would reload it.
    [[nodiscard]] Dist distribution() const noexcept { return s_->dist; }
    /// How many elements image img owns, and the displacement of its first one. Local.
    [[nodiscard]] std::size_t part_size(std::size_t img) const noexcept {
      return s_->dist.local_size(img);
    }
    [[nodiscard]] MPI_Aint part_displacement(std::size_t img) const noexcept {
      return s_->bases.empty() ? 0 : s_->bases[img];
    }
    [[nodiscard]] runtime::window& window(internal_only) const noexcept { return s_->win; }
    /// Every image's part as mapped here, indexed by image, or empty (mapped_parts.hpp).
    [[nodiscard]] const std::vector<T*>& mapped() const noexcept { return s_->mapped; }
    /// This image's number in the container's team, and its own part.
    [[nodiscard]] std::size_t me() const noexcept { return s_->me; }
    [[nodiscard]] T* own_part() const noexcept { return s_->local.data(); }

   private:
    std::shared_ptr<state_type> s_;
  };
  /// Finds the container's elements for as long as it exists, wherever the container object is
  /// moved: for objects that outlive a call (aggregators). Does not keep the container alive.
  class element_finder {
   public:
    explicit element_finder(const std::shared_ptr<state_type>& s) noexcept
        : s_{s}, seen_{s.get()} {}
    /// The elements for one use. Throws usage_error naming `what` if the container is gone.
    [[nodiscard]] locked_elements lock(const char* what) const {
      auto s = s_.lock();
      if (!s)
        throw usage_error(std::string(what) + ": its container no longer exists");
      return locked_elements{std::move(s)};
    }
    /// True once the container is gone. Cheap: no reference is taken.
    [[nodiscard]] bool expired() const noexcept { return s_.expired(); }
    /// The container's size now (a vector's changes in collective calls). Only while
    /// !expired(): the process is single-threaded, so nothing frees the container between the
    /// two calls, and no reference needs taking (an aggregator asks at every add).
    [[nodiscard]] std::size_t size_while_alive() const noexcept { return seen_->dist.size(); }

   private:
    std::weak_ptr<state_type> s_;
    const state_type* seen_;  // what s_ names, read only while it is alive
  };
  [[nodiscard]] element_finder finder() const {
    (void)state();  // a moved-from container has nothing to find: usage_error
    return element_finder{s_};
  }

 protected:
  storage() = default;
  explicit storage(std::unique_ptr<state_type> s) noexcept : s_{std::move(s)} {}
  // A move hands the state over; handles made through the moved-from container end.
  storage(storage&& other) noexcept : s_{std::move(other.s_)} {
    if (s_)
      s_->life.renew();
  }
  storage& operator=(storage&& other) noexcept {
    if (this != &other) {
      issue_held_writes();
      s_ = std::move(other.s_);
      if (s_)
        s_->life.renew();
    }
    return *this;
  }
  storage(const storage&) = delete;
  storage& operator=(const storage&) = delete;
  ~storage() { issue_held_writes(); }
  /// A state for n elements laid out by dist over the images of team t; the caller adds the
  /// window and this image's memory. Local.
  static std::unique_ptr<state_type> new_state(const pgas::team& t,
                                               const Dist& dist,
                                               std::size_t n) {
    auto s = std::make_unique<state_type>();
    s->make_on(t);
    s->dist = dist.bind(n, t.size());
    return s;
  }
  /// Takes the finished state. Collective over its team: a sync point, so no image writes into
  /// a part before its owner has initialised it.
  void adopt(std::unique_ptr<state_type> s) {
    s_ = std::move(s);
    describe_for_race_check();
    sync();
  }
  [[nodiscard]] state_type& state() const { return live_state(s_, "pgas container"); }
  void check_index(std::size_t i) const {
    if (i >= size())
      runtime::throw_out_of_range("index", i, size());
  }
  // Element i of the container whose state is s; out_of_range for i >= its size, checked before
  // the distribution divides by a block size that may be 0.
  static global_ptr<T> element_in(const state_type& s, std::size_t i) {
    if (i >= s.dist.size())
      runtime::throw_out_of_range("index", i, s.dist.size());
    const std::size_t img = s.dist.owner(i);
    const std::size_t off = s.dist.local_offset(i);
    T* local = address_here(img, s.me, s.local.data(), s.mapped, off);
    const MPI_Aint base = s.bases.empty() ? 0 : s.bases[img];
    return global_ptr<T>(internal, &s.win, s.life.token(), img,
                         base + static_cast<MPI_Aint>(off) * s.step, s.step, local, img == s.me);
  }
  // Tells the race checker how to name this container's elements: copies of what it needs, as
  // the window's release, which reports last, runs after the state's own members have gone.
  void describe_for_race_check() const {
    if (!runtime::race_check::enabled())
      return;
    const state_type& s = state();
    std::vector<std::size_t> image_of_world(runtime::world_size(), 0);
    for (std::size_t img = 0; img < s.home->size(); ++img)
      image_of_world[static_cast<std::size_t>(s.home->world_rank(img))] = img;
    runtime::race_check::describe(
        s.win, {"a container of " + runtime::race_check::readable_name<T>(),
                [dist = s.dist, bases = s.bases, step = s.step, unit = s.win.disp_unit(),
                 image_of_world](std::size_t world_image, std::uint64_t byte) {
                  const std::size_t img = image_of_world[world_image];
                  const auto disp = static_cast<MPI_Aint>(byte / static_cast<std::uint64_t>(unit));
                  const MPI_Aint base = bases.empty() ? 0 : bases[img];
                  return dist.global_index(img, static_cast<std::size_t>((disp - base) / step));
                }});
  }
  // Issues writes held back for later (aggregators) before the state, and its window, may go:
  // they may be meant for this container. Reports, never throws.
  void issue_held_writes() noexcept {
    if (!s_ || !environment::active())
      return;
    try {
      runtime::issue_deferred_writes();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: issuing held updates before a container goes: %s\n", e.what());
    }
  }
  // Shared only with element_finders, which never keep it alive past a use.
  std::shared_ptr<state_type> s_;
};

}  // namespace pgas::detail
