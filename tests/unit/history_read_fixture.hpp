#pragma once

// journal::read_history's page as the domain's, however it came: converted
// as the store handed it on (PostgreSQL), or whole (SQLite), converted here
// as the session would.

#include "journal/history.hpp"

inline ttm::domain::history_page page_of(ttm::journal::history_read& r,
                                         ttm::domain::wall_time now) {
  return r.whole ? ttm::journal::to_history_page(std::move(*r.whole), now)
                 : std::move(r.page);
}
