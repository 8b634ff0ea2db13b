#pragma once

#include <stdexcept>

namespace ttm::journal {

/// A stored payload that cannot be read back: replay skips its session.
struct bad_event : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace ttm::journal
