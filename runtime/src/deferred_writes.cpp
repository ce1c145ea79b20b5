#include <pgas/runtime/deferred_writes.hpp>

#include <algorithm>
#include <vector>

namespace pgas::runtime {

namespace {
bool issuing = false;  // a holder's issue() may reach a sync point; it must not recurse
}  // namespace

deferred_writes::deferred_writes() {
  detail::deferred_write_holders.push_back(this);
}

deferred_writes::~deferred_writes() {
  auto& all = detail::deferred_write_holders;
  all.erase(std::remove(all.begin(), all.end(), this), all.end());
}

void detail::issue_registered_deferred_writes() {
  if (issuing)
    return;
  issuing = true;
  try {
    // A copy: issuing may create or destroy holders.
    const std::vector<deferred_writes*> now = deferred_write_holders;
    for (deferred_writes* h : now) {
      if (std::find(deferred_write_holders.begin(), deferred_write_holders.end(), h) !=
          deferred_write_holders.end()) {
        h->issue();
      }
    }
  } catch (...) {
    issuing = false;
    throw;
  }
  issuing = false;
}

}  // namespace pgas::runtime
