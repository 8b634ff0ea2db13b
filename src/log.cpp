#include "log.hpp"
#include "log_batch.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>

#include <pthread.h>
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

/// "2026-11-22T05:00:00." of `unix_ms` (RFC 3339, UTC): formatted once per
/// second and thread, as a line per request makes this a hot path.
std::string_view second_of(std::int64_t unix_ms) {
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
  return {cached, 20};
}

/// "2026-11-22T05:00:00.123Z" (RFC 3339, UTC, milliseconds).
template <class Out>
void put_time(Out&& put, std::int64_t unix_ms) {
  put(second_of(unix_ms));
  auto ms = static_cast<int>(unix_ms % 1000);
  const char tail[] = {static_cast<char>('0' + ms / 100),
                       static_cast<char>('0' + ms / 10 % 10),
                       static_cast<char>('0' + ms % 10), 'Z'};
  put(std::string_view{tail, sizeof(tail)});
}

void append_time(std::string& out, std::int64_t unix_ms) {
  put_time([&](std::string_view s) { out += s; }, unix_ms);
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

/// Writes a JSON line into a buffer sized for the worst case up front:
/// a line per request makes this a hot path, and std::string's appends
/// (a capacity check and a call each) were most of its cost.
class json_line {
public:
  json_line(std::string& out, std::size_t most)
    : out_{out}, start_{out.size()} {
    out_.resize(start_ + most);
    p_ = out_.data() + start_;
  }
  void raw(std::string_view s) noexcept {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void ch(char c) noexcept { *p_++ = c; }
  /// `"s"`, escaped.
  void string(std::string_view s) noexcept {
    static constexpr char hex[] = "0123456789abcdef";
    *p_++ = '"';
    for (char c : s) {
      auto u = static_cast<unsigned char>(c);
      if (!needs_escape(u)) {
        *p_++ = c;
        continue;
      }
      *p_++ = '\\';
      switch (c) {
        case '"': *p_++ = '"'; break;
        case '\\': *p_++ = '\\'; break;
        case '\n': *p_++ = 'n'; break;
        case '\r': *p_++ = 'r'; break;
        case '\t': *p_++ = 't'; break;
        default:
          raw("u00");
          *p_++ = hex[u >> 4];
          *p_++ = hex[u & 0xf];
      }
    }
    *p_++ = '"';
  }
  /// `,"key":"value"`; nothing for an empty value. `prefix` is `,"key":`.
  void member(std::string_view prefix, std::string_view value) noexcept {
    if (value.empty())
      return;
    raw(prefix);
    string(value);
  }
  void done() { out_.resize(static_cast<std::size_t>(p_ - out_.data())); }

  /// Room for `s` as a member: its key and quotes, each byte escaped.
  static constexpr std::size_t room(std::string_view s) noexcept {
    return 24 + 6 * s.size();
  }

private:
  std::string& out_;
  std::size_t start_;
  char* p_ = nullptr;
};


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
      thread_ = std::thread{[this] {
        pthread_setname_np(pthread_self(), "ttm.log"); // not its starter's
        run();
      }};
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
  auto lvl_name = names[static_cast<size_t>(lvl)];
  if (fmt == format::json) {
    auto most = 96 + json_line::room(where) + json_line::room(msg)
                + json_line::room(f.request_id) + json_line::room(f.trace_id)
                + json_line::room(f.principal) + json_line::room(f.method)
                + json_line::room(f.tool) + json_line::room(f.outcome)
                + json_line::room(f.error_code);
    json_line out{line, most};
    out.raw("{\"time\":\"");
    put_time([&](std::string_view part) { out.raw(part); }, unix_ms);
    out.raw("\",\"level\":\"");
    out.raw(lvl_name);
    out.ch('"');
    out.member(",\"component\":", where);
    out.member(",\"msg\":", msg);
    out.member(",\"request_id\":", f.request_id);
    out.member(",\"trace_id\":", f.trace_id);
    out.member(",\"principal\":", f.principal);
    out.member(",\"method\":", f.method);
    out.member(",\"tool\":", f.tool);
    out.member(",\"outcome\":", f.outcome);
    out.member(",\"error_code\":", f.error_code);
    if (f.duration_us >= 0) {
      std::string ms;
      append_ms(ms, f.duration_us);
      out.raw(",\"duration_ms\":");
      out.raw(ms);
    }
    out.raw("}\n");
    out.done();
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
