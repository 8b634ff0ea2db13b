#include "domain/zone_completion.hpp"

#include "domain/ascii.hpp"
#include "domain/windows_zones.hpp"
#include "domain/zones.hpp"

#include <date/tz.h>

#include <algorithm>

namespace ttm::domain {

namespace {

// The names offered, in order: built once (the tz database and ICU's
// Windows names do not change while the server runs).
const std::vector<std::string>& all_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> iana;
    try {
      const auto& db = date::get_tzdb();
      // The OS database lists links as zones of their own (its files).
      // Only what resolve_zone accepts: not "localtime", nor the legacy
      // zones it refuses as abbreviations ("EET", "EST", "MST", ...; found
      // by tests/fuzz/zones: "EE" completed to a refused "EET").
      for (const auto& z : db.zones)
        if (z.name() != "localtime" && resolve_zone(z.name(), "UTC").found)
          iana.emplace_back(z.name());
    } catch (const std::exception&) {
      // No database: no zone names to offer.
    }
    std::sort(iana.begin(), iana.end());
    iana.erase(std::unique(iana.begin(), iana.end()), iana.end());
    std::vector<std::string> out{"local", "UTC"};
    for (auto& n : iana)
      if (n != "UTC")
        out.push_back(std::move(n));
    for (const auto& w : windows_zones())
      out.push_back(w.windows_name);
    return out;
  }();
  return names;
}

std::string_view last_component(std::string_view name) {
  auto slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

} // namespace

completion_values complete_zone_names(std::string_view prefix,
                                      std::size_t max) {
  completion_values out;
  for (const auto& n : all_names()) {
    bool match = ascii_istarts_with(n, prefix)
                 || (n.find('/') != std::string::npos
                     && ascii_istarts_with(last_component(n), prefix));
    if (!match)
      continue;
    ++out.total;
    if (out.values.size() < max)
      out.values.push_back(n);
  }
  return out;
}

} // namespace ttm::domain
