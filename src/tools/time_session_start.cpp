#include "domain/ids.hpp"
#include "domain/time_format.hpp"
#include "domain/zones.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"

#include <algorithm>

namespace ttm::tools {

namespace {

struct session_start_args {
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  std::vector<std::string> task_ids;
  std::string timezone;
  domain::string_map metadata;
  std::vector<std::string> tags;
  std::optional<std::string> idempotency_key;
  domain::string_map estimates;
};

struct session_start_result : counts_fields {
  std::string session_id;
  std::string milestone_id;
  std::string start_time;
  std::string start_time_friendly;
  std::int64_t task_count = 0;
  std::string timezone;
  bool already_started = false;
};

/// Client-chosen; long enough for a UUID or a hash with a prefix.
constexpr std::size_t max_idempotency_key_length = 256;

/// The reply for session `s`, as its start returned it.
session_start_result reply_of(const domain::tracking_session& s) {
  session_start_result res;
  res.session_id = s.id;
  res.milestone_id = s.milestone_id;
  res.start_time = domain::format_iso8601(s.start.wall, s.tz);
  res.start_time_friendly = domain::format_friendly(s.start.wall, s.tz);
  res.task_count = static_cast<std::int64_t>(s.tasks.size());
  res.timezone = s.tz.name();
  // Current counts: all tasks not started for a new session, the progress
  // so far for a retried start (like time_task_end's already_ended).
  res.set(s.counts());
  return res;
}

/// The first argument in which a retried start differs from the session its
/// idempotency key started, or nullptr when the requests are the same.
const char* first_difference(const session_start_args& a,
                             const domain::tracking_session& s,
                             const domain::zone& tz) {
  if (a.milestone_id != s.milestone_id)
    return "milestone_id";
  if (a.milestone_name != s.milestone_name)
    return "milestone_name";
  // As started: bulk edits may have added or removed tasks since.
  if (a.task_ids != s.started_task_ids)
    return "task_ids";
  if (tz.name() != s.tz.name())
    return "timezone";
  if (a.metadata != s.metadata)
    return "metadata";
  if (a.tags != s.tags)
    return "tags";
  if (a.estimates.size() != s.started_estimates.size())
    return "estimates";
  for (const auto& estimate : a.estimates) {
    // Not a structured binding: C++17 lets no lambda capture one (clang
    // refuses it).
    const auto& task = estimate.first;
    auto e = parse_estimate(estimate.second);
    auto* ms = std::get_if<std::chrono::milliseconds>(&e);
    auto k = std::find_if(
      s.started_estimates.begin(), s.started_estimates.end(),
      [&](const auto& se) { return se.first == task; });
    if (ms == nullptr || k == s.started_estimates.end() || k->second != *ms)
      return "estimates";
  }
  return nullptr;
}

/// A retried start: the first reply again (already_started true), or
/// IDEMPOTENCY_KEY_REUSED when the arguments differ. nullopt when the key
/// names no session this client holds (never used, or expired with it).
std::optional<outcome<session_start_result>>
replay_start(const session_start_args& args, const domain::zone& tz,
             tool_context& ctx) {
  auto* held = ctx.tracker.find_by_key(*args.idempotency_key);
  if (held == nullptr)
    return std::nullopt;
  // A retry names the session: it counts as a call, and one past its
  // limits expires here (the key goes with it).
  auto used = ctx.tracker.use(held->id, domain::now_of(ctx.clock));
  auto* live = std::get_if<domain::tracking_session*>(&used);
  if (live == nullptr)
    return std::nullopt;
  const auto& s = **live;
  if (const char* field = first_difference(args, s, tz))
    return outcome<session_start_result>{tool_error{
      "IDEMPOTENCY_KEY_REUSED",
      "idempotency_key '" + *args.idempotency_key
        + "' already started session " + s.id + " with a different '"
        + field
        + "'. Repeat the first call's arguments exactly to get its reply "
          "again, or use a new key for a new session."}};
  auto res = reply_of(s);
  res.already_started = true;
  return outcome<session_start_result>{std::move(res)};
}

slot_outcome<session_start_result> run(const session_start_args& args,
                                       tool_context& ctx) {
  auto lookup = domain::resolve_zone(args.timezone, ctx.local_zone);
  if (!lookup.found)
    return tool_error{"INVALID_TIMEZONE", std::move(lookup.message),
                      std::move(lookup.suggestions)};
  if (args.idempotency_key)
    if (auto replayed = replay_start(args, *lookup.found, ctx)) {
      if (auto* ok = std::get_if<session_start_result>(&*replayed))
        return std::move(*ok);
      return std::move(std::get<tool_error>(*replayed));
    }
  domain::session_request req{args.milestone_id, args.milestone_name,
                              args.task_ids,     args.metadata,
                              args.tags,         args.idempotency_key};
  for (const auto& [task, text] : args.estimates) {
    auto e = parse_estimate(text);
    if (auto* why = std::get_if<std::string>(&e))
      return tool_error{"VALIDATION_ERROR",
                        "In 'estimates', task '" + task + "': " + *why + "."};
    req.estimates.emplace_back(task, std::get<std::chrono::milliseconds>(e));
  }
  if (auto err = ctx.tracker.check(req))
    return to_tool_error(std::move(*err));
  // The session starts when asked for; it exists once the supervisor
  // granted it one of the global slots.
  auto now = domain::now_of(ctx.clock);
  auto id = domain::make_uuid_v4();
  return slot_wait<session_start_result>{
    id, [id, req = std::move(req), tz = *lookup.found,
         now](const domain::slot_answer& answer, tool_context& ctx) mutable
    -> outcome<session_start_result> {
      if (!answer.granted)
        return limit_reached(answer, ctx);
      return reply_of(ctx.tracker.add(id, std::move(req), tz, now));
    }};
}

} // namespace

tool make_time_session_start(const domain::tracking_limits& limits) {
  using a = session_start_args;
  auto in = std::make_shared<input_schema<a>>();
  in->add("milestone_id", &a::milestone_id,
          "Milestone id, e.g. 'M2'.")
    .required()
    .min_length(1)
    .max_length(max_id_length);
  in->add("milestone_name", &a::milestone_name,
          "Human-readable name.")
    .max_length(max_name_length);
  in->add("task_ids", &a::task_ids,
          "Task ids, each once (may be empty; a re-run is a new run).")
    .required()
    .item_min_length(1)
    .item_max_length(max_id_length);
  in->add("timezone", &a::timezone,
          "Zone of its timestamps (default: the user's preferred zone, else "
          "the server's).")
    .max_length(128)
    .default_to("local");
  add_metadata_arg(*in, &a::metadata, "String metadata, e.g. branch.");
  in->add("tags", &a::tags,
          "Tags, e.g. 'area:gateway'.")
    .max_items(max_tags)
    .item_min_length(1)
    .item_max_length(max_id_length);
  in->add("idempotency_key", &a::idempotency_key,
          "Retry key: a retry returns the first reply; other arguments: "
          "IDEMPOTENCY_KEY_REUSED.")
    .min_length(1)
    .max_length(max_idempotency_key_length);
  in->add("estimates", &a::estimates,
          "Task id -> estimate: minutes (15), '1.5h' or ISO 8601 "
          "('PT1H30M').")
    .max_properties(tracking_estimates_max)
    .item_max_length(32);

  using r = session_start_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("session_id", &r::session_id,
           "Unique session identifier for subsequent calls.");
  out->add("milestone_id", &r::milestone_id, "The milestone.");
  out->add("start_time", &r::start_time,
           "ISO 8601 timestamp when the session started.");
  out->add("start_time_friendly", &r::start_time_friendly,
           "Human-readable start time.");
  out->add("task_count", &r::task_count,
           "Number of tasks registered for this session.");
  out->add("timezone", &r::timezone,
           "The zone of every timestamp in this session (never 'local').");
  add_counts(*out);
  out->add("already_started", &r::already_started,
           "True when idempotency_key named a session already started: this "
           "is that session as its start returned it (the counts are "
           "current).");
  tool_spec<a, r> spec;
  spec.name = "time_session_start";
  spec.toolset = "tracking";
  // zone argument, omitted = local, locale, week_start
  spec.preferences = preference_defaults{"timezone", true, false, false};
  spec.role = role::session_start;
  spec.instructions = {phase::begin, "time_session_start with its task_ids"};
  spec.title = "Start a tracking session";
  spec.description
    = "Times a milestone's tasks; returns the session_id the task and "
      "session tools take. Expires after "
      + domain::format_duration(limits.max_idle) + " idle or "
      + domain::format_duration(limits.max_age) + " after its start.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::none;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
