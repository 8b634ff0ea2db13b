#include "storage/principal.hpp"

#include <algorithm>

namespace ttm::storage {

namespace {

std::optional<focus_record> last_open(const std::vector<focus_record>& fs) {
  for (auto i = fs.rbegin(); i != fs.rend(); ++i)
    if (!i->ended_wall_ns)
      return *i;
  return std::nullopt;
}

} // namespace

bool pref_test::holds(const pref_list& prefs) const {
  for (const auto& [k, v] : prefs)
    if (k == key)
      return v == value;
  return otherwise;
}

principal_state principal_memory::apply(const principal_op& op) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto& e = by_principal_[op.principal];
  principal_state out;
  auto close_open = [&](std::int64_t at, const std::string& summary) {
    for (auto i = e.focus.rbegin(); i != e.focus.rend(); ++i)
      if (!i->ended_wall_ns) {
        i->ended_wall_ns = std::max(at, i->started_wall_ns);
        i->summary = summary;
        return std::optional<focus_record>{*i};
      }
    return std::optional<focus_record>{};
  };
  switch (op.kind) {
    case principal_op::read:
      break;
    case principal_op::set_prefs:
      for (const auto& pref : op.prefs) {
        // Not a structured binding: C++17 lets no lambda capture one
        // (clang refuses it, gcc allows it).
        const auto& key = pref.first;
        const auto& value = pref.second;
        auto it = std::find_if(e.prefs.begin(), e.prefs.end(),
                               [&](const auto& kv) { return kv.first == key; });
        if (value == "null") {
          if (it != e.prefs.end())
            e.prefs.erase(it);
        } else if (it != e.prefs.end()) {
          it->second = value;
        } else {
          e.prefs.emplace_back(key, value);
        }
      }
      break;
    case principal_op::focus_start:
      if (op.refuse_open.holds(e.prefs) && last_open(e.focus)) {
        out.refused = "SESSION_ALREADY_OPEN";
        break;
      }
      out.closed = close_open(op.start.started_wall_ns, {});
      e.focus.push_back(op.start);
      // Only what history needs: the open one and a bounded past.
      if (e.focus.size() > 1000)
        e.focus.erase(e.focus.begin());
      break;
    case principal_op::focus_end:
      out.closed = close_open(op.now_wall_ns, op.summary);
      if (!out.closed)
        out.refused = "NO_OPEN_SESSION";
      break;
  }
  std::sort(e.prefs.begin(), e.prefs.end());
  out.prefs = e.prefs;
  out.open = last_open(e.focus);
  return out;
}

std::vector<focus_record>
principal_memory::focus_of(const std::string& principal) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = by_principal_.find(principal);
  if (it == by_principal_.end())
    return {};
  return it->second.focus;
}

} // namespace ttm::storage
