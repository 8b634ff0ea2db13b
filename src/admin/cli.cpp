#include "admin/cli.hpp"

#include "config.hpp"
#include "domain/absolute_time.hpp"
#include "domain/time_input.hpp"

#include <charconv>

namespace ttm::admin {

std::optional<std::string> args::get(const std::string& name) const {
  auto range = flags.equal_range(name);
  if (range.first == range.second)
    return std::nullopt;
  return std::prev(range.second)->second; // the last one given wins
}

std::vector<std::string> args::all(const std::string& name) const {
  std::vector<std::string> out;
  auto range = flags.equal_range(name);
  for (auto i = range.first; i != range.second; ++i)
    out.push_back(i->second);
  return out;
}

const std::vector<flag>& common_flags() {
  static const std::vector<flag> f = {
    {"--data-dir", "DIR",
     "the data directory (default: as the server resolves it)"},
    {"--config", "FILE", "the server's config file (its data_dir)"},
    {"--journal", "URI",
     "a PostgreSQL journal (postgresql://..., or postgresql: the PG*"
     " environment) instead of the data directory's (import, export, audit,"
     " check)"},
  };
  return f;
}

std::variant<args, std::string> parse(const command& c,
                                      const std::vector<std::string>& in) {
  args out;
  auto find = [&](const std::string& name) -> const flag* {
    for (const auto* list : {&c.flags, &common_flags()})
      for (const auto& f : *list)
        if (name == f.name)
          return &f;
    return nullptr;
  };
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& a = in[i];
    if (a == "--") {
      out.rest.assign(in.begin() + static_cast<long>(i) + 1, in.end());
      break;
    }
    if (a == "--help" || a == "-h") {
      out.help = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      auto eq = a.find('=');
      auto name = a.substr(0, eq);
      const auto* f = find(name);
      if (f == nullptr)
        return "unknown option '" + name + "'";
      std::string value = "true";
      if (eq != std::string::npos)
        value = a.substr(eq + 1);
      else if (*f->arg != '\0') {
        if (i + 1 >= in.size())
          return "option " + name + " needs a value (" + f->arg + ")";
        value = in[++i];
      }
      if (!f->repeats && out.flags.count(name) > 0)
        return "option " + name + " is given twice";
      out.flags.emplace(name, value);
      continue;
    }
    out.positional.push_back(a);
  }
  return out;
}

std::string help_of(const command& c) {
  std::string s = std::string{"Usage: time-tracker-mcp "} + c.usage + "\n\n"
                  + c.summary + "\n\nOptions:\n";
  auto line = [&](const flag& f) {
    std::string left = std::string{"  "} + f.name;
    if (*f.arg != '\0')
      left += std::string{" "} + f.arg;
    if (left.size() < 26)
      left.resize(26, ' ');
    else
      left += "  ";
    s += left + f.help + (f.repeats ? " (repeatable)" : "") + "\n";
  };
  for (const auto& f : c.flags)
    line(f);
  for (const auto& f : common_flags())
    line(f);
  s += "  --help                  this text\n";
  return s;
}

int usage_error(context& ctx, const std::string& name,
                const std::string& message) {
  ctx.err << "time-tracker-mcp " << name << ": " << message
          << "\nRun 'time-tracker-mcp " << name << " --help' for usage.\n";
  return 2;
}

int fault(context& ctx, const std::string& name, const std::string& message) {
  ctx.err << "time-tracker-mcp " << name << ": " << message << "\n";
  return 1;
}

std::string journal_uri(context& ctx, const args& a) {
  std::vector<std::string> server{"stdio"};
  // --data-dir too: without HOME the configuration needs one to load.
  for (const char* f : {"--config", "--data-dir"})
    if (auto v = a.get(f)) {
      server.push_back(f);
      server.push_back(*v);
    }
  if (auto j = a.get("--journal")) {
    server.push_back("--journal");
    server.push_back(*j);
  }
  auto res = load_config(server, ctx.getenv);
  return res.cfg ? res.cfg->journal : std::string{};
}

std::variant<std::string, std::string> data_dir(context& ctx, const args& a) {
  // The server's own resolution: the same flags, file and variables.
  std::vector<std::string> server{"stdio"};
  if (auto f = a.get("--config")) {
    server.push_back("--config");
    server.push_back(*f);
  }
  if (auto d = a.get("--data-dir")) {
    server.push_back("--data-dir");
    server.push_back(*d);
  }
  auto res = load_config(server, ctx.getenv);
  if (!res.cfg) {
    auto text = res.text;
    if (auto cut = text.find("\nRun "); cut != std::string::npos)
      text.resize(cut);
    return std::variant<std::string, std::string>{std::in_place_index<1>,
                                                  text};
  }
  if (res.cfg->ephemeral)
    return std::variant<std::string, std::string>{
      std::in_place_index<1>,
      "the configuration says --ephemeral: there is no data directory"};
  return std::variant<std::string, std::string>{std::in_place_index<0>,
                                                res.cfg->data_dir};
}

std::variant<domain::wall_time, std::string>
read_time(context& ctx, const char* flag, const std::string& text,
          const domain::zone& z) {
  domain::time_input_options opts;
  opts.now = ctx.clock->wall_now();
  opts.in = &z;
  opts.on_conflict = domain::disambiguation::compatible;
  auto r = domain::parse_time_input(text, opts);
  if (auto* e = std::get_if<domain::time_input_error>(&r))
    return std::string{flag} + ": " + e->message;
  return std::get<domain::time_input>(r).instant;
}

std::variant<domain::zone, std::string> zone_of(const args& a) {
  auto name = a.get("--timezone").value_or("UTC");
  auto z = domain::resolve_zone(name, "UTC");
  if (!z.found)
    return "--timezone: " + z.message;
  return *z.found;
}

std::variant<std::int64_t, std::string>
count_of(const args& a, const char* name, std::int64_t fallback,
         std::int64_t max) {
  auto text = a.get(name);
  if (!text)
    return fallback;
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc{} || end != text->data() + text->size() || n < 1
      || n > max)
    return std::string{name} + ": '" + *text + "' is not a number from 1 to "
           + std::to_string(max);
  return n;
}

progress::progress(context& ctx, std::string what, std::string unit)
  : ctx_(ctx), what_(std::move(what)), unit_(std::move(unit)),
    start_(std::chrono::steady_clock::now()), last_(start_) {
}

void progress::operator()(std::int64_t done, std::int64_t total) {
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::seconds{1})
    return;
  last_ = now;
  printed_ = true;
  ctx_.err << what_ << ": " << done;
  if (total >= 0) // unknown while reading a stream
    ctx_.err << " of " << total;
  ctx_.err << " " << unit_ << std::endl;
}

void progress::finish(std::int64_t done) {
  if (!printed_)
    return;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::steady_clock::now() - start_)
              .count();
  ctx_.err << what_ << ": " << done << " " << unit_ << " in " << ms << " ms"
           << std::endl;
}

} // namespace ttm::admin
