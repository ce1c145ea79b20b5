#pragma once
// pgas::detail::batches_to_owners: the way every sparse kernel hands work to the image that owns
// it. Items bound for an image are held here and sent as batches one engine message carries
// (naming the team's dist_object of the kernel's state); the owner applies each batch to its
// state itself where the engine received it, with plain loads and stores. This image's own items
// are applied here, at deliver(), without a message. deliver() is the kernel's round: when it
// returns, every item any image pushed before it has been applied.

#include <pgas/detail/wire.hpp>
#include <pgas/dist_object.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/sync.hpp>
#include <pgas/runtime/team.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace pgas::detail {

/// `Apply(state, source, items)` runs on the owner for each batch (source: the sender's number
/// in the team). State lives as long as this object; constructing and destroying it are
/// collective over the team.
template <class Item, class State, void (*Apply)(State&, std::size_t, std::span<const Item>)>
class batches_to_owners {
  static_assert(std::is_trivially_copyable_v<Item>, "batched items travel as bytes");
  static_assert(alignof(Item) <= 8, "batched items are read where the engine received them");

 public:
  batches_to_owners(const pgas::team& t, State& state)
      : team_{t},
        me_{t.this_image()},
        state_{t, &state},
        held_(t.size()),
        // A quarter of the largest message: the engine packs several batches into a buffer,
        // and a batch goes sooner than a whole buffer's worth would.
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

 private:
  // The handler at the owner: the batch is applied where the engine received it, no copy.
  // Payload: the state's dist_object, the sender's number, the count, then the items.
  static void on_batch(std::size_t, std::span<const std::byte> payload) {
    const std::byte* at = payload.data();
    dist_object<State*>& box = wire::codec<dist_object<State*>>::read(at);
    std::uint64_t words[2];
    std::memcpy(words, at, sizeof words);
    at += sizeof words;
    // The engine's payloads are 8-byte aligned, and so is the header: the items lie aligned.
    Apply(**box, static_cast<std::size_t>(words[0]),
          std::span<const Item>(reinterpret_cast<const Item*>(at),
                                static_cast<std::size_t>(words[1])));
  }
  static std::uint64_t handler_name() {
    static const std::uint64_t name = runtime::messages::name_of(&on_batch);
    return name;
  }
  static constexpr std::size_t header_bytes = 3 * sizeof(std::uint64_t);

  // Copies the held batch into one engine message and empties it, keeping its room.
  void send(std::size_t image) {
    std::vector<Item>& batch = held_[image];
    std::byte* at = runtime::messages::reserve(team_.world_image(image), handler_name(),
                                               header_bytes + batch.size() * sizeof(Item))
                        .data();
    wire::codec<dist_object<State*>>::write(at, state_);
    const std::uint64_t words[2] = {me_, batch.size()};
    std::memcpy(at, words, sizeof words);
    std::memcpy(at + sizeof words, static_cast<const void*>(batch.data()),
                batch.size() * sizeof(Item));
    batch.clear();
  }

  pgas::team team_;
  std::size_t me_;
  dist_object<State*> state_;
  std::vector<std::vector<Item>> held_;
  std::size_t per_batch_;
};

}  // namespace pgas::detail
