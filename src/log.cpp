#include "log.hpp"
#include "log_batch.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace ttm::log {

namespace {

std::atomic<int> threshold{static_cast<int>(level::info)};
std::atomic<int> format_{static_cast<int>(format::text)};

std::atomic<sink_fn> sink_{nullptr};

thread_local const fields* current_ = nullptr;

constexpr std::array<std::string_view, 6> names{"trace",   "debug", "info",
                                                "warning", "error", "off"};

const fields no_fields{};

/// "2026-11-22T05:00:00.123Z" (RFC 3339, UTC, milliseconds). The part up
/// to the second is formatted once per second and thread: a line per
/// request makes this a hot path.
void append_time(std::string& out, std::int64_t unix_ms) {
  thread_local std::int64_t cached_sec = -1;
  thread_local char cached[24];
  auto sec = unix_ms / 1000;
  if (sec != cached_sec) {
    auto secs = static_cast<std::time_t>(sec);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::snprintf(cached, sizeof(cached), "%04d-%02d-%02dT%02d:%02d:%02d.",
                  tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec);
    cached_sec = sec;
  }
  out += cached;
  auto ms = static_cast<int>(unix_ms % 1000);
  out += static_cast<char>('0' + ms / 100);
  out += static_cast<char>('0' + ms / 10 % 10);
  out += static_cast<char>('0' + ms % 10);
  out += 'Z';
}

/// `us` microseconds as milliseconds with three decimals.
void append_ms(std::string& out, std::int64_t us) {
  out += std::to_string(us / 1000);
  auto frac = static_cast<int>(us % 1000);
  out += '.';
  out += static_cast<char>('0' + frac / 100);
  out += static_cast<char>('0' + frac / 10 % 10);
  out += static_cast<char>('0' + frac % 10);
}

/// One event, one line: embedded newlines would break log parsing.
void append_flat(std::string& out, std::string_view s) {
  auto start = out.size();
  out.append(s);
  for (auto i = start; i < out.size(); ++i)
    if (out[i] == '\n' || out[i] == '\r')
      out[i] = ' ';
}

/// Needs an escape in a JSON string.
constexpr bool needs_escape(unsigned char u) noexcept {
  return u < 0x20 || u == '"' || u == '\\';
}

/// A line per request makes this a hot path: runs of plain characters
/// (nearly all of them) are appended at once, not one by one.
void append_json_string(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    if (!needs_escape(u))
      continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (s[i]) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += hex[u >> 4];
        out += hex[u & 0xf];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void json_member(std::string& out, std::string_view key,
                 std::string_view value) {
  if (value.empty())
    return;
  out += ",\"";
  out += key;
  out += "\":";
  append_json_string(out, value);
}

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

void write_all(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    auto rc = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (rc <= 0)
      return;
    done += static_cast<std::size_t>(rc);
  }
}

/// The completion lines' writer: one per request would otherwise cost a
/// write(2) on every request's path (~2-3 us, more than a get_current).
/// They are collected and written by a thread every 50 ms (or at 16 KB);
/// every other line is written at once, after what is pending, so the
/// order of lines stays. Whole lines only, so they never interleave.
class batched_writer {
public:
  void add(std::string line) {
    std::unique_lock<std::mutex> lock{mtx_};
    if (!started_) {
      started_ = true;
      thread_ = std::thread{[this] { run(); }};
    }
    pending_ += line;
    if (pending_.size() >= flush_bytes)
      cv_.notify_one();
  }

  /// Writes `line` now, after the pending lines.
  void now(const std::string& line) {
    std::lock_guard<std::mutex> lock{mtx_};
    if (pending_.empty()) {
      write_all(line);
      return;
    }
    pending_ += line;
    write_all(pending_);
    pending_.clear();
  }

  void flush() {
    std::lock_guard<std::mutex> lock{mtx_};
    write_all(pending_);
    pending_.clear();
  }

  ~batched_writer() {
    {
      std::lock_guard<std::mutex> lock{mtx_};
      stop_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable())
      thread_.join();
    write_all(pending_);
  }

private:
  static constexpr std::size_t flush_bytes = 16 * 1024;

  void run() {
    std::unique_lock<std::mutex> lock{mtx_};
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds{50}, [this] {
        return stop_ || pending_.size() >= flush_bytes;
      });
      if (pending_.empty())
        continue;
      std::string out;
      out.swap(pending_);
      // Written under the lock: a line written `now` meanwhile must not
      // overtake these.
      write_all(out);
    }
  }

  std::mutex mtx_;
  std::condition_variable cv_;
  std::string pending_;
  std::thread thread_;
  bool started_ = false;
  bool stop_ = false;
};

