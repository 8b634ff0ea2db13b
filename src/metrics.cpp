#include "metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef TTM_VERSION
#define TTM_VERSION "unknown"
#endif

namespace ttm::metrics {

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;
using prometheus::Labels;

/// The conventions' boundaries (0.01 s to 300 s) with finer ones below
/// 10 ms: our calls take microseconds.
Histogram::BucketBoundaries operation_buckets() {
  return {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
          0.0025,  0.005,    0.01,    0.02,   0.05,    0.1,    0.2,
          0.5,     1,        2,       5,      10,      30,     60,
          120,     300};
}

/// The conventions' boundaries, then on to a working day: MCP sessions
/// last minutes to hours.
Histogram::BucketBoundaries session_buckets() {
  return {0.01, 0.02, 0.05, 0.1,  0.2,  0.5,  1,    2,     5,     10,
          30,   60,   120,  300,  600,  1800, 3600, 7200,  14400, 28800};
}

/// Parses one field of a /proc file; 0 when it cannot be read.
double read_number(const char* path, int field) {
  std::ifstream in{path};
  std::string word;
  for (int i = 0; i <= field && in >> word; ++i)
    if (i == field)
      return std::strtod(word.c_str(), nullptr);
  return 0;
}

/// Fields of /proc/self/stat after the command name (which may hold
/// spaces): index 0 is field 3 (state).
std::vector<std::string> self_stat() {
  std::ifstream in{"/proc/self/stat"};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  std::vector<std::string> out;
  auto close = text.rfind(')');
  if (close == std::string::npos)
    return out;
  std::string word;
  for (std::size_t i = close + 1; i < text.size(); ++i) {
    if (text[i] == ' ' || text[i] == '\n') {
      if (!word.empty())
        out.push_back(std::move(word));
      word.clear();
    } else {
      word += text[i];
    }
  }
  return out;
}

double boot_time() {
  std::ifstream in{"/proc/stat"};
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime") {
      in >> value;
      return value;
    }
    in.ignore(1 << 16, '\n');
  }
  return 0;
}

double open_fds() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr)
    return 0;
  double n = 0;
  while (auto* e = ::readdir(d))
    if (e->d_name[0] != '.')
      ++n;
  ::closedir(d);
  return n - 1; // the directory stream's own descriptor
}

/// One family whose children are looked up by a key of label values, with
/// its cap on label sets.
template <class T>
struct capped_family {
  Family<T>* family = nullptr;
  std::vector<std::string> label_names;
  std::mutex mtx;
  std::unordered_map<std::string, T*> children; // key: values joined by \x1f
  T* overflow = nullptr;
};

struct registry_state {
  std::shared_ptr<prometheus::Registry> registry
    = std::make_shared<prometheus::Registry>();
  capped_family<Histogram> operations;
  Histogram::BucketBoundaries operation_bounds = operation_buckets();
  capped_family<Histogram> sessions;
  Histogram::BucketBoundaries session_bounds = session_buckets();
  Gauge* mcp_sessions = nullptr;
  Gauge* tracking_sessions = nullptr;
  Gauge* focus_sessions = nullptr;
  Counter* transactions = nullptr;
  Histogram* transaction_events = nullptr;
  Histogram* commit_seconds = nullptr;
  Counter* busy_waits = nullptr;
  Counter* fences = nullptr;
  Family<Counter>* refusals = nullptr;
  std::mutex refusal_mtx;
  std::map<int, Counter*> refusal_by_status;
  Family<Counter>* oauth_tokens = nullptr;
  std::mutex oauth_mtx;
  std::map<std::string, Counter*, std::less<>> oauth_by_outcome;
  Counter* key_fetches[2] = {nullptr, nullptr}; // failed, ok
  Counter* introspections[2] = {nullptr, nullptr};
  Gauge* signing_keys = nullptr;
  Gauge* rss = nullptr;
  Gauge* fds = nullptr;
  Counter* cpu = nullptr;
  double cpu_seen = 0;
  /// The page is made by one scrape at a time.
  std::mutex page_mtx;

