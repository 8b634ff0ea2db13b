#include "mcp/prompts.hpp"

#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"
#include "protocol/json_rpc.hpp"

#include <date/date.h>

#include <algorithm>
#include <cctype>

namespace ttm::mcp {

namespace {

constexpr std::size_t max_value_bytes = 4096;
constexpr std::size_t max_plan_tasks = 100;

const std::string* find_arg(const prompt_args& args, std::string_view name) {
  for (const auto& [k, v] : args)
    if (k == name)
      return &v;
  return nullptr;
}

// The `timezone` argument, as the tools read it ("local" by default).
std::variant<domain::zone, std::string> zone_arg(const prompt_args& args,
                                                 const prompt_context& ctx) {
  const auto* name = find_arg(args, "timezone");
  auto found = domain::resolve_zone(name != nullptr ? *name : "local",
                                    ctx.local_zone);
  if (!found.found)
    return "timezone: " + found.message;
  return std::move(*found.found);
}

// YYYY-MM-DD of a local day number (days since 1970-01-01).
std::string day_text(long long local_day) {
  date::year_month_day ymd{date::sys_days{date::days{local_day}}};
  return date::format("%F", ymd);
}

// -- execution_report -----------------------------------------------------

prompt_outcome execution_report(const prompt_args& args,
                                const prompt_context&) {
  const auto& id = *find_arg(args, "session_id");
  auto call = R"({"session_id": )" + protocol::json_quote(id)
              + R"(, "format": "markdown"})";
  return prompt_text{
    "The execution report of tracking session " + id,
    "Write the execution report of the milestone I tracked in session "
      + id + ".\n\nCall `time_session_report` with " + call
      + ". It returns the report in the spec's template (header, task "
        "execution log, summary, Mermaid gantt chart) with times and "
        "durations from the server's clocks: keep those facts as they are. "
        "After it, add a short \"Notes\" section: the longest tasks, and "
        "why tasks were skipped, failed or interrupted where you know it. "
        "If the session is still open, say so and do not end it."};
}

// -- standup ----------------------------------------------------------------

prompt_outcome standup(const prompt_args& args, const prompt_context& ctx) {
  auto zone_or = zone_arg(args, ctx);
  if (auto* why = std::get_if<std::string>(&zone_or))
    return *why;
  const auto& z = std::get<domain::zone>(zone_or);
  std::string from, until, span;
  if (const auto* day = find_arg(args, "date")) {
    domain::time_input_options o;
    o.now = ctx.now;
    o.in = &z;
    o.on_conflict = domain::disambiguation::compatible;
    auto parsed = domain::parse_time_input(*day, o);
    if (auto* err = std::get_if<domain::time_input_error>(&parsed))
      return "date: " + err->message;
    auto local_day
      = domain::describe(std::get<domain::time_input>(parsed).instant, z)
          .local_day;
    // The day's two midnights, read as the tools would read the dates.
    auto midnight = [&](long long d) {
      auto text = day_text(d);
      auto at = domain::parse_time_input(text, o);
      return domain::format_iso8601(std::get<domain::time_input>(at).instant,
                                    z);
    };
    from = midnight(local_day);
    until = midnight(local_day + 1);
    span = "on " + day_text(local_day) + " (" + z.name() + ")";
  } else {
    from = domain::format_iso8601(ctx.now - std::chrono::hours{24}, z);
    until = domain::format_iso8601(ctx.now, z);
    span = "in the last 24 hours (until " + until + ")";
  }
  auto call = R"({"started_after": )" + protocol::json_quote(from)
              + R"(, "started_before": )" + protocol::json_quote(until)
              + "}";
  return prompt_text{
    "A standup from the sessions tracked " + span,
    "Prepare my standup from what I tracked " + span
      + ".\n\nCall `time_session_list` with " + call
      + " (follow `next_cursor` while there is one), and "
        "`time_session_summary` with include_task_details for the sessions "
        "worth detail. Then write three short lists: done (with durations), "
        "in progress, and blocked (skipped, failed or interrupted tasks). "
        "Use the durations the tools give; do not estimate times yourself."};
}

// -- plan_milestone -------------------------------------------------------

struct planned_task {
  std::string id;
  std::string name;
};

// "parse: Parse the input" -> {parse, Parse the input}; "Write docs" ->
// {write-docs, Write docs}. One task per line, or comma-separated.
std::variant<std::vector<planned_task>, std::string>
read_tasks(const std::string& text) {
  std::vector<planned_task> out;
  bool lines = text.find('\n') != std::string::npos;
  std::size_t at = 0;
  while (at <= text.size()) {
    auto end = text.find(lines ? '\n' : ',', at);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(at, end - at);
    at = end + 1;
    auto trim = [](std::string s) {
      auto b = s.find_first_not_of(" \t\r-*");
      auto e = s.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
    };
    item = trim(item);
    if (std::none_of(item.begin(), item.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0
                 || static_cast<unsigned char>(c) >= 0x80;
        }))
      continue; // a blank line or a lone separator
    planned_task t;
    auto colon = item.find(':');
    if (colon != std::string::npos && colon > 0
        && item.find(' ') > colon) { // "id: name", the id a single word
      t.id = item.substr(0, colon);
      t.name = trim(item.substr(colon + 1));
    } else {
      t.name = item;
      for (char c : item) {
        auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) != 0)
          t.id += static_cast<char>(std::tolower(u));
        else if (!t.id.empty() && t.id.back() != '-')
          t.id += '-';
      }
      while (!t.id.empty() && t.id.back() == '-')
        t.id.pop_back();
      if (t.id.size() > 48)
        t.id.resize(48);
      if (t.id.empty())
        t.id = "task-" + std::to_string(out.size() + 1);
    }
    for (const auto& other : out)
      if (other.id == t.id)
        return "tasks: the task id '" + t.id
               + "' comes twice; give each task its own id ('id: name')";
    out.push_back(std::move(t));
    if (out.size() > max_plan_tasks)
      return "tasks: at most " + std::to_string(max_plan_tasks)
             + " tasks in one plan";
  }
  if (out.empty())
    return "tasks: no task found; give one per line, e.g. 'parse: Parse the "
           "input'";
  return out;
}

