#pragma once
// pgas::vector: a growable global array whose memory is attached to a dynamic window
// (MPI_Win_create_dynamic, MPI-4.1 §12.2.4) and reached by published absolute addresses.

#include <pgas/detail/locality.hpp>
#include <pgas/detail/storage.hpp>
#include <pgas/distribution.hpp>
#include <pgas/runtime/byte_collectives.hpp>
#include <pgas/runtime/collective.hpp>
#include <pgas/runtime/machine.hpp>
#include <pgas/runtime/rma.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team_window.hpp>
#include <pgas/runtime/watchdog.hpp>
#include <pgas/sync.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgas {

/// A global array that grows. Global order is image 0's elements, then image 1's, and so on.
///
/// - `push_back` / `emplace_back` append to this image's part without any MPI call (amortised
///   O(1)); a collective `commit()` publishes every image's new size. Between commits every
///   image, this one included, sees the last committed state: `size()`, `v[i]`, `local()` and
///   the iterators cover committed elements only.
/// - `resize`, `reserve`, `clear`, `shrink_to_fit` and `commit` are collective: no image can be
///   reading or writing the vector while another one resizes it, because every image is inside
///   the same call, and each of them completes all outstanding accesses (a sync point) before
///   memory moves. Spans from `local()` and references are invalidated by these calls.
/// - Each image keeps exactly one region attached to the window between calls (two for a moment
///   inside one), whatever the number of growth steps: Open MPI allows 64 attachments.
/// Collective to construct and destroy, move-only.
template <class T>
class vector : public detail::storage<T, sized_blocks> {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "pgas::vector elements must be non-const and trivially copyable");
  using base = detail::storage<T, sized_blocks>;

 public:
  /// Collective over the team in force: an empty vector.
  vector() : vector(current_team(), 0) {}
  /// Collective over the team in force: n elements of T{} (or `initial`), block-distributed.
  /// Throws usage_error on every image if the images pass different sizes.
  explicit vector(std::size_t n, const T& initial = T{}) : vector(current_team(), n, initial) {}
  /// Collective over team t: the vector lives on t's images, whatever team is in force later.
  explicit vector(const pgas::team& t, std::size_t n = 0, const T& initial = T{}) {
    detail::require_same_everywhere<T, block>("pgas::vector", t, n, block{});
    auto s = std::make_unique<typename base::state_type>();
    s->make_on(t);
    s->step = static_cast<MPI_Aint>(sizeof(T));
    s->win = runtime::create_team_dynamic_window(t.native());
    this->s_ = std::move(s);
    const auto shares = block_shares(n);
    rebuild(shares, shares[t.rank()], [&](std::size_t, std::size_t, T* out, std::size_t count) {
      std::uninitialized_fill_n(out, count, initial);
    });
  }
  vector(vector&&) noexcept = default;
  vector& operator=(vector&& other) noexcept {
    if (this != &other) {
      wait_for_peers();  // our memory goes now: no peer may still be using it
      base::operator=(std::move(other));
      buffer_ = std::move(other.buffer_);
      capacity_ = std::exchange(other.capacity_, 0);
      in_place_ = std::exchange(other.in_place_, 0);
      overflow_ = std::move(other.overflow_);
    }
    return *this;
  }
  vector(const vector&) = delete;
  vector& operator=(const vector&) = delete;
  /// Collective: every image destroys its vector together; the memory goes only once no peer
  /// can be using it any more.
  ~vector() { wait_for_peers(); }

  /// Appends x to this image's part. Local, no MPI call; visible to all after commit().
  void push_back(const T& x) { emplace_back(x); }
  /// Constructs an element at the end of this image's part. Local, no MPI call.
  template <class... Args>
  T& emplace_back(Args&&... args) {
    auto& s = this->state();
    const std::size_t used = s.local.size() + in_place_;
    if (overflow_.empty() && used < capacity_) {
      T* slot = buffer_.get() + used;
      ++in_place_;
      return *new (slot) T(std::forward<Args>(args)...);
    }
    return overflow_.emplace_back(std::forward<Args>(args)...);
  }
  /// Elements this image appended since the last commit. Local.
  /// Local; usage_error on a moved-from vector, as every member.
  [[nodiscard]] std::size_t uncommitted() const {
    (void)this->state();
    return in_place_ + overflow_.size();
  }
  /// This image's room before its memory must move, committed elements included. Local.
  [[nodiscard]] std::size_t capacity() const {
    (void)this->state();
    return capacity_;
  }

  /// Collective: publishes every image's appended elements. Afterwards size() counts them and
  /// every image can reach them.
  void commit(
      runtime::watchdog::source_location where = runtime::watchdog::source_location::current()) {
    const runtime::watchdog::waiting_in watched("pgas::vector::commit", where);
    auto& s = this->state();
    const std::size_t mine = s.local.size() + uncommitted();
    // Every image must take the same path (the paths run different collectives): memory moves
    // everywhere if it has to move anywhere.
    const std::size_t mine_and_move[2] = {mine, overflow_.empty() ? 0U : 1U};
    const auto gathered =
        runtime::allgatherv(std::span<const std::size_t>(mine_and_move), this->team().native());
    std::vector<std::size_t> counts(this->team().size());
    bool any_moves = false;
    for (std::size_t img = 0; img < counts.size(); ++img) {
      counts[img] = gathered[2 * img];
      any_moves = any_moves || gathered[2 * img + 1] != 0;
    }
    if (!any_moves) {
      // Everything fits where it is: only the sizes change.
      this->sync();
      in_place_ = 0;
      s.dist = sized_blocks(counts);
      s.local = std::span<T>(buffer_.get(), mine);
      return;
    }
    const std::size_t kept = s.local.size() + in_place_;
    std::vector<T> appended = std::move(overflow_);
    overflow_.clear();
    in_place_ = 0;
    rebuild(
        counts, appended.empty() ? capacity_ : std::max(mine, 2 * capacity_),
        [&](std::size_t, std::size_t, T* out, std::size_t) {
          copy_elements(out, buffer_.get(), kept);
          copy_elements(out + kept, appended.data(), appended.size());
        },
        /*local_only=*/true);
  }

  /// Collective: n elements, block-distributed again; the first min(n, size()) keep their values
  /// (uncommitted appends are committed first), new ones are T{} (or `initial`). Throws
  /// usage_error on every image, before anything moves, if the images pass different sizes or
  /// an image's share would pass the machine's memory.
  void resize(std::size_t n, const T& initial = T{}) {
    detail::require_same_everywhere<T, block>("pgas::vector::resize", this->team(), n, block{});
    require_share_fits("pgas::vector::resize", n);
    commit();
    const auto shares = block_shares(n);
    redistribute(shares, shares[this->team().rank()], initial);
  }
  /// Collective: rebalances the elements to a block distribution and makes room for n elements
  /// in all (each image its block share) without moving memory again. Throws usage_error on
  /// every image, before anything moves, if the images pass different sizes or an image's share
  /// would pass the machine's memory.
  void reserve(std::size_t n) {
    detail::require_same_everywhere<T, block>("pgas::vector::reserve", this->team(), n, block{});
    require_share_fits("pgas::vector::reserve", n);
    commit();
    const auto room = block_shares(std::max(n, this->size()));
    redistribute(block_shares(this->size()), room[this->team().rank()], T{});
  }
  /// Collective: every image's part becomes empty; capacity stays.
  void clear() {
    auto& s = this->state();
    in_place_ = 0;
    overflow_.clear();
    this->sync();
    s.dist = sized_blocks(std::vector<std::size_t>(this->team().size(), 0));
    s.local = std::span<T>(buffer_.get(), 0);
  }
  /// Collective: each image's memory shrinks to its committed elements.
  void shrink_to_fit() {
    commit();
    auto& s = this->state();
    std::vector<std::size_t> counts(this->team().size());
    for (std::size_t img = 0; img < counts.size(); ++img) counts[img] = s.dist.local_size(img);
    const std::size_t kept = s.local.size();
    rebuild(
        counts, kept,
        [&](std::size_t, std::size_t, T* out, std::size_t) {
          copy_elements(out, buffer_.get(), kept);
        },
        /*local_only=*/true);
  }

 private:
  // memcpy of n elements; nothing at all for none (memcpy may not be given null pointers).
  static void copy_elements(T* to, const T* from, std::size_t n) noexcept {
    if (n != 0)
      std::memcpy(static_cast<void*>(to), from, n * sizeof(T));
  }
  // A sync point before this image's memory is freed, so that no peer still reads or writes it
  // (the window's own collective free comes only after the members are gone). Reports, never
  // throws: it runs in a destructor.
  void wait_for_peers() noexcept {
    if (!this->s_ || !environment::active())
      return;
    try {
      this->sync();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pgas: destroying a vector: %s\n", e.what());
    }
  }
  // usage_error on every image (n is agreed) when the largest block share of n elements passes
  // the machine's memory: refused before anything moves, as an array of that size is.
  void require_share_fits(const char* what, std::size_t n) const {
    const std::size_t images = this->team().size();
    runtime::require_memory(what, n / images + (n % images != 0 ? 1 : 0), sizeof(T));
  }
  [[nodiscard]] std::vector<std::size_t> block_shares(std::size_t n) const {
    const auto d = block{}.bind(n, this->team().size());
    std::vector<std::size_t> shares(this->team().size());
    for (std::size_t img = 0; img < shares.size(); ++img) shares[img] = d.local_size(img);
    return shares;
  }

  // Moves every image's elements to the layout `counts`, fetching each new part from wherever
  // the old layout kept it; positions past the old size become `initial`.
  void redistribute(const std::vector<std::size_t>& counts,
                    std::size_t capacity,
                    const T& initial) {
    auto& s = this->state();
    const sized_blocks old = s.dist;
    rebuild(counts, std::max(capacity, counts[this->team().rank()]),
            [&](std::size_t first, std::size_t, T* out, std::size_t count) {
              for (std::size_t k = 0; k < count;) {
                const std::size_t g = first + k;
                if (g >= old.size()) {
                  std::uninitialized_fill_n(out + k, count - k, initial);
                  break;
                }
                const std::size_t len = std::min(old.run_end(g) - g, count - k);
                detail::load_n(this->element(g), std::span<T>(out + k, len),
                               "reading a vector's old part");
                k += len;
              }
            });
  }

  // Gives this image a new buffer of `capacity` holding its part of layout `counts` (filled by
  // fill(first global index, capacity, buffer, count)), swaps the attachment, and publishes
  // every image's address. Collective. `local_only` fills need no peer, so they may run after
  // the sync point that ends all access to the old buffers; others read peers' old buffers and
  // get a sync point after them instead.
  template <class Fill>
  void rebuild(const std::vector<std::size_t>& counts,
               std::size_t capacity,
               Fill fill,
               bool local_only = false) {
    auto& s = this->state();
    const sized_blocks next(counts);
    const std::size_t mine = counts[this->team().rank()];
    capacity = std::max(capacity, mine);
    // Agreed: an image that cannot get its buffer (ulimit -v, memory exhausted) must not throw
    // alone while the others wait in the sync points below.
    std::unique_ptr<T[]> fresh;
    std::optional<std::string> problem;
    try {
      if (capacity > 0)
        fresh = std::make_unique_for_overwrite<T[]>(capacity);
    } catch (const std::bad_alloc&) {
      problem = "image " + std::to_string(this->team().rank()) + " cannot allocate the " +
                std::to_string(capacity * sizeof(T)) +
                " bytes of its part of a pgas::vector; nothing changed on any image";
    }
    if (const auto failed = runtime::first_failure(problem, this->team().native()))
      throw resource_error("pgas: " + *failed);
    if (local_only)
      this->sync();  // nobody touches old buffers from here on
    fill(next.first_of(this->team().rank()), capacity, fresh.get(), mine);
    if (!local_only)
      this->sync();  // every peer has read what it needed from our old buffer
    if (fresh)
      s.win.attach(fresh.get(), capacity * sizeof(T));
    if (buffer_)
      s.win.detach(buffer_.get());
    buffer_ = std::move(fresh);
    capacity_ = capacity;
    s.bases = s.win.publish(buffer_.get());  // null where an image has no memory: never addressed
    s.dist = next;
    s.local = std::span<T>(buffer_.get(), mine);
    this->describe_for_race_check();
    this->sync();  // what we just copied is visible before use
  }

  std::unique_ptr<T[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t in_place_ = 0;  // appended into buffer_ after the committed part
  std::vector<T> overflow_;   // appended past capacity_, moved in at the next commit
};

}  // namespace pgas
