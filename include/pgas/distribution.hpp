#pragma once
// Distributions: how a global index range [0, n) is split over images. Each maps a global index
// to (owning image, local offset) and back; the owner's displacement is the local offset in
// units of sizeof(T).

#include <pgas/detail/divisor.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pgas {

/// Which family a distribution belongs to, for layout comparisons: block (and sized_blocks,
/// which is image-ordered like block), cyclic, block_cyclic.
/// How a distributed range is laid out: a 1-D distribution's kind, or an ndarray's tiles.
enum class distribution_kind { block, cyclic, block_cyclic, tiles };

/// What every distribution offers; all of it is local, pure index arithmetic.
template <class D>
concept distribution = std::copyable<D> && requires(const D d, std::size_t i, std::size_t img) {
  { d.bind(i, img) } -> std::same_as<D>;
  { d.size() } -> std::same_as<std::size_t>;
  { d.images() } -> std::same_as<std::size_t>;
  { d.owner(i) } -> std::same_as<std::size_t>;
  { d.local_offset(i) } -> std::same_as<std::size_t>;
  { d.local_size(img) } -> std::same_as<std::size_t>;
  { d.global_index(img, i) } -> std::same_as<std::size_t>;
  { d.run_end(i) } -> std::same_as<std::size_t>;
  { d.kind() } -> std::same_as<distribution_kind>;
  { d.parameter() } -> std::same_as<std::size_t>;
  { d.cut_digest() } -> std::same_as<std::size_t>;
};

namespace detail {
/// The layout parameters of distributions that size and image count decide alone: no block
/// size, no given cuts.
struct without_layout_parameters {
  /// The block size for block_cyclic; 0 for the others.
  [[nodiscard]] std::size_t parameter() const noexcept { return 0; }
  /// A digest of given per-image sizes (sized_blocks); 0 where size and image count decide.
  [[nodiscard]] std::size_t cut_digest() const noexcept { return 0; }
  friend bool operator==(const without_layout_parameters&,
                         const without_layout_parameters&) noexcept = default;
};
}  // namespace detail

/// Contiguous blocks, as even as possible: the first n % p images own one element more.
/// The default distribution.
class block : public detail::without_layout_parameters {
 public:
  block() noexcept = default;
  /// This distribution laid over n elements and p images. Local.
  [[nodiscard]] block bind(std::size_t n, std::size_t p) const noexcept {
    block b;
    b.n_ = n;
    b.p_ = p == 0 ? 1 : p;
    b.small_ = b.n_ / b.p_;
    b.big_count_ = b.n_ % b.p_;
    b.per_small_ = detail::divisor(b.small_);
    b.per_big_ = detail::divisor(b.small_ + 1);
    return b;
  }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] std::size_t images() const noexcept { return p_; }
  [[nodiscard]] std::size_t owner(std::size_t i) const noexcept {
    const std::size_t big_end = big_count_ * (small_ + 1);
    return i < big_end ? i / per_big_ : big_count_ + (i - big_end) / per_small_;
  }
  [[nodiscard]] std::size_t local_offset(std::size_t i) const noexcept {
    return i - first_of(owner(i));
  }
  [[nodiscard]] std::size_t local_size(std::size_t img) const noexcept {
    return img < big_count_ ? small_ + 1 : (img < p_ ? small_ : 0);
  }
  [[nodiscard]] std::size_t global_index(std::size_t img, std::size_t offset) const noexcept {
    return first_of(img) + offset;
  }
  /// One past the last index of the run of consecutive indices, starting at i, that one image
  /// stores consecutively.
  [[nodiscard]] std::size_t run_end(std::size_t i) const noexcept {
    const std::size_t img = owner(i);
    return first_of(img) + local_size(img);
  }
  /// The global index of image img's first element (n when it owns none). Local.
  [[nodiscard]] std::size_t first_of(std::size_t img) const noexcept {
    return img * small_ + std::min(img, big_count_);
  }
  [[nodiscard]] distribution_kind kind() const noexcept { return distribution_kind::block; }
  [[nodiscard]] static std::string name() { return "block"; }
  friend bool operator==(const block&, const block&) noexcept = default;

 private:
  std::size_t n_ = 0;
  std::size_t p_ = 1;
  std::size_t small_ = 0;
  std::size_t big_count_ = 0;
  detail::divisor per_small_;  // small_ and small_ + 1, as divisors
  detail::divisor per_big_;
};

