#include "report.hpp"

#include "mcp.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <thread>

namespace ttb {

namespace {

std::string format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

bool is_iteration(const op_stats& s) {
  return !s.name.empty() && s.name[0] == '[';
}

/// Every request (not the iteration rows), merged.
op_stats all_requests(const run_result& r) {
  op_stats all;
  all.name = "all requests";
  for (const auto* s : r.stats.rows()) {
    if (is_iteration(*s))
      continue;
    all.count += s->count;
    all.errors += s->errors;
    all.latency.merge(s->latency);
  }
  return all;
}

double ms(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

double us(double ns) {
  return ns / 1e3;
}

std::string target_text(const options& o) {
  if (!o.stdio())
    return o.raw_post ? o.url + " (raw POST: no MCP session, id 1)" : o.url;
  std::string out = "stdio:";
  for (const auto& a : o.command)
    out += " " + a;
  return out;
}

std::string loop_text(const options& o) {
  if (o.memory_mode())
    return "runs to completion";
  std::string out = o.open_loop() ? format("open loop at %.0f req/s", o.rate)
                                  : std::string{"closed loop"};
  if (o.requests)
    out += format(", %llu measured requests",
                  static_cast<unsigned long long>(*o.requests));
  else
    out += format(", %.1f s measured", std::chrono::duration<double>(
                                         *o.run_for)
                                         .count());
  out += format(" after a %.1f s warm-up",
                std::chrono::duration<double>(o.warmup).count());
  return out;
}

/// Valid replies in the window per second.
double rate(const op_stats& s, double window) {
  return window > 0 ? static_cast<double>(s.latency.count()) / window : 0.0;
}

/// The server's CPU seconds in the measured window (load scenarios).
std::optional<double> server_cpu(const run_result& r) {
  if (!r.window_start || !r.after || r.sampled_s <= 0)
    return std::nullopt;
  return r.after->cpu_s - r.window_start->cpu_s;
}

} // namespace

std::string human_report(const options& o, const run_result& r,
                         const error_log& errors) {
  std::string out;
  out += format("time-tracker-bench: %s over %s\n", name_of(o.kind),
                target_text(o).c_str());
  out += format("%zu clients, %u thread%s, %s; protocol %s%s\n", o.clients,
                o.threads, o.threads == 1 ? "" : "s", loop_text(o).c_str(),
                o.protocol_version.c_str(),
                mcp::era_of(o.protocol_version) == mcp::era::modern
                  ? " (stateless: no initialize, _meta on every request)"
                  : "");
  if (r.aborted)
    out += "set-up failed: no load was run\n";
  auto rows = r.stats.rows();
  auto all = all_requests(r);
  std::size_t width = all.name.size();
  for (const auto* s : rows)
    width = std::max(width, s->name.size());
  out += "\n";
  out += format("%-*s %9s %7s %10s %9s %9s %9s %9s %9s\n",
                static_cast<int>(width), "operation", "count", "errors",
                "ok/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms");
  auto line = [&](const op_stats& s) {
    const auto& h = s.latency;
    out += format("%-*s %9llu %7llu %10.1f %9.3f %9.3f %9.3f %9.3f %9.3f\n",
                  static_cast<int>(width), s.name.c_str(),
                  static_cast<unsigned long long>(s.count),
                  static_cast<unsigned long long>(s.errors),
                  rate(s, r.window_s), ms(h.quantile(0.5)),
                  ms(h.quantile(0.9)), ms(h.quantile(0.99)),
                  ms(h.quantile(0.999)), ms(h.max()));
  };
  for (const auto* s : rows)
    if (!is_iteration(*s))
      line(*s);
  line(all);
  for (const auto* s : rows)
    if (is_iteration(*s))
      line(*s);
  out += format("(window %.3f s; ok/s counts valid replies in the window)\n",
                r.window_s);

  if (r.server_pid != 0) {
    out += format("\nserver pid %d: RSS", r.server_pid);
    if (r.start)
      out += format(" %.1f MiB at start,", r.start->rss_kib / 1024.0);
    if (r.before && r.after) {
      out += format(" %.1f MiB before the load, %.1f MiB after (peak %.1f "
                    "MiB)",
                    r.before->rss_kib / 1024.0, r.after->rss_kib / 1024.0,
                    r.after->hwm_kib / 1024.0);
      if (auto cpu = server_cpu(r)) {
        out += format("; CPU %.2f s in the window (%.0f%% of a core", *cpu,
                      100.0 * *cpu / r.sampled_s);
        if (all.latency.count() > 0)
          out += format(", %.1f us per valid reply",
                        1e6 * *cpu / static_cast<double>(all.latency.count()));
        out += ")";
      }
    } else {
      out += " not readable in /proc";
    }
    out += "\n";
  } else if (!o.stdio()) {
    out += "\n(no --server-pid: server RSS and CPU not reported)\n";
  }
  if (!o.memory_mode() && r.sampled_s > 0)
    out += format("bench: CPU %.2f s in the window (%.0f%% of a core, %u "
                  "thread%s)\n",
                  r.bench_cpu_s, 100.0 * r.bench_cpu_s / r.sampled_s,
                  o.threads, o.threads == 1 ? "" : "s");
  if (o.open_loop() && r.stats.send_lag().count() > 0) {
    const auto& h = r.stats.send_lag();
    out += format("bench: sent late by p50 %.3f ms, p99 %.3f ms, max %.3f ms "
                  "after the due time (in the latency above)\n",
                  ms(h.quantile(0.5)), ms(h.quantile(0.99)), ms(h.max()));
  }
  // As bench/compare.sh judges it: at >= 90 % of its threads' cores the
  // bench, not the server, set the pace.
  if (!o.memory_mode() && r.sampled_s > 0
      && r.bench_cpu_s / r.sampled_s
           >= 0.9 * std::min(o.threads,
                             std::max(1u, std::thread::hardware_concurrency())))
    out += "SATURATED: the bench used >= 90% of its threads' CPU; the "
           "throughput above is the bench's limit (try --threads)\n";
  if (!r.phases.empty()) {
    out += "\nmemory (server RSS after each phase):\n";
    for (const auto& [name, kib] : r.phases)
      out += format("  %-24s %10ld KiB\n", name.c_str(), kib);
    for (const auto& [name, value] : r.per_unit)
      out += format(name.rfind("bytes", 0) == 0 ? "  %-24s %10.0f bytes\n"
                                                 : "  %-24s %10.0f\n",
                    name.c_str(), value);
  }
  if (errors.total() > 0)
    out += format("\n%llu errors (the first are on stderr)\n",
                  static_cast<unsigned long long>(errors.total()));
  return out;
}

std::string json_report(const options& o, const run_result& r,
                        const error_log& errors) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w{buf};
  auto str = [&](const std::string& s) {
    w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  };
  auto latency = [&](const histogram& h) {
    w.StartObject();
    w.Key("min");
    w.Double(us(static_cast<double>(h.min())));
    w.Key("mean");
    w.Double(us(h.mean()));
    w.Key("p50");
    w.Double(us(static_cast<double>(h.quantile(0.5))));
    w.Key("p90");
    w.Double(us(static_cast<double>(h.quantile(0.9))));
    w.Key("p99");
    w.Double(us(static_cast<double>(h.quantile(0.99))));
    w.Key("p99_9");
    w.Double(us(static_cast<double>(h.quantile(0.999))));
    w.Key("max");
    w.Double(us(static_cast<double>(h.max())));
    w.EndObject();
  };
  auto op = [&](const op_stats& s) {
    w.StartObject();
    w.Key("name");
    str(s.name);
    w.Key("count");
    w.Uint64(s.count);
    w.Key("errors");
    w.Uint64(s.errors);
    w.Key("throughput_rps");
    w.Double(rate(s, r.window_s));
    w.Key("latency_us");
    latency(s.latency);
    w.EndObject();
  };
  auto sample = [&](const char* key,
                    const std::optional<process_sample>& s) {
    w.Key(key);
    if (s)
      w.Int64(s->rss_kib);
    else
      w.Null();
  };