prompt_outcome plan_milestone(const prompt_args& args,
                              const prompt_context& ctx) {
  const auto& milestone = *find_arg(args, "milestone_id");
  auto tasks_or = read_tasks(*find_arg(args, "tasks"));
  if (auto* why = std::get_if<std::string>(&tasks_or))
    return *why;
  auto zone_or = zone_arg(args, ctx);
  if (auto* why = std::get_if<std::string>(&zone_or))
    return *why;
  const auto& tasks = std::get<std::vector<planned_task>>(tasks_or);
  std::string call = R"({"milestone_id": )" + protocol::json_quote(milestone);
  if (const auto* name = find_arg(args, "milestone_name"))
    call += R"(, "milestone_name": )" + protocol::json_quote(*name);
  // Only a zone the user named: the tool's own default is the server's.
  if (find_arg(args, "timezone") != nullptr)
    call += R"(, "timezone": )"
            + protocol::json_quote(std::get<domain::zone>(zone_or).name());
  call += R"(, "task_ids": [)";
  std::string list;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    call += (i == 0 ? "" : ", ") + protocol::json_quote(tasks[i].id);
    list += "- `" + tasks[i].id + "`: " + tasks[i].name + "\n";
  }
  call += "]}";
  return prompt_text{
    "A plan to track milestone " + milestone + " task by task",
    "Plan and track milestone " + milestone + " with the time tracker.\n\n"
      "Tasks:\n" + list
      + "\n1. Call `time_session_start` with " + call
      + " and keep the `session_id` it returns.\n"
        "2. For each task, call `time_task_start` (session_id, task_id, "
        "task_name) when you begin it and `time_task_end` with status "
        "completed, skipped or failed when it is done; tasks may overlap.\n"
        "3. Now and then call `time_session_summary` to see the elapsed time "
        "and what remains; report progress from it, not from memory.\n"
        "4. At the end call `time_session_end`"
      + std::string{ctx.reports
                      ? ", then write the report with the execution_report "
                        "prompt or `time_session_report`."
                      : ", then report from its summary."}};
}

} // namespace

