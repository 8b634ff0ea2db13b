#include "domain/windows_zones.hpp"

#include "domain/ascii.hpp"
#include "domain/fuzzy_match.hpp"
#include "domain/tzdata_files.hpp"

#include <unicode/ucal.h>
#include <unicode/uenum.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <tuple>

namespace ttm::domain {

namespace {

// ICU ids and Windows names are ASCII: a plain widening/narrowing suffices.
std::string narrow(const UChar* s, int32_t n) {
  std::string out(static_cast<std::size_t>(n), '\0');
  for (int32_t i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<char>(s[i]);
  return out;
}

std::vector<windows_zone> build() {
  std::vector<windows_zone> out;
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UEnumeration, void (*)(UEnumeration*)> ids{
    ucal_openTimeZoneIDEnumeration(UCAL_ZONE_TYPE_CANONICAL, nullptr, nullptr,
                                   &status),
    uenum_close};
  if (U_FAILURE(status))
    return out;
  std::vector<std::string> names;
  int32_t len = 0;
  while (const UChar* id = uenum_unext(ids.get(), &len, &status)) {
    UChar win[128];
    UErrorCode s = U_ZERO_ERROR;
    int32_t n = ucal_getWindowsTimeZoneID(id, len, win, 128, &s);
    if (U_SUCCESS(s) && n > 0 && n < 128)
      names.push_back(narrow(win, n));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  auto links = read_tz_links();
  for (const auto& name : names) {
    std::u16string w(name.begin(), name.end());
    UChar iana[128];
    UErrorCode s = U_ZERO_ERROR;
    // "001": CLDR's territory for the zone a Windows name means by default.
    int32_t n = ucal_getTimeZoneIDForWindowsID(w.data(),
                                               static_cast<int32_t>(w.size()),
                                               "001", iana, 128, &s);
    if (U_FAILURE(s) || n <= 0 || n >= 128)
      continue;
    auto icu_id = narrow(iana, n);
    auto link = links.find(icu_id);
    auto reported = link == links.end() ? icu_id : link->second;
    out.push_back({name, std::move(icu_id), std::move(reported)});
  }
  return out;
}



} // namespace

const std::vector<windows_zone>& windows_zones() {
  static const std::vector<windows_zone> all = build();
  return all;
}

const windows_zone* find_windows_zone(std::string_view name) {
  for (const auto& z : windows_zones())
    if (ascii_iequals(name, z.windows_name))
      return &z;
  return nullptr;
}

std::vector<std::string> suggest_windows_zones(std::string_view name) {
  // The names in lower case, once (not ~140 strings per refusal).
  static const std::vector<std::string> lower = [] {
    std::vector<std::string> out;
    for (const auto& w : windows_zones())
      out.push_back(ascii_lower(w.windows_name));
    return out;
  }();
  auto in = ascii_lower(name);
  std::vector<std::pair<std::size_t, const std::string*>> hits;
  const auto& all = windows_zones();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (auto d = near(in, lower[i]))
      hits.emplace_back(*d, &all[i].windows_name);
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, *a.second) < std::tie(b.first, *b.second);
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < hits.size() && i < 3; ++i)
    out.push_back(*hits[i].second);
  return out;
}

} // namespace ttm::domain
