#include <pgas/runtime/error.hpp>
#include <pgas/runtime/lifetime.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pgas::runtime {
namespace {

// Slot 0 stays 0 for ever: tokens made by no object. Constant-initialised, so a check made
// before any lifetime exists reads a valid table.
constexpr std::uint32_t never_ending[1] = {0};

// The table behind detail::lifetime_generations once a lifetime exists, and the slots whose
// objects are gone (reused last-in first-out; their generation was bumped when they ended).
struct lifetime_table {
  std::vector<std::uint32_t> generations{0};
  std::vector<std::uint32_t> free_slots;
};
// Never destroyed: a lifetime ending after static destruction began (a container a program
// kept in a static) must still find its slot, and the handles their generations.
lifetime_table& table() {
  static auto* t = new lifetime_table;
  return *t;
}

}  // namespace

namespace detail {
const std::uint32_t* lifetime_generations = never_ending;

void throw_lifetime_ended(const char* what) {
  throw usage_error(std::string(what) +
                    " used after its container was destroyed or moved from: a handle "
                    "(global_ref, global_ptr, iterator, future, halo exchange) is valid only "
                    "while the container it came from lives where it was made");
}
}  // namespace detail

lifetime::lifetime() {
  lifetime_table& t = table();
  if (t.free_slots.empty()) {
    slot_ = static_cast<std::uint32_t>(t.generations.size());
    t.generations.push_back(1);
    detail::lifetime_generations = t.generations.data();  // the table may have moved
  } else {
    slot_ = t.free_slots.back();
    t.free_slots.pop_back();
  }
}

lifetime::~lifetime() {
  renew();
  table().free_slots.push_back(slot_);
}

void lifetime::renew() noexcept {
  ++table().generations[slot_];
}

}  // namespace pgas::runtime
