#pragma once
// The only owner of an MPI_Win: creation in four flavors, attributes, attachment, epochs.

#include <pgas/runtime/group.hpp>
#include <pgas/runtime/info.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace pgas::runtime {

/// How the window's memory came to be (MPI_WIN_CREATE_FLAVOR, MPI-4.1 §12.2.6).
enum class window_flavor { create, allocate, shared, dynamic };
/// MPI_WIN_MODEL: whether public and private copies of window memory are one (unified).
enum class memory_model { separate, unified };

struct window_state;

/// How a write changes its target: MPI orders accumulates after accumulates to the same bytes,
/// nothing else (MPI-4.1 §12.7.2).
enum class write_kind : unsigned char { put, accumulate };

/// A move-only RAII handle over one MPI window. From creation to destruction the window lives in
/// one passive-target epoch (MPI_Win_lock_all with MPI_MODE_NOCHECK), except inside a fence or
/// neighbourhood phase, which the phase objects open and close. Every MPI error becomes
/// pgas::mpi_error; misuse becomes pgas::usage_error.
class window {
 public:
  /// Collective over comm. Exposes `bytes` (may be 0, may differ per process) of memory that
  /// the window allocates with MPI_Alloc_mem (which MPI-4.1 §12.2.1 advises for windows) and owns.
  [[nodiscard]] static window create(MPI_Comm comm,
                                     std::size_t bytes,
                                     int disp_unit,
                                     const window_hints& hints = {});
  /// Collective over comm. Exposes caller memory [base, base + bytes), which must outlive the
  /// window and is not freed by it.
  [[nodiscard]] static window create(
      MPI_Comm comm, void* base, std::size_t bytes, int disp_unit, const window_hints& hints = {});
  /// Collective over comm. MPI allocates `bytes` for this process (MPI_Win_allocate).
  [[nodiscard]] static window allocate(MPI_Comm comm,
                                       std::size_t bytes,
                                       int disp_unit,
                                       const window_hints& hints = {});
  /// Collective over comm. As above, when every process can compute every process's size
  /// (`every_rank_bytes`, indexed by rank, all with this disp_unit): skips their exchange.
  [[nodiscard]] static window allocate(MPI_Comm comm,
                                       std::size_t bytes,
                                       int disp_unit,
                                       const std::vector<std::size_t>& every_rank_bytes,
                                       const window_hints& hints = {});
  /// Collective over comm, whose processes must share memory (one node). Peers' memory is then
  /// reachable by plain loads and stores through shared_query().
  [[nodiscard]] static window allocate_shared(MPI_Comm comm,
                                              std::size_t bytes,
                                              int disp_unit,
                                              const window_hints& hints = {});
  /// The same, when every process's size is known (as for allocate above).
  [[nodiscard]] static window allocate_shared(MPI_Comm comm,
                                              std::size_t bytes,
                                              int disp_unit,
                                              const std::vector<std::size_t>& every_rank_bytes,
                                              const window_hints& hints = {});
  /// Collective over comm. A window without memory: regions are attached and detached locally,
  /// and targets are addressed by the absolute address the target published (MPI-4.1 §12.2.4).
  [[nodiscard]] static window create_dynamic(MPI_Comm comm, const window_hints& hints = {});

  window() noexcept;  ///< an empty handle, as a moved-from window is
  window(const window&) = delete;
  window& operator=(const window&) = delete;
  window(window&& other) noexcept;
  window& operator=(window&& other) noexcept;
  /// Collective: completes this process's operations, ends the epoch and frees the window
  /// (MPI_Win_free waits for every process, so no memory goes while a peer still uses it).
  ~window();

  /// True unless empty (default-constructed or moved from). Local.
  [[nodiscard]] bool valid() const noexcept;
  [[nodiscard]] MPI_Win native() const noexcept;
  /// The communicator the window was created over (not owned). Local.
  [[nodiscard]] MPI_Comm comm() const;
  /// This process's rank in comm(), and comm()'s size. Local.
  [[nodiscard]] int rank() const;
  [[nodiscard]] int ranks() const;

