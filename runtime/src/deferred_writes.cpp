#include <pgas/runtime/deferred_writes.hpp>

#include <algorithm>
#include <vector>

namespace pgas::runtime {

namespace {
std::vector<deferred_writes*>& holders() {
  static std::vector<deferred_writes*> all;
  return all;
}
bool issuing = false;  // a holder's issue() may reach a sync point; it must not recurse
}  // namespace

deferred_writes::deferred_writes() {
  holders().push_back(this);
  detail::deferred_write_holders = holders().size();
}

deferred_writes::~deferred_writes() {
  auto& all = holders();
  all.erase(std::remove(all.begin(), all.end(), this), all.end());
  detail::deferred_write_holders = all.size();
}

void detail::issue_registered_deferred_writes() {
  if (issuing) return;
  issuing = true;
  try {
    // A copy: issuing may create or destroy holders.
    const std::vector<deferred_writes*> now = holders();
    for (deferred_writes* h : now) {
      if (std::find(holders().begin(), holders().end(), h) != holders().end()) h->issue();
    }
  } catch (...) {
    issuing = false;
    throw;
  }
  issuing = false;
}

}  // namespace pgas::runtime
