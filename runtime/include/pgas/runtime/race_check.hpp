#pragma once
// The race checker (PGAS_CHECK=1): reports two accesses from different images to overlapping
// bytes of one window, at least one a write and not both accumulates or atomics, that nothing
// orders.
//
// "Ordered" is happens-before through vector clocks, one entry per world image: an image's own
// entry counts its releases (a sync point it enters, an event post, a lock release, a
// sync_images); an acquire (leaving a sync point, an event wait, taking a lock, the other side
// of a sync_images) joins the releaser's clock. Access a of image i happens before access b
// when b's clock has seen i's entry as it was at a (Lamport's and Mattern's rule, as
// ThreadSanitizer applies it to threads).
//
// Every image keeps its own accesses (window, target, bytes, kind, where, clock), runs of one
// call merged. They are checked at the sync point that orders them all: at sync_all every image
// of the team sends each access to the image that owns the bytes (or, for an owner outside the
// team, to one member chosen by the window's name), which compares the accesses to its memory;
// then all are forgotten, the team's barrier ordering them before anything after. When a
// window is released (its container destroyed) its accesses are checked over its own team; the
// environment's end checks what is left over the world. What sub-team sync points order only
// among their members is forgotten with them (a race with an image outside the team that
// synchronised is then missed, never invented).
//
// Off (the default), each access costs one load of a flag and a branch not taken; single-element
// accesses compiled with PGAS_RACE_CHECK=0 (the default under NDEBUG) cost nothing and are not
// seen (pgas/detail/element_race_hooks.hpp).

#include <pgas/runtime/watchdog.hpp>
#include <pgas/runtime/window.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <typeinfo>
#include <vector>

namespace pgas::runtime::race_check {

/// What an access does to its bytes. Updates (accumulates and atomics) never race with updates.
enum class access : unsigned char { read, write, update };

namespace detail {
extern bool on;         // NOLINT: read by every access; set once at environment start
extern int unrecorded;  // NOLINT: handlers running now (unrecorded_scope)
void note(const window& w,
          int target,
          MPI_Aint disp,
          std::size_t bytes,
          access kind,
          const watchdog::source_location* where);
}  // namespace detail

/// True while PGAS_CHECK=1: accesses are recorded and checked. The same on every image.
[[nodiscard]] inline bool enabled() noexcept {
  return detail::on;
}

/// Records an access by this image to `bytes` bytes at displacement `disp` (in the window's
/// displacement units, as the runtime addresses it) of process `target` of w, made at `where`
/// in the user's program (null: the innermost public call the watchdog knows, if any). Local.
inline void note(const window& w,
                 int target,
                 MPI_Aint disp,
                 std::size_t bytes,
                 access kind,
                 const watchdog::source_location* where = nullptr) {
  if (detail::on) [[unlikely]]
    detail::note(w, target, disp, bytes, kind, where);
}

/// While one lives, this process's accesses are not recorded: message handlers (rpc, rpc_ff,
/// the engine's own) run on another image's behalf, ordered by messages the checker does not
/// follow, so what they touch is not checked rather than reported falsely. Local.
class unrecorded_scope {
 public:
  unrecorded_scope() noexcept { ++detail::unrecorded; }
  unrecorded_scope(const unrecorded_scope&) = delete;
  unrecorded_scope& operator=(const unrecorded_scope&) = delete;
  ~unrecorded_scope() { --detail::unrecorded; }
};

/// How a report names the bytes of a window: a container's label ("pgas::array") and the
/// global index of the element holding byte `byte` (counted as displacement × disp_unit) of
/// world image `world_image`'s part.
struct description {
  std::string container;
  std::function<std::size_t(std::size_t world_image, std::uint64_t byte)> index;
};
/// The C++ name of a type, for reports ("long", "std::pair<int, double>"). Local.
[[nodiscard]] std::string readable_name(const std::type_info& type);
template <class T>
[[nodiscard]] std::string readable_name() {
  return readable_name(typeid(T));
}

/// Names window w's bytes in reports from now until it is released. Local.
void describe(const window& w, description d);

/// Marks the program as holding code compiled without element-access checks
/// (PGAS_RACE_CHECK=0): configure() then says on image 0's stderr that such accesses are not
/// checked. Returns true. Called before main, from static initialisation. Local.
bool note_code_without_element_checks() noexcept;
/// True once note_code_without_element_checks() has been called. Local.
[[nodiscard]] bool code_without_element_checks() noexcept;

/// Reads PGAS_CHECK (environment start; "0", "1" or unset). Throws usage_error for another
/// value. Collective over `world`: duplicates it for the checker's own messages while on.
void configure(MPI_Comm world);
/// The environment's end: checks what is left over the world, then frees what configure made.
/// Collective over the world.
void finish() noexcept;

/// A sync point over comm's processes, after its barrier: checks every access recorded since
/// the last such point, forgets them, and joins the members' clocks. Collective over comm.
void at_barrier(MPI_Comm comm);
/// A window's release, after its barrier: checks and forgets the accesses to it. Collective
/// over w.comm().
void at_release(const window& w) noexcept;
/// Both sides of a sync_images with the world processes `partners` (each names this one):
/// clocks exchanged and joined. Collective over this process and the partners.
void at_pairwise_sync(const std::vector<int>& partners);
/// Every image of comm orders what it did before against what the others do after (a fence
/// or another barrier-like phase step), without a check. Collective over comm.
void join_clocks(MPI_Comm comm);

/// Release and acquire through memory (events, locks): one box of clocks per process of a
/// communicator. send(t) makes everything this process did so far ordered before whatever
/// process later receive(t)s (the box is combined with a maximum, so several senders may share
/// it); the send must be completed (a flush, as the event post or lock release that follows it
/// does) before the receiver looks. Holds nothing while the checker is off.
class clock_boxes {
 public:
  clock_boxes() = default;
  /// Collective over comm.
  explicit clock_boxes(MPI_Comm comm);
  /// This process's clock, combined into process `target`'s box (its rank in comm). Local.
  void send(int target);
  /// Joins the clock in process `source`'s box into this process's. Local.
  void receive(int source);

 private:
  window boxes_;
};

/// The reports this image has made so far (each one line). Local.
[[nodiscard]] const std::vector<std::string>& reports() noexcept;

}  // namespace pgas::runtime::race_check
