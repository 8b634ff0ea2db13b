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
  std::size_t d = edit_distance(input, target);
  return d <= limit ? std::optional<std::size_t>{d} : std::nullopt;
}

} // namespace ttm::domain