  /// Attributes read back from MPI (MPI-4.1 §12.2.6). Local. For allocate and
  /// allocate_shared windows, base() is on a 64-byte boundary wherever every process's memory
  /// can be shifted there alike, and size() is the bytes asked for.
  [[nodiscard]] void* base() const;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] int disp_unit() const;
  [[nodiscard]] window_flavor flavor() const;
  [[nodiscard]] memory_model model() const;
  [[nodiscard]] group get_group() const;
  /// What process `target` exposes: bytes and disp_unit, exchanged at creation. Not for dynamic
  /// windows, whose exposure changes with every attach. Local.
  [[nodiscard]] std::size_t size_of(int target) const;
  [[nodiscard]] int disp_unit_of(int target) const;

  /// Where a same-node peer's memory of an allocate_shared window is mapped here. Local.
  struct shared_segment {
    void* base;
    std::size_t bytes;
    int disp_unit;
  };
  [[nodiscard]] shared_segment shared_query(int target) const;
  /// Every process's memory as mapped into this one, indexed by rank, for an allocate_shared
  /// window; empty for any other flavor (peers are then reached through RMA only). Local.
  [[nodiscard]] std::vector<void*> mapped_bases() const;

  /// Most regions one dynamic window may have attached per process at once. Open MPI 4.1 fails
  /// the 65th MPI_Win_attach and can then hang in detach, so pgas refuses the 65th itself.
  static constexpr std::size_t max_attachments = 64;
  /// Attaches [base, base + bytes) to a dynamic window. Local.
  void attach(void* base, std::size_t bytes);
  /// Detaches a region attach() was given, after completing this process's pending operations.
  /// Local. Throws usage_error for a region that is not attached.
  void detach(void* base);
  /// How many regions are attached now. Local.
  [[nodiscard]] std::size_t attachments() const;
  /// Collective: every process's absolute address of its `local` (MPI_Get_address), indexed by
  /// rank; what remote operations on a dynamic window use as displacement.
  [[nodiscard]] std::vector<MPI_Aint> publish(const void* local) const;

  /// Completes every operation this process issued to `target` (or to all), at origin and
  /// target (MPI_Win_flush / MPI_Win_flush_all). Local; passive epoch only.
  void flush(int target);
  void flush_all();
  /// Completes them at the origin only: buffers may be reused (MPI_Win_flush_local[_all]).
  void flush_local(int target);
  void flush_local_all();
  /// Makes local loads and stores and the window's public copy agree (MPI_Win_sync). Local.
  void sync_memory();

  /// Collective: leaves the passive epoch for fence-separated access epochs (MPI_Win_fence).
  void begin_fence_phase();
  /// Collective: ends one fence phase step: all operations of the step are complete everywhere.
  void fence();
  /// Collective: final fence, then back to the passive epoch.
  void end_fence_phase();
  /// Leaves the passive epoch for one general active-target epoch: exposes this window to the
  /// `origins` (MPI_Win_post) and accesses the `targets` (MPI_Win_start). Collective over the
  /// processes named, which must name each other symmetrically.
  void begin_neighbourhood_phase(const std::vector<int>& targets, const std::vector<int>& origins);
  /// Completes the access (MPI_Win_complete) and exposure (MPI_Win_wait), then back to passive;
  /// of an exchange by messages (begin_neighbour_messages), every receive and send.
  void end_neighbourhood_phase();
  /// The same without blocking for the origins: completes the access (MPI_Win_complete), then
  /// asks whether every origin has completed its access (MPI_Win_test, MPI-4.1 §12.5.2). True:
  /// the phase has ended, the window is back in the passive epoch. False: call it or
  /// end_neighbourhood_phase() again later. Of an exchange by messages: whether every receive
  /// and send is complete (then it has ended).
  [[nodiscard]] bool test_neighbourhood_phase();

  /// The message form of a neighbourhood phase, for a window whose peers' memory is not mapped
  /// here: the window stays in its passive epoch, and what the phase's puts would write travels
  /// in two-sided messages on comm(), under a tag of this window's own, each received straight
  /// into the receiver's memory where the put would have written. Leaving and re-entering the
  /// passive epoch, as a phase does, waits under some MPIs for every peer to answer (Open MPI's
  /// osc/pt2pt between hosts: MPI_Win_unlock_all a round trip to a peer that may be computing);
  /// a message waits for nobody. Local; usage_error while the window's last exchange of either
  /// form is in flight. Receives first, then sends; end_neighbourhood_phase() or
  /// test_neighbourhood_phase() ends either form.
  void begin_neighbour_messages();
  /// Posts one receive of `count` `type`s from `source` into `into` (this process's memory of
  /// the window), or one send of them from `from` to `target`. Local, inside the exchange.
  void receive_from_neighbour(void* into, int count, MPI_Datatype type, int source);
  void send_to_neighbour(const void* from, int count, MPI_Datatype type, int target);

  // What rma.hpp builds operations from. Local.
  /// Copies `bytes` into memory that stays unchanged until the next completion of all this
  /// process's operations, so a put can read from it after the caller's value is gone.
  /// Inline, so the copy of a small value of known size is a single store.
  [[nodiscard]] void* stage(const void* data, std::size_t bytes) {
    void* slot = staging_slot(bytes);
    std::memcpy(slot, data, bytes);
    return slot;
  }
  /// Room for `bytes` staged bytes, under the same rules. Local.
  [[nodiscard]] void* staging_slot(std::size_t bytes);
  /// Records that a write to `target` may not have completed remotely yet.
  void note_write(int target);
  /// What one operation needs: the MPI handle, the displacement to give MPI, and whether the
  /// passive epoch is open (then origin buffers are completed at once; in a phase, at its next
  /// fence or its end). Displacements the runtime is given count from base(); MPI counts from
  /// the memory it allocated, which may start a little earlier (base() is moved to a cache
  /// line where it can be), so `disp` is the one to pass on.
  struct access {
    MPI_Win handle;
    bool passive;
    bool to_self;  // the target is this process
    MPI_Aint disp;
  };
  /// For one write of `bytes` at `disp` on `target`: throws usage_error for a rank outside
  /// comm(), out_of_range for bytes beyond what `target` exposes there, then notes the write.
  /// In the passive epoch it first completes this process's pending writes to `target` when
  /// the new one overlaps them in a way MPI leaves unordered (a put after a put or an
  /// accumulate, an accumulate after a put), so one process's writes to one element take effect
  /// in program order on every MPI.
  [[nodiscard]] access writing_to(int target,
                                  MPI_Aint disp,
                                  std::size_t bytes,
                                  write_kind kind = write_kind::put);
  /// For one read: require_passive(what) and the same checks, then completes earlier writes to
  /// `target`, so a process reads its own writes (MPI does not order a put and a later get).
  [[nodiscard]] access reading_from(const char* what, int target, MPI_Aint disp, std::size_t bytes);
  /// Before a load of `target`'s memory mapped here (an allocate_shared window): what a get
  /// needs, require_passive(what), then this process's earlier writes to `target` completed.
  void loading_from(const char* what, int target);
  /// True while accumulates and atomics on this window are applied in place by the processor
  /// (in_place_updates.hpp says why that is sound): an allocate_shared window in its passive
  /// epoch. Local.
  [[nodiscard]] bool updates_in_place() const;
  /// For an update of `bytes` at `disp` on `target` applied in place: the checks of
  /// writing_to, then this process's earlier writes to `target` completed (the update follows
  /// them), and where those bytes are mapped in this process. Null, with nothing checked,
  /// while the window is not updated in place: then MPI carries the update. Local.
  [[nodiscard]] void* mapped_for_update(int target, MPI_Aint disp, std::size_t bytes);
  /// The name every process of comm() gave this window when it was created
  /// (runtime/names.hpp): what a message uses to name it. Local.
  [[nodiscard]] std::uint64_t name() const;
  /// The MPI_COMM_WORLD rank of process `target` of comm(): where a message to it goes. Local
  /// (the translation is asked once per window).
  [[nodiscard]] int world_rank_of(int target) const;
  /// This process's window of that name, or null if it has none (any more). Local.
  [[nodiscard]] static window* named(std::uint64_t name) noexcept;
  /// For an update or atomic of `bytes` from `disp` on `target` that goes to the target as a
  /// message for it to apply (not through RMA): the checks of writing_to, and this process's
  /// earlier writes to `target` through MPI completed (it follows them). Local.
  void ordering_for_owner(int target, MPI_Aint disp, std::size_t bytes);
  /// The same for a batch without an answer, which is then awaited: flush(target), flush_all(),
  /// the sync points and a later write to or read from `target` wait until the target has
  /// handled every message this process sent it (messages::await_handled). Local.
  void sending_to_owner(int target, MPI_Aint disp, std::size_t bytes);
  /// True while accumulates and atomics on this window are applied by the process owning the
  /// memory (owner_updates.hpp says when and why that is sound): a container window that is not
  /// updated in place, in its passive epoch. Local.
  [[nodiscard]] bool owner_applies_updates() const;
  /// True when a batch of accumulates may go to the owners to apply (owner_updates.hpp), on the
  /// caller's choice where the window is also updated in place: owner_applies_updates(), or a
  /// shared window in its passive epoch while the message engine runs and no image has updated
  /// it in place (then the caller's own atomics in place are cheaper). Local.
  [[nodiscard]] bool owners_can_apply_batches() const;
  /// The owner, before applying a batch to its own memory: true when it may use plain loads and
  /// stores, false when it must use processor atomics because an image updates this shared
  /// window in place (once one has, for the container's life); after true, end_plain_updates()
  /// must follow the batch, which may not wait for anything. Local.
  [[nodiscard]] bool begin_plain_updates();
  void end_plain_updates();
  /// How an element write of `bytes` at `disp` goes to `target`: through MPI at once; as a
  /// message its owner applies (owner_applies_updates() and `target` on another node, where
  /// MPI's put would need a flush of its own before a later message, a round trip across the
  /// network — or on this one while a store or batch sent to it is unacknowledged, which a put
  /// would first wait for); or held until the next operation (owner_applies_updates() and
  /// `target` another process of this node: held_write.hpp), its target and bytes checked as
  /// writing_to checks them. Local.
  enum class write_route { through_mpi, to_owner, held };
  [[nodiscard]] write_route route_of_element_write(int target, MPI_Aint disp, std::size_t bytes);
  /// Says that other processes reach this window's memory only through updates (an event's
  /// counts: posted to, never read or written with MPI RMA), so that while the owner applies
  /// them, or while every image applies them in place on a shared window (processor atomics,
  /// or a signal's release stores read with acquire loads), no sync point needs MPI_Win_sync on
  /// it (MPI-4.1 §12.7: it orders a process's own loads and stores against RMA of others, of
  /// which there is none; §12.2.3: on a shared window the processes order their loads and
  /// stores themselves, which those atomic accesses do). Local; for the life
  /// of this container (a pooled window forgets it).
  void reached_only_through_owner();
  /// Where this process's own exposed memory at `disp` is, for `bytes` (checked) updated with
  /// plain loads and stores; this process's earlier writes to itself through MPI completed
  /// first. Local.
  [[nodiscard]] void* own_memory_for_update(MPI_Aint disp, std::size_t bytes = 0);
  /// Before a batch of in-place updates addressed through mapped memory: true when the window
  /// is updated in place, and then this process's earlier writes through MPI are complete.
  /// Local.
  [[nodiscard]] bool begin_in_place_updates();
  /// True in the default passive epoch (not inside a fence or neighbourhood phase).
  [[nodiscard]] bool in_passive_epoch() const;
  /// Throws usage_error naming `what` unless in the passive epoch.
  void require_passive(const char* what) const;

 private:
  // The ends of an exchange by messages: every receive and send completed, serving the message
  // engine while it waits (a neighbour may wait for this image's handlers before it sends).
  void end_neighbour_messages();
  [[nodiscard]] bool test_neighbour_messages();
  explicit window(std::unique_ptr<window_state> s) noexcept;
  // Gives a freshly created MPI_Win its error handler, its peers' exposure and its epoch.
  static window finish_creation(std::unique_ptr<window_state> s,
                                std::size_t bytes,
                                int disp_unit,
                                window_flavor flavor,
                                const std::vector<std::size_t>* every_rank_bytes = nullptr);
  // Decides the flavor and the pooling of container windows (team_window.hpp).
  friend window allocate_team_window(MPI_Comm comm,
                                     std::size_t bytes,
                                     int disp_unit,
                                     const std::vector<std::size_t>& every_rank_bytes);
  friend window create_team_dynamic_window(MPI_Comm comm);
  // Inline: every operation asks it first, and the call across files cost an element put
  // through MPI 1-3 ns of its 43-46 (bench_micro, AMD EPYC VM).
  window_state& state() const {
    if (s_ == nullptr) [[unlikely]]
      throw_empty();
    return *s_.get();
  }
  [[noreturn]] static void throw_empty();
  void release() noexcept;
  std::unique_ptr<window_state> s_;
};

/// Completes this process's operations on every live window in the passive epoch and orders
/// their memory with other processes' accesses: a flush, then MPI_Win_sync on a window in the
/// separate model and one processor memory barrier for all whose memory is one copy (shared,
/// or the unified model), where MPI_Win_sync is that barrier (MPI-4.1 §12.5.4). Local.
void complete_all_windows();
/// The same for a caller whose next step is a message telling another process that these
/// writes are done, and who waits for the batches it sent to owners (owner_updates.hpp) itself.
/// Local.
void complete_windows_before_message();
/// complete_all_windows() for a caller whose next step is a signal written in place (a processor
/// atomic or a release store, signal.hpp), which stands in for the barrier (MPI-4.1 §12.2.3).
/// Local.
void complete_all_windows_before_signal_in_place();
/// Orders the memory of every live window in the passive epoch, as complete_all_windows() does,
/// without completing anything. Local.
void sync_all_window_memory();
/// How many MPI windows this process holds now: live handles and the ones the pool keeps for
/// reuse. What a leak of windows would make grow. Local.
[[nodiscard]] std::size_t open_windows();

}  // namespace pgas::runtime
