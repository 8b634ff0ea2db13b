#include "histogram.hpp"

#include <algorithm>
#include <cmath>

namespace ttb {

namespace {

constexpr std::uint64_t linear_limit = histogram::sub_count * 2; // 256

constexpr std::size_t bucket_total
  = linear_limit
    + (histogram::max_bits - histogram::sub_bits) * histogram::sub_count;

unsigned msb(std::uint64_t v) noexcept {
  return 63u - static_cast<unsigned>(__builtin_clzll(v));
}

} // namespace

histogram::histogram() : buckets_(bucket_total, 0) {
}

std::size_t histogram::bucket_of(std::uint64_t ns) noexcept {
  if (ns < linear_limit)
    return static_cast<std::size_t>(ns);
  // ns >= 256: its top sub_bits+1 bits pick the bucket within its octave.
  unsigned shift = msb(ns) - sub_bits; // >= 1
  std::uint64_t mantissa = ns >> shift; // in [128, 255]
  std::size_t index = linear_limit + (shift - 1) * sub_count
                      + static_cast<std::size_t>(mantissa - sub_count);
  return std::min(index, bucket_total - 1);
}

std::uint64_t histogram::bucket_low(std::size_t index) noexcept {
  if (index < linear_limit)
    return index;
  std::size_t rel = index - linear_limit;
  unsigned shift = static_cast<unsigned>(rel / sub_count) + 1;
  std::uint64_t mantissa = sub_count + rel % sub_count;
  return mantissa << shift;
}

std::uint64_t histogram::bucket_high(std::size_t index) noexcept {
  if (index < linear_limit)
    return index;
  std::size_t rel = index - linear_limit;
  unsigned shift = static_cast<unsigned>(rel / sub_count) + 1;
  return bucket_low(index) + (std::uint64_t{1} << shift) - 1;
}

void histogram::record(std::uint64_t ns) noexcept {
  ++buckets_[bucket_of(ns)];
  if (count_ == 0 || ns < min_)
    min_ = ns;
  if (ns > max_)
    max_ = ns;
  ++count_;
  sum_ += static_cast<double>(ns);
}

void histogram::merge(const histogram& other) {
  if (other.count_ == 0)
    return;
  for (std::size_t i = 0; i < buckets_.size(); ++i)
    buckets_[i] += other.buckets_[i];
  if (count_ == 0 || other.min_ < min_)
    min_ = other.min_;
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

std::uint64_t histogram::quantile(double q) const noexcept {
  if (count_ == 0)
    return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<std::uint64_t>(
    std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      std::uint64_t mid = bucket_low(i) + (bucket_high(i) - bucket_low(i)) / 2;
      return std::clamp(mid, min(), max_);
    }
  }
  return max_;
}

} // namespace ttb