  w.StartObject();
  w.Key("bench");
  w.String("time-tracker-bench");
  w.Key("format_version");
  w.Int(1);
  w.Key("scenario");
  w.String(name_of(o.kind));
  w.Key("target");
  w.StartObject();
  w.Key("transport");
  w.String(o.stdio() ? "stdio" : "http");
  if (o.stdio()) {
    w.Key("command");
    w.StartArray();
    for (const auto& a : o.command)
      str(a);
    w.EndArray();
  } else {
    w.Key("url");
    str(o.url);
    w.Key("raw_post");
    w.Bool(o.raw_post);
  }
  w.EndObject();
  w.Key("config");
  w.StartObject();
  w.Key("clients");
  w.Uint64(o.clients);
  w.Key("threads");
  w.Uint(o.threads);
  w.Key("loop");
  w.String(o.memory_mode() ? "none" : o.open_loop() ? "open" : "closed");
  w.Key("rate");
  if (o.open_loop())
    w.Double(o.rate);
  else
    w.Null();
  w.Key("duration_s");
  if (o.run_for)
    w.Double(std::chrono::duration<double>(*o.run_for).count());
  else
    w.Null();
  w.Key("requests");
  if (o.requests)
    w.Uint64(*o.requests);
  else
    w.Null();
  w.Key("warmup_s");
  w.Double(std::chrono::duration<double>(o.warmup).count());
  w.Key("protocol_version");
  str(o.protocol_version);
  w.Key("era");
  w.String(mcp::era_of(o.protocol_version) == mcp::era::modern ? "modern"
                                                                : "legacy");
  w.Key("tool");
  str(o.tool);
  w.Key("args");
  w.RawValue(o.args.c_str(), o.args.size(), rapidjson::kObjectType);
  w.Key("expect");
  w.String(name_of(o.expect));
  w.Key("tasks");
  w.Uint64(o.tasks);
  w.Key("sessions");
  w.Uint64(o.sessions);
  w.Key("mix");
  w.StartObject();
  for (const auto& m : o.mix) {
    w.Key(name_of(m.kind));
    w.Uint(m.weight);
  }
  w.EndObject();
  w.EndObject();
  w.Key("aborted");
  w.Bool(r.aborted);
  w.Key("window_s");
  w.Double(r.window_s);
  w.Key("total");
  op(all_requests(r));
  w.Key("operations");
  w.StartArray();
  for (const auto* s : r.stats.rows())
    op(*s);
  w.EndArray();
  w.Key("server");
  if (r.server_pid == 0) {
    w.Null();
  } else {
    w.StartObject();
    w.Key("pid");
    w.Int(r.server_pid);
    w.Key("rss_kib");
    w.StartObject();
    sample("start", r.start);
    sample("before", r.before);
    sample("after", r.after);
    w.Key("peak");
    if (r.after)
      w.Int64(r.after->hwm_kib);
    else
      w.Null();
    w.EndObject();
    auto cpu = server_cpu(r);
    auto replies = all_requests(r).latency.count();
    w.Key("cpu_s");
    if (cpu)
      w.Double(*cpu);
    else
      w.Null();
    w.Key("cpu_per_reply_us");
    if (cpu && replies > 0)
      w.Double(1e6 * *cpu / static_cast<double>(replies));
    else
      w.Null();
    w.EndObject();
  }
  w.Key("bench_cpu_s");
  if (!o.memory_mode() && r.sampled_s > 0)
    w.Double(r.bench_cpu_s);
  else
    w.Null();
  w.Key("send_lag_us");
  if (o.open_loop() && r.stats.send_lag().count() > 0)
    latency(r.stats.send_lag());
  else
    w.Null();
  w.Key("memory");
  if (r.phases.empty()) {
    w.Null();
  } else {
    w.StartObject();
    w.Key("rss_kib");
    w.StartObject();
    for (const auto& [name, kib] : r.phases) {
      str(name);
      w.Int64(kib);
    }
    w.EndObject();
    for (const auto& [name, bytes] : r.per_unit) {
      str(name);
      w.Double(bytes);
    }
    w.EndObject();
  }
  w.Key("errors");
  w.Uint64(errors.total());
  w.Key("error_messages");
  w.StartArray();
  for (const auto& m : errors.messages())
    str(m);
  w.EndArray();
  w.EndObject();
  return std::string{buf.GetString(), buf.GetSize()} + "\n";
}

} // namespace ttb