  registry_state() {
    auto& r = *registry;
    operations.family = &prometheus::BuildHistogram()
                           .Name("mcp_server_operation_duration_seconds")
                           .Help("MCP request or notification duration, from "
                                 "when the session starts on it until its "
                                 "reply is ready")
                           .Register(r);
    operations.label_names = {"mcp_method_name", "gen_ai_tool_name",
                              "error_type", "mcp_protocol_version",
                              "network_transport"};
    sessions.family = &prometheus::BuildHistogram()
                         .Name("mcp_server_session_duration_seconds")
                         .Help("Duration of the MCP sessions that ended")
                         .Register(r);
    sessions.label_names = {"network_transport"};
    mcp_sessions = &prometheus::BuildGauge()
                      .Name("time_tracker_mcp_sessions_open")
                      .Help("Open MCP sessions (2025 HTTP sessions, the "
                            "stdio connection)")
                      .Register(r)
                      .Add({});
    tracking_sessions
      = &prometheus::BuildGauge()
           .Name("time_tracker_tracking_sessions_open")
           .Help("Open tracking sessions held by this server's clients")
           .Register(r)
           .Add({});
    focus_sessions = &prometheus::BuildGauge()
                        .Name("time_tracker_focus_sessions_open")
                        .Help("Open focus sessions in the journal (the whole "
                              "data directory)")
                        .Register(r)
                        .Add({});
    transactions = &prometheus::BuildCounter()
                      .Name("time_tracker_journal_transactions_total")
                      .Help("Write transactions the journal committed")
                      .Register(r)
                      .Add({});
    transaction_events
      = &prometheus::BuildHistogram()
           .Name("time_tracker_journal_transaction_events")
           .Help("Events per committed journal transaction (group commit)")
           .Register(r)
           .Add({}, Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64, 128,
                                                256, 512});
    commit_seconds
      = &prometheus::BuildHistogram()
           .Name("time_tracker_journal_commit_duration_seconds")
           .Help("Time to write and commit one journal transaction")
           .Register(r)
           .Add({}, Histogram::BucketBoundaries{
                      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                      0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5});
    busy_waits = &prometheus::BuildCounter()
                    .Name("time_tracker_journal_busy_waits_total")
                    .Help("Times a journal statement waited for another "
                          "server's transaction on the data directory")
                    .Register(r)
                    .Add({});
    fences = &prometheus::BuildCounter()
                .Name("time_tracker_journal_fences_total")
                .Help("Writes refused because another server changed their "
                      "session first (the call runs again on its latest "
                      "state)")
                .Register(r)
                .Add({});
    refusals = &prometheus::BuildCounter()
                  .Name("time_tracker_http_refusals_total")
                  .Help("HTTP requests answered with an error status")
                  .Register(r);
    oauth_tokens = &prometheus::BuildCounter()
                      .Name("time_tracker_oauth_tokens_total")
                      .Help("OAuth access tokens checked, by outcome "
                            "(accepted or the reason of the refusal)")
                      .Register(r);
    auto& fetches = prometheus::BuildCounter()
                      .Name("time_tracker_oauth_key_fetches_total")
                      .Help("Fetches of the authorization server's metadata "
                            "and signing keys (JWKS), by result")
                      .Register(r);
    key_fetches[0] = &fetches.Add({{"result", "failed"}});
    key_fetches[1] = &fetches.Add({{"result", "ok"}});
    auto& intro = prometheus::BuildCounter()
                    .Name("time_tracker_oauth_introspections_total")
                    .Help("Token introspection calls (RFC 7662), by result")
                    .Register(r);
    introspections[0] = &intro.Add({{"result", "failed"}});
    introspections[1] = &intro.Add({{"result", "ok"}});
    signing_keys = &prometheus::BuildGauge()
                      .Name("time_tracker_oauth_signing_keys")
                      .Help("Signing keys of the authorization server in use")
                      .Register(r)
                      .Add({});
    prometheus::BuildGauge()
      .Name("time_tracker_build_info")
      .Help("The server's version (always 1)")
      .Register(r)
      .Add({{"version", TTM_VERSION}})
      .Set(1);
    rss = &prometheus::BuildGauge()
             .Name("process_resident_memory_bytes")
             .Help("Resident memory size in bytes")
             .Register(r)
             .Add({});
    fds = &prometheus::BuildGauge()
             .Name("process_open_fds")
             .Help("Number of open file descriptors")
             .Register(r)
             .Add({});
    // A counter only /proc knows: raised by the difference at each scrape.
    cpu = &prometheus::BuildCounter()
             .Name("process_cpu_seconds_total")
             .Help("User and system CPU time spent in seconds")
             .Register(r)
             .Add({});
    auto stat = self_stat();
    long ticks = ::sysconf(_SC_CLK_TCK);
    double start = 0;
    if (stat.size() > 19 && ticks > 0)
      start = boot_time() + std::strtod(stat[19].c_str(), nullptr)
                              / static_cast<double>(ticks);
    prometheus::BuildGauge()
      .Name("process_start_time_seconds")
      .Help("Start time of the process since the Unix epoch in seconds")
      .Register(r)
      .Add({})
      .Set(start);
  }
};

registry_state& state() {
  // Never destroyed: threads may record until the process ends.
  static auto* s = new registry_state;
  return *s;
}

