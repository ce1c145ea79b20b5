#include <pgas/runtime/runs.hpp>

#include <algorithm>
#include <string>

namespace pgas::runtime {

MPI_Aint element_runs::lowest() const noexcept {
  return starts_.empty() ? 0 : *std::min_element(starts_.begin(), starts_.end());
}

MPI_Aint element_runs::end() const noexcept {
  MPI_Aint out = 0;
  for (std::size_t k = 0; k < starts_.size(); ++k) {
    out = std::max(out, starts_[k] + static_cast<MPI_Aint>(lengths_[k]));
  }
  return out;
}

runs_datatype datatype_of_runs(const element_runs& runs,
                               MPI_Datatype base,
                               int per_element,
                               std::size_t element_bytes,
                               bool may_offset) {
  const std::size_t n = runs.starts().size();
  const MPI_Aint first = n == 0 ? 0 : runs.starts().front();
  const bool offset_ok = first == 0 || (may_offset && first > 0);
  if (n == 1 && offset_ok) {
    mpi_count c(base, runs.elements() * static_cast<std::size_t>(per_element));
    const MPI_Datatype type = c.type();
    return {c.take_derived(), type, c.count(), first};
  }
  // Equal runs at equal spacing (strided transfers): a vector type, cheaper to build and walk
  // than a list of every run.
  bool progression = n >= 2 && offset_ok && runs.starts()[1] > first;
  const MPI_Aint spacing = progression ? runs.starts()[1] - first : 0;
  for (std::size_t k = 1; progression && k < n; ++k) {
    progression = runs.lengths()[k] == runs.lengths()[0] &&
                  runs.starts()[k] - runs.starts()[k - 1] == spacing;
  }
  // Groups of such runs, equally spaced themselves (a box of three dimensions, as a patch of an
  // n-dimensional array cuts from a tile): a vector of vectors, the shape a subarray type has.
  std::size_t group = 0;  // runs per group
  MPI_Aint group_spacing = 0;
  if (!progression && n >= 4 && offset_ok && runs.starts()[1] > first) {
    group = 1;
    while (group < n && runs.starts()[group] - runs.starts()[group - 1] == spacing) ++group;
    bool regular = group >= 2 && group < n && n % group == 0;
    group_spacing = regular ? runs.starts()[group] - first : 0;
    regular = regular && group_spacing > runs.starts()[group - 1] - first;
    for (std::size_t k = 0; regular && k < n; ++k) {
      const MPI_Aint want = first + static_cast<MPI_Aint>(k / group) * group_spacing +
                            static_cast<MPI_Aint>(k % group) * spacing;
      regular = runs.starts()[k] == want && runs.lengths()[k] == runs.lengths()[0];
    }
    if (!regular)
      group = 0;
  }
  owned_datatype t;
  MPI_Aint offset = 0;
  if (group != 0) {
    owned_datatype inner;
    check(MPI_Type_create_hvector(
              to_count(group), to_count(runs.lengths()[0] * static_cast<std::size_t>(per_element)),
              spacing * static_cast<MPI_Aint>(element_bytes), base, inner.out()),
          "MPI_Type_create_hvector");
    check(MPI_Type_create_hvector(to_count(n / group), 1,
                                  group_spacing * static_cast<MPI_Aint>(element_bytes), inner.get(),
                                  t.out()),
          "MPI_Type_create_hvector");
    offset = first;
  } else if (progression) {
    check(MPI_Type_create_hvector(
              to_count(n), to_count(runs.lengths()[0] * static_cast<std::size_t>(per_element)),
              spacing * static_cast<MPI_Aint>(element_bytes), base, t.out()),
          "MPI_Type_create_hvector");
    offset = first;
  } else {
    std::vector<int> lengths(n);
    std::vector<MPI_Aint> bytes(n);
    for (std::size_t k = 0; k < n; ++k) {
      lengths[k] = to_count(runs.lengths()[k] * static_cast<std::size_t>(per_element));
      bytes[k] = runs.starts()[k] * static_cast<MPI_Aint>(element_bytes);
    }
    check(MPI_Type_create_hindexed(to_count(n), lengths.data(), bytes.data(), base, t.out()),
          "MPI_Type_create_hindexed");
  }
  check(MPI_Type_commit(t.out()), "MPI_Type_commit");
  const MPI_Datatype handle = t.get();
  return {std::move(t), handle, 1, offset};
}

void put_prepared(window& w, const void* from, const prepared_put& p) {
  if (p.bytes == 0)
    return;
  const window::access a = w.writing_to(p.target_rank, p.disp, p.target_bytes);
  const auto* origin = static_cast<const std::byte*>(from) + p.origin_byte_offset;
  check(MPI_Put(origin, p.origin.count, p.origin.type, p.target_rank, a.disp, p.target.count,
                p.target.type, a.handle),
        "MPI_Put");
  statistics::count(&rma_stats::puts, p.bytes);
  if (a.passive)
    detail::complete_locally(a.handle, p.target_rank);
}

void send_prepared(window& w, const void* from, const prepared_put& p) {
  if (p.bytes == 0)
    return;
  const auto* origin = static_cast<const std::byte*>(from) + p.origin_byte_offset;
  w.send_to_neighbour(origin, p.origin.count, p.origin.type, p.target_rank);
}

void receive_prepared(window& w, void* into, const prepared_receive& r) {
  if (r.bytes == 0)
    return;
  w.receive_from_neighbour(static_cast<std::byte*>(into) + r.byte_offset, r.into.count, r.into.type,
                           r.source_rank);
}

namespace detail {
void require_same_elements(const element_runs& origin,
                           const element_runs& target,
                           const char* what) {
  if (origin.elements() != target.elements()) {
    throw usage_error(std::string(what) + ": the origin has " + std::to_string(origin.elements()) +
                      " elements and the target " + std::to_string(target.elements()));
  }
}
}  // namespace detail

}  // namespace pgas::runtime
