#pragma once
// Many updates `elements[i] op= v` at scattered indices, sent to the images owning them as one
// batch per owner that the owner applies itself (runtime/owner_updates.hpp): what aggregators and
// histograms do on containers without shared memory. One pass sorts the updates by owner; none
// are combined (the owner applies them in order, each a plain load and store).

#include <pgas/detail/internal_only.hpp>
#include <pgas/runtime/kept_scratch.hpp>
#include <pgas/runtime/owner_updates.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/window.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <vector>

namespace pgas::detail {

/// One column of an owner's share: a growable array whose room is not cleared, written by the
/// sorting loop through a cursor.
template <class V>
class share_column {
 public:
  /// Room for at least `more` elements after the ones held: the first free place. Grows by
  /// doubling, as a vector does, on kept scratch (a collective's buckets come back, mapped
  /// already, for the next call); the room is not cleared.
  V* room_for(std::size_t more) {
    if (size_ + more > room_.size())
      room_.resize(std::max(size_ + more, 2 * room_.size()));
    return room_.data() + size_;
  }
  /// The elements up to `end` (a cursor into the room) are now held.
  void held_up_to(const V* end) noexcept { size_ = static_cast<std::size_t>(end - room_.data()); }
  [[nodiscard]] std::span<const V> held() const noexcept { return {room_.data(), size_}; }
  void clear() noexcept { size_ = 0; }

 private:
  runtime::scratch_vector<V> room_;
  std::size_t size_ = 0;
};

/// One owner's share, kept between sendings for its room.
template <class T>
struct owner_share {
  share_column<std::uint32_t> offsets;
  share_column<T> values;
};

/// Appends the updates u < count, in order, to their owners' shares: the offset of element
/// index u (the u-th from `next`) in its owner's part (under `dist`, held by value) and, with
/// `with_values`, value(u). Stops at the first index not below `limit` and returns it; returns
/// nothing when every index is below. Sorted a slice at a time, each owner given room for the
/// whole slice first, so that the loop writes through cursors of its own, unchecked, and its
/// stores cannot reach them or the distribution. perf of gups through MPI put this pass, through
/// vectors' push_back and the container's state, at a fifth of an image's time; bench_histogram
/// at bale's size measured a room check per update at the old speed and the slices 4 % faster.
template <bool with_values, class T, class Dist, class Iterator, class Value>
std::optional<std::size_t> sort_by_owner(const Dist dist,
                                         Iterator next,
                                         std::size_t count,
                                         std::size_t limit,
                                         Value value,
                                         std::vector<owner_share<T>>& shares) {
  const std::size_t images = shares.size();
  // The room a slice asks of every owner stays within 2^16 updates however many images there are.
  const std::size_t slice = std::clamp<std::size_t>((std::size_t{1} << 16) / images, 16, 512);
  // First a random stream's share and some, so that a long stream grows each share once.
  const std::size_t share = count / images;
  for (owner_share<T>& s : shares) {
    (void)s.offsets.room_for(share + share / 16 + slice);
    if constexpr (with_values)
      (void)s.values.room_for(share + share / 16 + slice);
  }
  std::vector<std::uint32_t*> offset_at(images);
  std::vector<T*> value_at(with_values ? images : 0);
  std::optional<std::size_t> stopped_at;
  for (std::size_t first = 0; first < count && !stopped_at; first += slice) {
    const std::size_t end = std::min(count, first + slice);
    for (std::size_t img = 0; img < images; ++img) {
      offset_at[img] = shares[img].offsets.room_for(end - first);
      if constexpr (with_values)
        value_at[img] = shares[img].values.room_for(end - first);
    }
    for (std::size_t u = first; u < end; ++u, ++next) {
      const auto i = static_cast<std::size_t>(*next);
      if (i >= limit) {
        stopped_at = i;
        break;
      }
      const std::size_t img = dist.owner(i);
      *offset_at[img]++ = static_cast<std::uint32_t>(dist.local_offset(i));
      if constexpr (with_values)
        *value_at[img]++ = static_cast<T>(value(u));
    }
    for (std::size_t img = 0; img < images; ++img) {
      shares[img].offsets.held_up_to(offset_at[img]);
      if constexpr (with_values)
        shares[img].values.held_up_to(value_at[img]);
    }
  }
  return stopped_at;
}

/// Sends elements[indices[u]] op= value(u) for every u to the owners, and returns true; returns
/// false, having sent nothing, when an image owns more elements than 32-bit offsets reach.
/// `elements`: a container's locked_elements, whose window owners_can_apply_batches(); indices
/// checked already. `shares`: room reused between calls. Local; complete at the next sync point.
template <class T, class Elements, class Indices, class Value>
bool send_to_owners(const Elements& elements,
                    const Indices& indices,
                    Value value,
                    runtime::reduce_op op,
                    std::vector<owner_share<T>>& shares) {
  runtime::window& w = elements.window(internal);
  const auto images = static_cast<std::size_t>(w.ranks());
  for (std::size_t img = 0; img < images; ++img) {
    if (elements.part_size(img) > UINT32_MAX)
      return false;
  }
  if (shares.size() != images) {
    shares.clear();
    shares.resize(images);
  }
  (void)sort_by_owner<true>(elements.distribution(), std::begin(indices), std::size(indices),
                            elements.size(), value, shares);
  // From the next image on, so that images do not all send to one owner first.
  const auto me = static_cast<std::size_t>(w.rank());
  for (std::size_t k = 1; k <= images; ++k) {
    const std::size_t img = (me + k) % images;
    owner_share<T>& s = shares[img];
    runtime::owner_updates::update_batch(w, static_cast<int>(img), elements.part_displacement(img),
                                         elements.part_size(img), s.offsets.held(), s.values.held(),
                                         op);
    s.offsets.clear();
    s.values.clear();
  }
  return true;
}

}  // namespace pgas::detail