/// The child of `f` for `values` (as many as its label names): from the
/// calling thread's cache, else the family (created if need be, unless the
/// family is at its cap: then the overflow child).
template <class T, class... Args>
T& child(capped_family<T>& f, std::string& key,
         const std::string_view* values, Args&&... args) {
  std::lock_guard<std::mutex> guard{f.mtx};
  if (auto i = f.children.find(key); i != f.children.end())
    return *i->second;
  Labels labels;
  bool over = f.children.size() >= max_series;
  if (over && f.overflow != nullptr)
    return *f.overflow;
  for (std::size_t i = 0; i < f.label_names.size(); ++i)
    labels.emplace(f.label_names[i],
                   over ? std::string{other} : std::string{values[i]});
  T& made = f.family->Add(labels, std::forward<Args>(args)...);
  if (over)
    f.overflow = &made;
  else
    f.children.emplace(key, &made);
  return made;
}

std::string_view bounded(std::string_view v) {
  return v.empty() || label_ok(v) ? v : other;
}

} // namespace

bool label_ok(std::string_view value) noexcept {
  if (value.empty() || value.size() > 64)
    return false;
  for (char c : value)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '/'
          || c == ':' || c == '-'))
      return false;
  return true;
}

void observe_operation(std::string_view method, std::string_view tool,
                       std::string_view error_type,
                       std::string_view protocol_version,
                       std::string_view transport, double seconds) {
  auto& s = state();
  const std::string_view values[] = {bounded(method), bounded(tool),
                                     bounded(error_type),
                                     bounded(protocol_version),
                                     bounded(transport)};
  // Per thread: the children this thread recorded to, by label values, so
  // the hot path takes no lock but the histogram's own.
  thread_local std::string key;
  thread_local std::unordered_map<std::string, Histogram*> cache;
  key.clear();
  for (auto v : values) {
    key.append(v.data(), v.size());
    key += '\x1f';
  }
  auto i = cache.find(key);
  Histogram* h = nullptr;
  // Label sets past the cap all map to the overflow child: bounded here too.
  if (i == cache.end() && cache.size() >= 2 * max_series)
    cache.clear();
  if (i != cache.end()) {
    h = i->second;
  } else {
    h = &child(s.operations, key, values, s.operation_bounds);
    cache.emplace(key, h);
  }
  h->Observe(seconds);
}

void observe_session(std::string_view transport, double seconds) {
  auto& s = state();
  const std::string_view values[] = {bounded(transport)};
  std::string key{values[0]};
  child(s.sessions, key, values, s.session_bounds).Observe(seconds);
}

void add_mcp_sessions(long delta) {
  state().mcp_sessions->Increment(static_cast<double>(delta));
}

void add_tracking_sessions(long delta) {
  state().tracking_sessions->Increment(static_cast<double>(delta));
}

void set_focus_sessions(std::size_t n) {
  state().focus_sessions->Set(static_cast<double>(n));
}

void journal_commit(std::size_t events, double seconds) {
  auto& s = state();
  s.transactions->Increment();
  s.transaction_events->Observe(static_cast<double>(events));
  s.commit_seconds->Observe(seconds);
}

void journal_busy_wait() {
  state().busy_waits->Increment();
}

void journal_fence() {
  state().fences->Increment();
}

void refusal(int status) {
  if (status < 400 || status > 599)
    return;
  auto& s = state();
  std::lock_guard<std::mutex> guard{s.refusal_mtx};
  auto& c = s.refusal_by_status[status];
  if (c == nullptr)
    c = &s.refusals->Add({{"code", std::to_string(status)}});
  c->Increment();
}

void oauth_token(std::string_view outcome) {
  auto& s = state();
  std::lock_guard<std::mutex> guard{s.oauth_mtx};
  auto it = s.oauth_by_outcome.find(outcome);
  if (it == s.oauth_by_outcome.end()) {
    auto value = label_ok(outcome) ? std::string{outcome} : std::string{other};
    it = s.oauth_by_outcome
           .emplace(std::string{outcome},
                    &s.oauth_tokens->Add({{"outcome", value}}))
           .first;
  }
  it->second->Increment();
}

void oauth_key_fetch(bool ok) {
  state().key_fetches[ok ? 1 : 0]->Increment();
}

void oauth_keys(std::size_t n) {
  state().signing_keys->Set(static_cast<double>(n));
}

void oauth_introspection(bool ok) {
  state().introspections[ok ? 1 : 0]->Increment();
}

std::string page() {
  auto& s = state();
  std::lock_guard<std::mutex> guard{s.page_mtx};
  auto page_size = static_cast<double>(::sysconf(_SC_PAGESIZE));
  s.rss->Set(read_number("/proc/self/statm", 1) * page_size);
  s.fds->Set(open_fds());
  auto stat = self_stat();
  long ticks = ::sysconf(_SC_CLK_TCK);
  if (stat.size() > 12 && ticks > 0) {
    double used = (std::strtod(stat[11].c_str(), nullptr)
                   + std::strtod(stat[12].c_str(), nullptr))
                  / static_cast<double>(ticks);
    if (used > s.cpu_seen) {
      s.cpu->Increment(used - s.cpu_seen);
      s.cpu_seen = used;
    }
  }
  return prometheus::TextSerializer{}.Serialize(s.registry->Collect());
}

} // namespace ttm::metrics
