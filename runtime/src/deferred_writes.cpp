#include <pgas/runtime/deferred_writes.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace pgas::runtime {

namespace {
bool issuing = false;  // a holder's issue() may reach a sync point; it must not recurse
// The holders being issued, taken off the list: one destroyed meanwhile is cleared here.
std::vector<deferred_writes*>* being_issued = nullptr;
}  // namespace

void deferred_writes::list() {
  listed_ = true;
  detail::holders_holding_writes.push_back(this);
}

deferred_writes::~deferred_writes() {
  if (listed_) {
    auto& listed = detail::holders_holding_writes;
    listed.erase(std::find(listed.begin(), listed.end(), this));
  }
  if (being_issued != nullptr)
    std::replace(being_issued->begin(), being_issued->end(), this,
                 static_cast<deferred_writes*>(nullptr));
}

void detail::issue_registered_deferred_writes() {
  if (issuing)
    return;
  issuing = true;
  // Taken off the list first: a holder that takes writes while others are issued (a handler
  // run meanwhile) lists itself again, for this sync point's caller to find next time.
  std::vector<deferred_writes*> now;
  now.swap(holders_holding_writes);
  for (deferred_writes* h : now) h->listed_ = false;
  being_issued = &now;
  std::size_t k = 0;
  try {
    for (; k < now.size(); ++k) {
      if (now[k] != nullptr)
        now[k]->issue();
    }
  } catch (...) {
    // The one that failed may still hold some, those not reached do: listed again for the next
    // sync point.
    for (std::size_t j = k; j < now.size(); ++j) {
      if (now[j] != nullptr)
        now[j]->holding();
    }
    being_issued = nullptr;
    issuing = false;
    throw;
  }
  being_issued = nullptr;
  issuing = false;
}

}  // namespace pgas::runtime
