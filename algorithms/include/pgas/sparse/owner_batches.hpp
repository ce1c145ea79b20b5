#pragma once
// pgas::detail::batches_to_owners: the way every sparse kernel hands work to the image that owns
// it. Items bound for an image are held here and sent as batches one engine message carries (a
// remote call naming the team's dist_object of the kernel's state); the owner applies each batch
// to its state itself, with plain loads and stores. This image's own items are applied here, at
// deliver(), without a message. deliver() is the kernel's round: when it returns, every item any
// image pushed before it has been applied.

#include <pgas/dist_object.hpp>
#include <pgas/rpc.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace pgas::detail {

/// `Apply(state, source, items)` runs on the owner for each batch (source: the sender's number
/// in the team). State lives as long as this object; constructing and destroying it are
/// collective over the team.
template <class Item, class State, void (*Apply)(State&, std::size_t, std::span<const Item>)>
class batches_to_owners {
  static_assert(std::is_trivially_copyable_v<Item>, "batched items travel as bytes");

 public:
  batches_to_owners(const pgas::team& t, State& state)
      : team_{t},
        me_{t.this_image()},
        state_{t, &state},
        held_(t.size()),
        // The batch's length and the call's own words leave room: a quarter of a message.
        per_batch_{
            std::max<std::size_t>(1, runtime::messages::max_message_bytes() / 4 / sizeof(Item))} {}
  batches_to_owners(const batches_to_owners&) = delete;
  batches_to_owners& operator=(const batches_to_owners&) = delete;

  /// Holds `item` for `image` (a number in the team); sends the held batch when it is full.
  /// Local. Batches from other images may be applied to this image's state meanwhile (sending
  /// makes progress), so a kernel never pushes while walking what its handler changes.
  void push(std::size_t image, const Item& item) {
    std::vector<Item>& h = held_[image];
    h.push_back(item);
    if (h.size() >= per_batch_ && image != me_)
      send(image);
  }

  /// Collective over the team: sends what is held, applies this image's own items, and returns
  /// once every image's items have been applied everywhere. Handlers do not push.
  void deliver() {
    for (std::size_t img = 0; img < held_.size(); ++img) {
      if (img != me_ && !held_[img].empty())
        send(img);
    }
    if (!held_[me_].empty()) {
      std::vector<Item> own;
      own.swap(held_[me_]);
      Apply(**state_, me_, std::span<const Item>(own));
    }
    runtime::sync_all(team_.native());  // every batch handled, on every image
  }

  /// This image's state. Local.
  [[nodiscard]] State& state() noexcept { return **state_; }

 private:
  // Encodes the held batch into a message and empties it, keeping its room for the next.
  void send(std::size_t image) {
    std::vector<Item>& batch = held_[image];
    detail::remote::rpc_ff_world(
        team_.world_image(image),
        [](dist_object<State*>& box, std::size_t from, std::vector<Item> items) {
          Apply(**box, from, std::span<const Item>(items));
        },
        state_, me_, batch);
    batch.clear();
  }

  pgas::team team_;
  std::size_t me_;
  dist_object<State*> state_;
  std::vector<std::vector<Item>> held_;
  std::size_t per_batch_;
};

}  // namespace pgas::detail