batched_writer& batched() {
  static batched_writer w;
  return w;
}

} // namespace

void flush() {
  batched().flush();
}

void write_batched(level lvl, std::string_view where, std::string_view msg,
                   const fields& f) {
  if (auto sink = sink_.load()) {
    sink(lvl, where, msg, f);
    return;
  }
  batched().add(format_line(static_cast<format>(format_.load()), now_ms(),
                            lvl, where, msg, f));
}

std::optional<level> parse_level(std::string_view name) noexcept {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return static_cast<level>(i);
  return std::nullopt;
}

std::string_view level_names() noexcept {
  return "trace, debug, info, warning, error, off";
}

void set_threshold(level lvl) noexcept {
  threshold = static_cast<int>(lvl);
}

bool enabled(level lvl) noexcept {
  return lvl != level::off && static_cast<int>(lvl) >= threshold.load();
}

std::optional<format> parse_format(std::string_view name) noexcept {
  if (name == "text")
    return format::text;
  if (name == "json")
    return format::json;
  return std::nullopt;
}

void set_format(format f) noexcept {
  format_ = static_cast<int>(f);
}

request_scope::request_scope(const fields& f) noexcept : previous_(current_) {
  current_ = &f;
}

request_scope::~request_scope() {
  current_ = previous_;
}

const fields* current_fields() noexcept {
  return current_;
}

sink_fn set_sink(sink_fn sink) noexcept {
  return sink_.exchange(sink);
}

std::string format_line(format fmt, std::int64_t unix_ms, level lvl,
                        std::string_view where, std::string_view msg,
                        const fields& f) {
  std::string line;
  // A JSON completion line is ~300 bytes: one allocation, no regrowth.
  line.reserve(320 + where.size() + msg.size() + f.request_id.size()
               + f.method.size() + f.tool.size());
  auto lvl_name = names[static_cast<size_t>(lvl)];
  if (fmt == format::json) {
    line += "{\"time\":\"";
    append_time(line, unix_ms);
    line += "\",\"level\":\"";
    line += lvl_name;
    line += '"';
    json_member(line, "component", where);
    json_member(line, "msg", msg);
    json_member(line, "request_id", f.request_id);
    json_member(line, "trace_id", f.trace_id);
    json_member(line, "principal", f.principal);
    json_member(line, "method", f.method);
    json_member(line, "tool", f.tool);
    json_member(line, "outcome", f.outcome);
    json_member(line, "error_code", f.error_code);
    if (f.duration_us >= 0) {
      line += ",\"duration_ms\":";
      append_ms(line, f.duration_us);
    }
    line += "}\n";
    return line;
  }
  // Today's text shape, with the request's id after the component.
  append_time(line, unix_ms);
  line += ' ';
  line += lvl_name;
  line += " [";
  line += where;
  line += "] ";
  if (!f.request_id.empty()) {
    line += "request_id=";
    append_flat(line, f.request_id);
    line += ' ';
  }
  append_flat(line, msg);
  if (!f.outcome.empty()) {
    // A completion line: what the JSON format has in its own fields.
    for (auto [key, value] :
         {std::pair<std::string_view, std::string_view>{"method", f.method},
          {"tool", f.tool},
          {"outcome", f.outcome},
          {"error_code", f.error_code}}) {
      if (value.empty())
        continue;
      line += ' ';
      line += key;
      line += '=';
      append_flat(line, value);
    }
    if (f.duration_us >= 0) {
      line += " duration_ms=";
      append_ms(line, f.duration_us);
    }
  }
  line += '\n';
  return line;
}

void write(level lvl, std::string_view where, std::string_view msg) {
  const fields* f = current_;
  write(lvl, where, msg, f != nullptr ? *f : no_fields);
}

void write(level lvl, std::string_view where, std::string_view msg,
           const fields& f) {
  if (auto sink = sink_.load()) {
    sink(lvl, where, msg, f);
    return;
  }
  auto line = format_line(static_cast<format>(format_.load()), now_ms(), lvl,
                          where, msg, f);
  // One write(2) (with the pending completion lines before it) keeps
  // concurrent lines from interleaving.
  batched().now(line);
}

} // namespace ttm::log
