#pragma once

// Captures what log::write sends while alive (log::set_sink), fields
// included; restores stderr and the info threshold after. One at a time.

#include "log.hpp"

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::test {

class log_capture {
public:
  struct line {
    log::level lvl;
    std::string where, msg, request_id, trace_id, principal, method, tool,
      outcome, error_code;
    std::int64_t duration_us;
  };

  explicit log_capture(log::level threshold = log::level::info) {
    log::set_threshold(threshold);
    std::lock_guard<std::mutex> guard{mtx()};
    lines().clear();
    log::set_sink(&log_capture::sink);
  }
  ~log_capture() {
    log::set_sink(nullptr);
    log::set_threshold(log::level::info);
  }
  log_capture(const log_capture&) = delete;
  log_capture& operator=(const log_capture&) = delete;

  std::vector<line> all() const {
    std::lock_guard<std::mutex> guard{mtx()};
    return lines();
  }

  /// The requests' completion lines.
  std::vector<line> completions() const {
    std::vector<line> out;
    for (auto& l : all())
      if (l.msg == "completed")
        out.push_back(l);
    return out;
  }

  /// The lines of `lvl` whose message contains every one of `parts`.
  std::vector<line> find(log::level lvl,
                         const std::vector<std::string>& parts) const {
    std::vector<line> out;
    for (auto& l : all()) {
      bool match = l.lvl == lvl;
      for (const auto& p : parts)
        match = match && l.msg.find(p) != std::string::npos;
      if (match)
        out.push_back(l);
    }
    return out;
  }

  /// Every line as "[where] msg", for a failing check's INFO.
  std::string text() const {
    std::string out;
    for (const auto& l : all())
      out += "[" + l.where + "] " + l.msg + "\n";
    return out;
  }

private:
  static std::mutex& mtx() {
    static std::mutex m;
    return m;
  }
  static std::vector<line>& lines() {
    static std::vector<line> l;
    return l;
  }
  static void sink(log::level lvl, std::string_view where,
                   std::string_view msg, const log::fields& f) {
    std::lock_guard<std::mutex> guard{mtx()};
    lines().push_back({lvl, std::string{where}, std::string{msg},
                       std::string{f.request_id}, std::string{f.trace_id},
                       std::string{f.principal}, std::string{f.method},
                       std::string{f.tool}, std::string{f.outcome},
                       std::string{f.error_code}, f.duration_us});
  }
};

} // namespace ttm::test
