#include "domain/fuzzy_match.hpp"

#include <algorithm>
#include <vector>

namespace ttm::domain {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1),
    cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::size_t> near(std::string_view input,
                                std::string_view target) {
  std::size_t limit = input.size() < 4
                        ? input.size() / 2
                        : std::max<std::size_t>(2, input.size() / 4);
  std::size_t gap = input.size() > target.size() ? input.size() - target.size()
                                                 : target.size() - input.size();
  if (gap > limit) // a lower bound of the distance: skip the work
    return std::nullopt;
  // A second lower bound, the bag distance over byte classes: an edit
  // changes at most one class count on each side (a transposition none), so
  // when more bytes of one side lack a partner than `limit`, so does the
  // distance. Linear, where the table below is quadratic: an unknown zone
  // name is compared with ~600 names and most are far (a third of the cost
  // of a refusal, and nearly all of the zones fuzz target's).
  int counts[32] = {};
  for (char c : input)
    ++counts[static_cast<unsigned char>(c) & 31];
  for (char c : target)
    --counts[static_cast<unsigned char>(c) & 31];
  std::size_t surplus = 0;
  std::size_t deficit = 0;
  for (int n : counts)
    (n > 0 ? surplus : deficit) += static_cast<std::size_t>(n > 0 ? n : -n);
  if (std::max(surplus, deficit) > limit)
    return std::nullopt;
  // The distance with an early exit: once a whole row of the table exceeds
  // `limit`, so does the answer. Rows on the stack: an unknown zone name
  // is compared with every name in the database (~600), and the plain
  // distance spent ~300 us on that.
  constexpr std::size_t max_len = 128;
  if (target.size() > max_len)
    return std::nullopt; // longer than any name the caller may give
  const auto& a = input;
  const auto& b = target;
  std::size_t rows[3][max_len + 1];
  std::size_t* prev2 = rows[0];
  std::size_t* prev = rows[1];
  std::size_t* cur = rows[2];
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      row_min = std::min(row_min, cur[j]);
    }
    // A transposition reaches back two rows: exit only when both exceed.
    if (row_min > limit && i > 1
        && *std::min_element(prev, prev + b.size() + 1) > limit)
      return std::nullopt;
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  std::size_t d = prev[b.size()];
  return d <= limit ? std::optional<std::size_t>{d} : std::nullopt;
}

} // namespace ttm::domain
