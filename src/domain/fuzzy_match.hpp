#pragma once

// Typo distance for "did you mean" suggestions (zone names, Windows names).

#include <cstddef>
#include <optional>
#include <string_view>

namespace ttm::domain {

/// Restricted Damerau-Levenshtein (optimal string alignment) distance.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Distance of `input` to `target` when close enough to be a plausible typo:
/// very short inputs allow almost nothing, longer ones about one edit in four
/// (looser limits turn "America/NewYork" into a list of unrelated cities).
std::optional<std::size_t> near(std::string_view input, std::string_view target);

} // namespace ttm::domain
