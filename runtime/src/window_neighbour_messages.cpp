// A neighbourhood exchange by two-sided messages (window::begin_neighbour_messages): the
// message form of a neighbourhood phase, for windows whose peers' memory is not mapped.
#include <pgas/runtime/error.hpp>
#include <pgas/runtime/held_write.hpp>
#include <pgas/runtime/messages.hpp>
#include <pgas/runtime/names.hpp>
#include <pgas/runtime/window.hpp>

#include "window_state.hpp"
#include <cstdint>
#include <string>

namespace pgas::runtime {

namespace {

// Tags below this one are the runtime's other point-to-point steps on a team's communicator
// (sync_images, the byte collectives); an exchange's messages never meet theirs.
constexpr int first_exchange_tag = 0x1000;

// The tag of a window's exchanges: from its name, which no other window of comm shares, so two
// arrays' exchanges in flight at once never take each other's messages, whatever order the
// images begin them in. Names count up per communicator: two live windows' tags differ unless
// some 28,000 objects were made between them (MPI guarantees tags up to 32767 only).
int exchange_tag(const window_state& s) {
  int* upper = nullptr;
  int found = 0;
  check(MPI_Comm_get_attr(s.comm, MPI_TAG_UB, static_cast<void*>(&upper), &found),
        "MPI_Comm_get_attr");
  const std::uint64_t tags =
      static_cast<std::uint64_t>((found != 0 ? *upper : 32767) - first_exchange_tag) + 1;
  const std::uint64_t count = s.name & ((std::uint64_t{1} << name_count_bits) - 1);
  return first_exchange_tag + static_cast<int>(count % tags);
}

bool all_complete(window_state& s) {
  int done = 0;
  check(MPI_Testall(static_cast<int>(s.neighbour_requests.size()), s.neighbour_requests.data(),
                    &done, MPI_STATUSES_IGNORE),
        "MPI_Testall");
  if (done == 0)
    return false;
  s.neighbour_requests.clear();
  s.messages_in_flight = false;
  return true;
}

void require_exchange(const window_state& s, const char* what) {
  if (!s.messages_in_flight)
    throw usage_error(std::string(what) + " outside an exchange by messages");
}

}  // namespace

void window::begin_neighbour_messages() {
  release_held_write();
  window_state& s = state();
  if (s.messages_in_flight || s.mode == epoch::neighbourhood) {
    throw usage_error(
        "an exchange with the neighbours begun while the last one is in flight: wait for it "
        "first");
  }
  if (s.neighbour_tag == 0)
    s.neighbour_tag = exchange_tag(s);
  s.messages_in_flight = true;
}

void window::receive_from_neighbour(void* into, int count, MPI_Datatype type, int source) {
  window_state& s = state();
  require_exchange(s, "receive_from_neighbour()");
  require_rank(s, source);
  MPI_Request& r = s.neighbour_requests.emplace_back(MPI_REQUEST_NULL);
  check(MPI_Irecv(into, count, type, source, s.neighbour_tag, s.comm, &r), "MPI_Irecv");
}

void window::send_to_neighbour(const void* from, int count, MPI_Datatype type, int target) {
  window_state& s = state();
  require_exchange(s, "send_to_neighbour()");
  require_rank(s, target);
  MPI_Request& r = s.neighbour_requests.emplace_back(MPI_REQUEST_NULL);
  check(MPI_Isend(from, count, type, target, s.neighbour_tag, s.comm, &r), "MPI_Isend");
}

void window::end_neighbour_messages() {
  window_state& s = state();
  require_exchange(s, "end_neighbour_messages()");
  messages::progress_until([&] { return all_complete(s); });
}

bool window::test_neighbour_messages() {
  window_state& s = state();
  require_exchange(s, "test_neighbour_messages()");
  return all_complete(s);
}

}  // namespace pgas::runtime
