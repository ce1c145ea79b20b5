// Collectives on values that are not trivially copyable, through Boost.Serialization.
#include <pgas/pgas.hpp>
#include <pgas/serialization.hpp>

#include <boost/serialization/map.hpp>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace {

// A user's type, serialized the way Boost's documentation shows: a private member template,
// reachable by boost::serialization::access.
class sample {
 public:
  sample() = default;
  sample(std::string label, std::vector<double> values)
      : label_{std::move(label)}, values_{std::move(values)} {}
  [[nodiscard]] const std::string& label() const { return label_; }
  [[nodiscard]] const std::vector<double>& values() const { return values_; }
  friend bool operator==(const sample&, const sample&) = default;

 private:
  friend class boost::serialization::access;
  template <class Archive>
  void serialize(Archive& archive, unsigned /*version*/) {
    archive& label_& values_;
  }
  std::string label_;
  std::vector<double> values_;
};

std::string word_of(std::size_t img) {
  return "image" + std::to_string(img);
}

TEST(Serialization, co_broadcast_copies_strings_vectors_and_user_types_from_any_image) {
  for (std::size_t source = 0; source < pgas::num_images(); ++source) {
    const std::string s = pgas::co_broadcast(word_of(pgas::this_image()), source);
    EXPECT_EQ(s, word_of(source));
    std::vector<std::string> words(pgas::this_image() + 1, word_of(pgas::this_image()));
    words = pgas::co_broadcast(words, source);
    EXPECT_EQ(words, std::vector<std::string>(source + 1, word_of(source)));
    const sample got = pgas::co_broadcast(
        sample(word_of(pgas::this_image()), {1.5, static_cast<double>(pgas::this_image())}),
        source);
    EXPECT_EQ(got, sample(word_of(source), {1.5, static_cast<double>(source)}));
    std::map<std::string, int> m{{word_of(pgas::this_image()), 1}};
    m = pgas::co_broadcast(m, source);
    EXPECT_EQ(m, (std::map<std::string, int>{{word_of(source), 1}}));
  }
}

TEST(Serialization, a_large_value_travels_whole) {
  std::string big;
  if (pgas::this_image() == 0) {
    for (int k = 0; k < 200000; ++k) big += static_cast<char>('a' + k % 26);
  }
  big = pgas::co_broadcast(big, 0);
  ASSERT_EQ(big.size(), 200000U);
  EXPECT_EQ(big[199999], static_cast<char>('a' + 199999 % 26));
}

TEST(Serialization, co_reduce_folds_in_image_order_everywhere_or_on_one_image) {
  const auto join = [](const std::string& a, const std::string& b) { return a + "," + b; };
  std::string want = word_of(0);
  for (std::size_t img = 1; img < pgas::num_images(); ++img) want.append(",").append(word_of(img));
  EXPECT_EQ(pgas::co_reduce(word_of(pgas::this_image()), join), want);
  for (std::size_t result = 0; result < pgas::num_images(); ++result) {
    const std::string got = pgas::co_reduce(word_of(pgas::this_image()), join, result);
    EXPECT_EQ(got, pgas::this_image() == result ? want : word_of(pgas::this_image()));
  }
  // A user type: the samples' values concatenated, the labels of the first kept.
  const sample mine(word_of(pgas::this_image()), {static_cast<double>(pgas::this_image())});
  const sample all = pgas::co_reduce(mine, [](const sample& a, const sample& b) {
    std::vector<double> v = a.values();
    v.insert(v.end(), b.values().begin(), b.values().end());
    return sample(a.label(), v);
  });
  EXPECT_EQ(all.label(), word_of(0));
  ASSERT_EQ(all.values().size(), pgas::num_images());
  for (std::size_t img = 0; img < pgas::num_images(); ++img)
    EXPECT_EQ(all.values()[img], static_cast<double>(img));
}

// A reduction's operation may call other images, and the image it calls may be waiting in the
// same reduction to hand its value on: the value is past any eager limit, so that image's send
// waits for its receiver, image 0, which is in the operation, waiting for the call's answer.
TEST(Serialization, an_image_waiting_in_a_reduction_serves_calls_of_its_operation) {
  const std::size_t p = pgas::num_images();
  std::size_t called = 0;  // the last image to hand its partial value to image 0
  for (std::size_t d = 1; d < p; d *= 2) called = d;
  pgas::dist_object<long> calls(0L);
  const auto longer_after_a_call = [&calls, called](const std::string& a, const std::string& b) {
    EXPECT_GE(pgas::rpc(
                  called, [](pgas::dist_object<long>& d) { return ++*d; }, calls)
                  .get(),
              1L);
    return a.size() >= b.size() ? a : b;
  };
  const std::string big(std::size_t{1} << 20, static_cast<char>('a' + pgas::this_image() % 26));
  EXPECT_EQ(pgas::co_reduce(big, longer_after_a_call).size(), big.size());
  EXPECT_EQ(pgas::co_max(*calls), static_cast<long>(p - 1));
}

TEST(Serialization, co_gather_collects_every_value_in_image_order_on_one_image) {
  for (std::size_t result = 0; result < pgas::num_images(); ++result) {
    const std::vector<std::string> words =
        pgas::co_gather(std::string(pgas::this_image(), 'x'), result);
    const std::vector<int> numbers =
        pgas::co_gather(static_cast<int>(10 * pgas::this_image()), result);
    if (pgas::this_image() != result) {
      EXPECT_TRUE(words.empty());
      EXPECT_TRUE(numbers.empty());
      continue;
    }
    ASSERT_EQ(words.size(), pgas::num_images());
    ASSERT_EQ(numbers.size(), pgas::num_images());
    for (std::size_t img = 0; img < pgas::num_images(); ++img) {
      EXPECT_EQ(words[img], std::string(img, 'x'));
      EXPECT_EQ(numbers[img], static_cast<int>(10 * img));
    }
  }
}

TEST(Serialization, remote_calls_carry_archived_arguments_and_results) {
  // A user's type and a std::map as arguments, an archived result, to the next image.
  const std::size_t next = (pgas::this_image() + 1) % pgas::num_images();
  const sample s("from " + std::to_string(pgas::this_image()), {1.5, 2.5});
  const std::map<std::string, int> counts{{"a", 1}, {"b", static_cast<int>(pgas::this_image())}};
  auto answer = pgas::rpc(
      next,
      [](const sample& in, const std::map<std::string, int>& m) {
        std::vector<double> v = in.values();
        v.push_back(static_cast<double>(m.at("b")));
        return sample(in.label() + " at " + std::to_string(pgas::this_image()), v);
      },
      s, counts);
  const sample got = answer.get();
  EXPECT_EQ(got.label(),
            "from " + std::to_string(pgas::this_image()) + " at " + std::to_string(next));
  EXPECT_EQ(got.values(), (std::vector<double>{1.5, 2.5, static_cast<double>(pgas::this_image())}));
  // Fire and forget, with a vector of archived values: each image records what it received.
  static std::vector<sample> received;
  received.clear();
  pgas::sync_all();
  pgas::rpc_ff(
      next, [](const std::vector<sample>& all) { received = all; },
      std::vector<sample>{s, sample("second", {})});
  pgas::sync_all();
  const std::size_t previous = (pgas::this_image() + pgas::num_images() - 1) % pgas::num_images();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0], sample("from " + std::to_string(previous), {1.5, 2.5}));
  EXPECT_EQ(received[1], sample("second", {}));
  pgas::sync_all();
}

}  // namespace
