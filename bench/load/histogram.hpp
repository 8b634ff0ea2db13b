#pragma once

// A latency histogram with log-linear buckets (the HdrHistogram idea, our
// own small implementation): values below 2^(sub_bits+1) ns have a bucket
// each; above, every power of two is split into 2^sub_bits equal buckets, so
// a bucket is never wider than 1/128 of the values it holds (< 0.8 %), and a
// reported percentile (the bucket's midpoint) is within 0.4 % of the truth.

#include <cstdint>
#include <vector>

namespace ttb {

class histogram {
public:
  static constexpr unsigned sub_bits = 7;
  static constexpr std::uint64_t sub_count = std::uint64_t{1} << sub_bits;
  /// Values up to 2^max_bits ns (about 18 minutes) are kept; larger ones
  /// land in the last bucket (min, max and mean stay exact).
  static constexpr unsigned max_bits = 40;

  histogram();

  void record(std::uint64_t ns) noexcept;
  void merge(const histogram& other);

  std::uint64_t count() const noexcept {
    return count_;
  }
  std::uint64_t min() const noexcept {
    return count_ == 0 ? 0 : min_;
  }
  std::uint64_t max() const noexcept {
    return max_;
  }
  double mean() const noexcept {
    return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_);
  }

  /// The value at quantile q in [0, 1] (0.5 = median, 0.999 = p99.9): the
  /// midpoint of the bucket holding the ceil(q * count)-th smallest value,
  /// clamped to [min, max]. 0 when empty.
  std::uint64_t quantile(double q) const noexcept;

  /// Bucket index of a value and the range of values a bucket holds
  /// (exposed for the self-test).
  static std::size_t bucket_of(std::uint64_t ns) noexcept;
  static std::uint64_t bucket_low(std::size_t index) noexcept;
  static std::uint64_t bucket_high(std::size_t index) noexcept; // inclusive

private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  double sum_ = 0;
};

} // namespace ttb