const std::vector<prompt>& server_prompts() {
  static const std::vector<prompt> all{
    {"execution_report",
     "Execution report",
     "Turns a tracking session into the spec's execution report (header, "
     "task log, summary, gantt chart).",
     {{"session_id", "Session",
       "The session_id time_session_start returned.", true}},
     &execution_report,
     {tools::role::session_report}},
    {"standup",
     "Standup",
     "What you tracked in the last 24 hours, or on a given day: done, in "
     "progress, blocked.",
     {{"date", "Day",
       "Optional: a day such as 2026-11-24, yesterday or last friday; by "
       "default the last 24 hours.",
       false},
      {"timezone", "Time zone",
       "Optional: the zone the day is read in (IANA name, Windows name or "
       "offset); the server's zone by default.",
       false}},
     &standup,
     {tools::role::session_list, tools::role::session_summary}},
    {"plan_milestone",
     "Plan a milestone",
     "How to start a tracking session from a task list and time each task.",
     {{"milestone_id", "Milestone", "The milestone's id, e.g. M3.", true},
      {"tasks", "Tasks",
       "One task per line (or comma-separated), optionally 'id: name'.",
       true},
      {"milestone_name", "Milestone name", "Optional: a readable name.",
       false},
      {"timezone", "Time zone",
       "Optional: the session's zone (IANA name, Windows name or offset); "
       "the server's zone by default.",
       false}},
     &plan_milestone,
     {tools::role::session_start, tools::role::task_start,
      tools::role::task_end, tools::role::session_summary,
      tools::role::session_end}},
  };
  return all;
}

bool offered(const prompt& p, const tools::registry& r) {
  return std::all_of(p.tools.begin(), p.tools.end(),
                     [&r](auto t) { return r.find_role(t) != nullptr; });
}

std::string not_offered(const prompt& p, const tools::registry& r) {
  for (auto t : p.tools)
    if (r.find_role(t) == nullptr) {
      const auto* off = r.declared(t);
      if (off == nullptr)
        return "prompt '" + p.name + "' needs a tool this server lacks";
      return "prompt '" + p.name + "' needs the tool " + off->name()
             + ", which this server does not offer: its toolset '"
             + off->about().toolset
             + "' is off (start the server with --toolsets naming it)";
    }
  return {};
}

const prompt* find_prompt(std::string_view name) {
  for (const auto& p : server_prompts())
    if (p.name == name)
      return &p;
  return nullptr;
}

prompt_outcome render_prompt(const prompt& p, const prompt_args& args,
                             const prompt_context& ctx) {
  auto names = [&p] {
    std::string out;
    for (const auto& a : p.arguments)
      out += (out.empty() ? "" : ", ") + a.name;
    return out.empty() ? std::string{"none"} : out;
  };
  for (const auto& [k, v] : args) {
    auto known = std::any_of(p.arguments.begin(), p.arguments.end(),
                             [&k = k](const auto& a) { return a.name == k; });
    if (!known)
      return "prompt '" + p.name + "' has no argument "
             + protocol::json_quote(k) + "; it takes " + names();
    if (v.size() > max_value_bytes)
      return "argument '" + k + "' is longer than "
             + std::to_string(max_value_bytes) + " bytes";
  }
  for (const auto& a : p.arguments) {
    const auto* v = find_arg(args, a.name);
    if (a.required && (v == nullptr || v->empty()))
      return "prompt '" + p.name + "' needs the argument '" + a.name + "'";
  }
  return p.render(args, ctx);
}

void write_prompt_list(json_writer& w, const tools::registry& r) {
  w.StartArray();
  for (const auto& p : server_prompts()) {
    if (!offered(p, r))
      continue;
    w.StartObject();
    write_member(w, "name", p.name);
    write_member(w, "title", p.title);
    write_member(w, "description", p.description);
    w.string("arguments");
    w.StartArray();
    for (const auto& a : p.arguments) {
      w.StartObject();
      write_member(w, "name", a.name);
      write_member(w, "title", a.title);
      write_member(w, "description", a.description);
      w.string("required");
      w.Bool(a.required);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

} // namespace ttm::mcp
