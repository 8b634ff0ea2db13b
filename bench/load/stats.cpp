#include "stats.hpp"

#include <algorithm>
#include <utility>
#include <cstdio>

namespace ttb {

void error_log::add(const std::string& op, const std::string& message) {
  auto n = ++total_;
  if (n > keep_)
    return;
  std::string line = op + ": " + message;
  std::fprintf(stderr, "time-tracker-bench: error: %s\n", line.c_str());
  std::lock_guard<std::mutex> g{mtx_};
  messages_.push_back(std::move(line));
}

std::vector<std::string> error_log::messages() const {
  std::lock_guard<std::mutex> g{mtx_};
  return messages_;
}

op_stats& op_table::op(const std::string& name) {
  auto it = index_.find(name);
  if (it != index_.end())
    return *it->second;
  ops_.push_back(std::make_unique<op_stats>());
  ops_.back()->name = name;
  index_.emplace(name, ops_.back().get());
  return *ops_.back();
}

void op_table::error(const std::string& name, const std::string& message,
                     bool counted) {
  auto& s = op(name);
  ++s.errors;
  if (counted)
    ++s.count;
  errors_->add(name, message);
}

void op_table::merge(const op_table& other) {
  for (const auto& o : other.ops_) {
    auto& s = op(o->name);
    s.count += o->count;
    s.errors += o->errors;
    s.latency.merge(o->latency);
  }
  send_lag_.merge(other.send_lag_);
}

namespace {

/// Report order: set-up, the scenario's own call, the session tools in
/// workflow order, teardown, then whole iterations.
int rank(const std::string& name) {
  static const std::pair<const char*, int> known[] = {
    {"initialize", 0},
    {"notifications/initialized", 1},
    {"ping", 2},
    {"tools/call time_session_start", 11},
    {"tools/call time_task_start", 12},
    {"tools/call time_tasks_edit", 13},
    {"tools/call time_task_end", 14},
    {"tools/call time_session_summary", 15},
    {"tools/call time_session_end", 16},
    {"tools/call ", 5}, // any other tool
    {"DELETE", 900},
    {"exit", 900},
    {"[", 1000},
  };
  for (const auto& [prefix, r] : known)
    if (name.rfind(prefix, 0) == 0)
      return r;
  return 500;
}

} // namespace

std::vector<const op_stats*> op_table::rows() const {
  std::vector<const op_stats*> out;
  for (const auto& o : ops_)
    out.push_back(o.get());
  std::stable_sort(out.begin(), out.end(), [](const auto* x, const auto* y) {
    int rx = rank(x->name);
    int ry = rank(y->name);
    return rx != ry ? rx < ry : x->name < y->name;
  });
  return out;
}

} // namespace ttb