/// Blocks of b consecutive elements dealt round-robin to the images.
class block_cyclic {
 public:
  block_cyclic() noexcept = default;
  /// Blocks of `block_size` elements (0 is taken as 1).
  explicit block_cyclic(std::size_t block_size) noexcept
      : b_{block_size == 0 ? 1 : block_size}, per_block_{b_} {}
  [[nodiscard]] block_cyclic bind(std::size_t n, std::size_t p) const noexcept {
    block_cyclic d = *this;
    d.n_ = n;
    d.p_ = p == 0 ? 1 : p;
    d.per_image_ = detail::divisor(d.p_);
    return d;
  }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] std::size_t images() const noexcept { return p_; }
  [[nodiscard]] std::size_t block_size() const noexcept { return b_; }
  /// The image count as a divisor, for the cyclic case. Local.
  [[nodiscard]] const detail::divisor& image_divisor() const noexcept { return per_image_; }
  [[nodiscard]] std::size_t owner(std::size_t i) const noexcept {
    return (i / per_block_) % per_image_;
  }
  [[nodiscard]] std::size_t local_offset(std::size_t i) const noexcept {
    const std::size_t blk = i / per_block_;
    return (blk / per_image_) * b_ + (i - blk * b_);
  }
  [[nodiscard]] std::size_t local_size(std::size_t img) const noexcept {
    if (img >= p_)
      return 0;
    const std::size_t full_blocks = n_ / b_;
    const std::size_t tail = n_ % b_;
    std::size_t count = (full_blocks / p_ + (img < full_blocks % p_ ? 1 : 0)) * b_;
    if (tail != 0 && img == full_blocks % p_)
      count += tail;  // the last, partial block
    return count;
  }
  [[nodiscard]] std::size_t global_index(std::size_t img, std::size_t offset) const noexcept {
    const std::size_t blk = offset / per_block_;
    return (blk * p_ + img) * b_ + (offset - blk * b_);
  }
  [[nodiscard]] std::size_t run_end(std::size_t i) const noexcept {
    return std::min(n_, (i / b_ + 1) * b_);
  }
  [[nodiscard]] distribution_kind kind() const noexcept { return distribution_kind::block_cyclic; }
  [[nodiscard]] std::size_t parameter() const noexcept { return b_; }
  [[nodiscard]] std::size_t cut_digest() const noexcept { return 0; }
  [[nodiscard]] std::string name() const { return "block_cyclic(" + std::to_string(b_) + ")"; }
  friend bool operator==(const block_cyclic&, const block_cyclic&) noexcept = default;

 private:
  std::size_t b_ = 1;
  std::size_t n_ = 0;
  std::size_t p_ = 1;
  detail::divisor per_block_;  // b_ and p_, as divisors
  detail::divisor per_image_;
};

/// Elements dealt round-robin: element i lives on image i % p.
class cyclic : public detail::without_layout_parameters {
 public:
  cyclic() noexcept = default;
  [[nodiscard]] cyclic bind(std::size_t n, std::size_t p) const noexcept {
    cyclic d;
    d.impl_ = block_cyclic(1).bind(n, p);
    return d;
  }
  [[nodiscard]] std::size_t size() const noexcept { return impl_.size(); }
  [[nodiscard]] std::size_t images() const noexcept { return impl_.images(); }
  [[nodiscard]] std::size_t owner(std::size_t i) const noexcept {
    return i % impl_.image_divisor();
  }
  [[nodiscard]] std::size_t local_offset(std::size_t i) const noexcept {
    return i / impl_.image_divisor();
  }
  [[nodiscard]] std::size_t local_size(std::size_t img) const noexcept {
    return impl_.local_size(img);
  }
  [[nodiscard]] std::size_t global_index(std::size_t img, std::size_t offset) const noexcept {
    return offset * impl_.images() + img;
  }
  [[nodiscard]] std::size_t run_end(std::size_t i) const noexcept { return i + 1; }
  [[nodiscard]] distribution_kind kind() const noexcept { return distribution_kind::cyclic; }
  [[nodiscard]] static std::string name() { return "cyclic"; }
  friend bool operator==(const cyclic&, const cyclic&) noexcept = default;

 private:
  block_cyclic impl_ = block_cyclic(1);
};

/// Consecutive blocks of given sizes: image img owns [starts[img], starts[img + 1]). What a
/// pgas::vector has after its images appended different numbers of elements.
class sized_blocks {
 public:
  sized_blocks() : starts_{0, 0} {}
  /// Blocks of counts[0], counts[1], ... elements, one per image.
  explicit sized_blocks(const std::vector<std::size_t>& counts) : starts_{0} {
    for (std::size_t c : counts) starts_.push_back(starts_.back() + c);
    if (counts.empty())
      starts_.push_back(0);
    // An order-sensitive digest of the counts (FNV-1a), so that differently cut ranges do not
    // count as aligned; never 0, which is what distributions without given cuts say.
    std::uint64_t h = 1469598103934665603ULL;
    for (std::size_t c : counts) h = (h ^ c) * 1099511628211ULL;
    digest_ = static_cast<std::size_t>(h | 1U);
  }
  /// The sizes are fixed already: returns itself. Local.
  [[nodiscard]] sized_blocks bind(std::size_t, std::size_t) const { return *this; }
  [[nodiscard]] std::size_t size() const noexcept { return starts_.back(); }
  [[nodiscard]] std::size_t images() const noexcept { return starts_.size() - 1; }
  [[nodiscard]] std::size_t owner(std::size_t i) const noexcept {
    // The last image whose block starts at or before i (empty blocks share a start).
    return static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end() - 1, i) -
                                    starts_.begin()) -
           1;
  }
  [[nodiscard]] std::size_t local_offset(std::size_t i) const noexcept {
    return i - starts_[owner(i)];
  }
  [[nodiscard]] std::size_t local_size(std::size_t img) const noexcept {
    return img < images() ? starts_[img + 1] - starts_[img] : 0;
  }
  [[nodiscard]] std::size_t global_index(std::size_t img, std::size_t offset) const noexcept {
    return starts_[img] + offset;
  }
  [[nodiscard]] std::size_t run_end(std::size_t i) const noexcept { return starts_[owner(i) + 1]; }
  [[nodiscard]] std::size_t first_of(std::size_t img) const noexcept { return starts_[img]; }
  /// Image-ordered, like block: global order is image 0's part, then image 1's, ...
  [[nodiscard]] distribution_kind kind() const noexcept { return distribution_kind::block; }
  [[nodiscard]] std::size_t parameter() const noexcept { return 0; }
  [[nodiscard]] std::size_t cut_digest() const noexcept { return digest_; }
  friend bool operator==(const sized_blocks&, const sized_blocks&) = default;

 private:
  std::vector<std::size_t> starts_;
  std::size_t digest_ = 1;
};

static_assert(distribution<block>);
static_assert(distribution<sized_blocks>);
static_assert(distribution<cyclic>);
static_assert(distribution<block_cyclic>);

}  // namespace pgas
