// The message engine's order: one image's messages to another are handled in the order sent,
// even when a handler waits for room to send (its wait handles the messages after it, and
// must take them in order), and its messages to itself (which user code hands over without
// MPI and handlers through it) too. Write order between nodes rests on it: a post's message must
// not be handled before the writes sent ahead of it.
#include <pgas/pgas.hpp>
#include <pgas/runtime/messages.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <vector>

namespace {

namespace messages = pgas::runtime::messages;

// By source: the numbers of the messages handled here, in the order handled.
std::vector<std::vector<std::uint64_t>> numbers_from;
std::uint64_t handed_on_here = 0;

std::uint64_t number_in(std::span<const std::byte> payload) {
  std::uint64_t k = 0;
  std::memcpy(&k, payload.data(), sizeof k);
  return k;
}
void on_number(std::size_t source, std::span<const std::byte> payload) {
  numbers_from[source].push_back(number_in(payload));
}
void on_handed_on(std::size_t, std::span<const std::byte>) {
  ++handed_on_here;
}
// Sends a message of its own to the next image: with the budget spent it waits for room, and
// handles what has arrived meanwhile.
void on_hand_on(std::size_t, std::span<const std::byte> payload) {
  const std::size_t next = (pgas::this_image() + 1) % pgas::num_images();
  const auto room = messages::reserve(next, messages::name_of(&on_handed_on), payload.size());
  std::memcpy(room.data(), payload.data(), payload.size());
}

TEST(MessageOrder, one_images_messages_are_handled_in_the_order_sent_while_handlers_wait) {
  const std::size_t n = pgas::num_images();
  numbers_from.assign(n, {});
  handed_on_here = 0;
  pgas::sync_all();
  // To every image, numbered messages each followed by one whose handler sends a message; the
  // second's size varies, so each message is a run of its own.
  constexpr std::uint64_t count = 3000;
  const std::uint64_t number = messages::name_of(&on_number);
  const std::uint64_t hand_on = messages::name_of(&on_hand_on);
  for (std::uint64_t k = 0; k < count; ++k) {
    for (std::size_t to = 0; to < n; ++to) {
      std::memcpy(messages::reserve(to, number, sizeof k).data(), &k, sizeof k);
      const auto room = messages::reserve(to, hand_on, sizeof k + 8 * (k % 3));
      std::memset(room.data(), 0, room.size());
    }
  }
  pgas::sync_all();
  std::vector<std::uint64_t> in_order(count);
  std::iota(in_order.begin(), in_order.end(), std::uint64_t{0});
  for (std::size_t source = 0; source < n; ++source)
    EXPECT_EQ(numbers_from[source], in_order) << "from image " << source;
  EXPECT_EQ(pgas::co_sum(handed_on_here), count * n * n);
  pgas::sync_all();
}

// Messages an image sends itself, numbered as sent, from user code and from handlers: each
// handler checks it runs in that order, and every third sends another (which goes after all
// sent before it, user code's included).
std::uint64_t sent_to_self = 0;
std::uint64_t handled_from_self = 0;
std::uint64_t out_of_order_from_self = 0;
void on_own_number(std::size_t, std::span<const std::byte> payload);
// Numbered once reserved: handlers that run while it waits for room send theirs first.
void send_own_number() {
  const auto room = messages::reserve(pgas::this_image(), messages::name_of(&on_own_number),
                                      sizeof(std::uint64_t));
  const std::uint64_t k = sent_to_self++;
  std::memcpy(room.data(), &k, sizeof k);
}
void on_own_number(std::size_t, std::span<const std::byte> payload) {
  if (number_in(payload) != handled_from_self++)
    ++out_of_order_from_self;
  if (number_in(payload) % 3 == 0)
    send_own_number();
}

TEST(MessageOrder, an_images_messages_to_itself_are_handled_in_the_order_sent) {
  sent_to_self = 0;
  handled_from_self = 0;
  out_of_order_from_self = 0;
  pgas::sync_all();
  // Many buffers' worth, so that user code's full buffers and its handlers' alternate.
  constexpr std::uint64_t count = 400000;
  for (std::uint64_t k = 0; k < count; ++k) send_own_number();
  pgas::sync_all();
  EXPECT_EQ(out_of_order_from_self, 0U);
  EXPECT_EQ(handled_from_self, sent_to_self);
  EXPECT_GT(sent_to_self, count);
}

}  // namespace
