#pragma once
// Many updates `elements[i] op= v` at scattered indices, sent to the images owning them as one
// batch per owner that the owner applies itself (runtime/owner_updates.hpp): what aggregators and
// histograms do on containers without shared memory. One pass sorts the updates by owner; none
// are combined (the owner applies them in order, each a plain load and store).

#include <pgas/detail/internal_only.hpp>
#include <pgas/runtime/owner_updates.hpp>
#include <pgas/runtime/reduce_op.hpp>
#include <pgas/runtime/window.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pgas::detail {

/// One owner's share, kept between sendings for its room.
template <class T>
struct owner_share {
  std::vector<std::uint32_t> offsets;
  std::vector<T> values;
};

/// Sends elements[indices[u]] op= value(u) for every u to the owners, and returns true; returns
/// false, having sent nothing, when an image owns more elements than 32-bit offsets reach.
/// `elements`: a container's locked_elements, whose window owner_applies_updates(); indices
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
  if (shares.size() != images)
    shares.assign(images, {});
  std::size_t u = 0;
  for (const auto i : indices) {
    const auto place = elements.place_of(static_cast<std::size_t>(i));
    shares[place.image].offsets.push_back(static_cast<std::uint32_t>(place.offset));
    shares[place.image].values.push_back(static_cast<T>(value(u++)));
  }
  // From the next image on, so that images do not all send to one owner first.
  const auto me = static_cast<std::size_t>(w.rank());
  for (std::size_t k = 1; k <= images; ++k) {
    const std::size_t img = (me + k) % images;
    owner_share<T>& s = shares[img];
    runtime::owner_updates::update_batch(
        w, static_cast<int>(img), elements.part_displacement(img), elements.part_size(img),
        std::span<const std::uint32_t>(s.offsets), std::span<const T>(s.values), op);
    s.offsets.clear();
    s.values.clear();
  }
  return true;
}

}  // namespace pgas::detail
