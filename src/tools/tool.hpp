#pragma once

#include "domain/clock.hpp"
#include "domain/history.hpp"
#include "domain/preferences.hpp"
#include "domain/principal_ops.hpp"
#include "domain/slots.hpp"
#include "domain/tracking.hpp"
#include "protocol/mcp.hpp"
#include "tools/once_retry.hpp"
#include "tools/schema.hpp"
#include "tools/schema_defs.hpp"

#include <rapidjson/schema.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace ttm::tools {

/// A tool failure the agent should see and can act on (`isError: true`).
struct tool_error {
  std::string code;    ///< stable, e.g. "INVALID_TIMEZONE"
  std::string message; ///< a sentence for the agent
  std::vector<std::string> suggestions = {};
  /// LIMIT_REACHED: the option name of the limit that was hit.
  std::string limit = {};
  /// time_tasks_edit: the index of the operation that failed the call.
  std::optional<std::int64_t> operation = {};
  /// SESSION_NOT_FOUND of a tracking lookup (use_session): the id, which
  /// may name one of the caller's focus sessions; to_call_result then
  /// looks it up and, if so, says what it is and which tools read it.
  std::string maybe_focus = {};
};

/// The error for `id`, one of the caller's focus sessions, named where a
/// tracking session was expected (`was`: the tracking lookup's error).
tool_error focus_not_tracking(const tool_error& was, const std::string& id);

template <class Result>
using outcome = std::variant<Result, tool_error>;

struct tool_context;

/// A call that needs a global slot (a new tracking session) before it can
/// finish. The supervisor, another actor, decides; the client actor asks it
/// and then runs `finish` with the answer.
template <class Result>
struct slot_wait {
  std::string session_id;
  std::function<outcome<Result>(const domain::slot_answer& answer,
                                 tool_context& ctx)>
    finish;
};

/// A call that reads the caller's history (its sessions, live and past)
/// first. The MCP layer runs `filter` for the caller's principal and era
/// (the journal, off the client's thread; with --ephemeral the sessions
/// the client holds) and then `finish` with the page.
template <class Result>
struct history_wait {
  domain::history_filter filter;
  std::function<outcome<Result>(const domain::history_page& page,
                                 tool_context& ctx)>
    finish;
};

/// A call that reads or changes its caller's preferences or focus sessions
/// first. The MCP layer runs `op` for the caller's principal (in the
/// journal, off the client's thread; with --ephemeral in memory) and then
/// `finish` with the principal's state after it.
template <class Result>
struct principal_wait {
  domain::principal_op op;
  std::function<outcome<Result>(const domain::principal_state& state,
                                 tool_context& ctx)>
    finish;
};

template <class Result>
using slot_outcome = std::variant<Result, tool_error, slot_wait<Result>,
                                  history_wait<Result>, principal_wait<Result>>;

/// A result the contract makes `null` (request_break_if_needed when no break
/// is due): a tool's Result type says so by deriving from this and setting
/// `is_null`. Its output schema is `anyOf` null or the object (SEP-2106: a
/// non-object root, which 2026-07-28 allows); the 2025 revisions, whose
/// structuredContent must be an object, get the SDK's wrap of it:
/// `{"result": null}` or `{"result": {...}}` against `{"type": "object",
/// "properties": {"result": <that schema>}}`.
struct nullable_result {
  bool is_null = false;
};

/// The 2026-07-28 output schema of a nullable result (`object_schema`: the
/// object's, error shape included) and its 2025 wrap.
std::string nullable_output_schema(const std::string& object_schema);
std::string wrapped_output_schema(const std::string& object_schema);

/// The compiled-in preferences (no config file).
inline const domain::preferences& builtin_preferences() {
  static const domain::preferences p;
  return p;
}

/// What a handler may use besides its arguments. Everything here is owned by
/// the calling client actor, so handlers need no locks.
struct tool_context {
  const domain::clock_source& clock;
  /// The host zone's IANA name, used for timezone "local".
  const std::string& local_zone;
  /// Sends a log message to the client (filtered by its logging level).
  std::function<void(protocol::log_level, std::string)> log;
  /// The calling client's tracking sessions.
  domain::tracker& tracker;
  /// The server's default preferences (a principal's stored ones apply on
  /// top of them: domain::preferences via tools::effective_preferences).
  const domain::preferences& defaults = builtin_preferences();
  /// When this principal's previous request reached this server (not this
  /// one); unset for its first.
  std::optional<domain::wall_time> previous_request{};
  /// The caller's locale (BCP 47) when its preferences were read for this
  /// call, else the server's default: month and weekday names of a time
  /// argument are read in it too (a tool's own `locale` argument wins).
  std::string locale{};
  /// The client renders MCP Apps (docs/app.md): a tool linked to the view
  /// (tool_about::ui_resource) may leave the SVG it draws in `view_svg`,
  /// which goes out in the result's `_meta`, not to the model.
  bool ui_view = false;
  std::string view_svg{};
};

/// A tool's behaviour hints (MCP tool annotations), named and combined:
/// `hint::read_only | hint::idempotent`. Unnamed hints are false.
enum class hint : std::uint8_t {
  none = 0,
  read_only = 1,
  destructive = 2,
  idempotent = 4,
  open_world = 8,
};

constexpr hint operator|(hint a, hint b) noexcept {
  return static_cast<hint>(static_cast<std::uint8_t>(a)
                           | static_cast<std::uint8_t>(b));
}

constexpr bool has(hint set, hint h) noexcept {
  return (static_cast<std::uint8_t>(set) & static_cast<std::uint8_t>(h)) != 0;
}

/// Which of a tool's arguments fall back to the caller's preferences when a
/// call omits them (the MCP layer fills them in before the call).
struct preference_defaults {
  /// The zone argument ("timezone", "from_timezone"): its 'local' stands
  /// for the caller's preferred zone.
  const char* zone_arg = "timezone";
  /// Omitting the zone argument means 'local' too (false: only an explicit
  /// 'local' is the caller's zone; a report's default is its session's).
  bool omitted_is_local = true;
  /// The tool takes `locale` / `week_start`, which fall back to the
  /// caller's preference when omitted in a call that uses the caller's zone
  /// (a call naming its zone reads no preferences: it never waits).
  bool locale = false;
  bool week_start = false;
};

/// What prompts and resources ask the registry for instead of a tool name:
/// the tool that does this, if its toolset is on.
enum class role : std::uint8_t {
  none,
  session_start,   ///< starts a tracking session from a task list
  task_start,      ///< starts a task of a tracking session
  task_end,        ///< ends a task of a tracking session
  session_summary, ///< a tracking session's progress
  session_end,     ///< ends a tracking session
  session_report,  ///< a session's execution report (format: md, csv, ...)
  session_list,    ///< the caller's sessions of a time range
};

/// Where a tool comes in an agent's work: the order in which the server's
/// instructions mention the tools of one toolset.
enum class phase : std::uint8_t {
  begin,    ///< when the work begins
  each,     ///< every turn, every task
  periodic, ///< now and then
  end,      ///< when the work is done
};

/// What the server's instructions say about a tool: a fragment of its
/// toolset's sentence (toolsets.hpp), e.g. "get_time_context at the start
/// of a turn". Empty: the instructions do not mention it.
struct instructions_note {
  tools::phase phase = phase::each;
  std::string text;
};

/// The MCP App (io.modelcontextprotocol/ui) the timeline tools link to
/// (docs/app.md); the MCP layer serves it.
inline constexpr std::string_view timeline_view_uri
  = "ui://time-tracker/timeline.html";

/// What a call of a tool costs: `light` stays about the same whatever the
/// caller has stored; `heavy` grows with the data it reads or writes (a
/// summary of every task, a bulk edit). An HTTP I/O thread runs light calls
/// itself and leaves heavy ones to the scheduler's workers, so a long call
/// never holds up other connections (docs/architecture.md).
enum class cost : std::uint8_t { light, heavy };

/// What the registry knows about a tool without compiling its schemas.
struct tool_about {
  std::string toolset; ///< a name of toolsets(); required
  std::optional<tools::preference_defaults> preferences;
  tools::role role = role::none;
  instructions_note instructions;
  /// The ui:// resource the tool's results show in (`_meta.ui.resourceUri`
  /// for clients that render MCP Apps); empty: none.
  std::string ui_resource = {};
  tools::cost cost = cost::light;
};

/// How a call ended (or paused).
struct call_result {
  enum status_t {
    ok,
    failed,
    invalid_arguments,
    needs_slot,
    needs_history,
    needs_principal
  };
  status_t status = ok;
  /// ok: a nullable result (`structured` is "null" or the object), which
  /// the 2025 revisions get wrapped as {"result": ...}.
  bool wrap_for_legacy = false;
  /// The structuredContent JSON (success or {error, error_code, ...}).
  std::string structured;
  /// For invalid_arguments: a sentence naming the offending field.
  std::string message;
  /// For needs_slot: the tracking session that needs a global slot, and
  /// what finishes the call once the supervisor granted or refused it.
  std::string slot_id;
  std::function<call_result(const domain::slot_answer& answer,
                             tool_context& ctx)>
    resume;
  /// For needs_history: the query, and what finishes the call with its page.
  domain::history_filter history;
  std::function<call_result(const domain::history_page& page,
                            tool_context& ctx)>
    resume_history;
  /// ok or failed, for a client that renders MCP Apps: the SVG the tool
  /// drew (tool_context::view_svg); empty: none.
  std::string view_svg;
  /// For needs_principal: the operation, and what finishes the call.
  domain::principal_op principal;
  std::function<call_result(const domain::principal_state& state,
                            tool_context& ctx)>
    resume_principal;
};

/// A tool's schemas as tools/list shows them: JSON text (`modern_output`:
/// a nullable result's 2026-07-28 output schema; empty: the same).
struct schema_texts {
  std::string input;
  std::string output;
  std::string modern_output = {};
};

/// A tool as the registry sees it: metadata, schemas and a type-erased call.
/// The schemas are rendered and compiled on first use (about 0.5 ms for
/// all tools, which a server need not pay before its initialize reply);
/// name and `about` are there at once.
class tool {
public:
  using invoker = std::function<call_result(const rapidjson::Value& args,
                                            tool_context& ctx)>;

  /// `schemas` runs once, on first use, under a once-flag the copies of
  /// this tool share.
  tool(std::string name, std::string title, std::string description,
       hint annotations, tool_about about,
       std::function<schema_texts()> schemas, invoker invoke);

  const std::string& name() const noexcept {
    return name_;
  }

  /// Its toolset, preference defaults, role and instructions note.
  const tool_about& about() const noexcept {
    return about_;
  }

  /// nullptr: no argument falls back to the caller's preferences.
  const tools::preference_defaults* preference_defaults() const noexcept {
    return about_.preferences ? &*about_.preferences : nullptr;
  }

  /// Renders and compiles the schemas now if that has not happened yet.
  void compile() const;

  /// Validates `args` against the input schema, then runs the handler;
  /// values of an unambiguous meaning are first retyped as the schema
  /// declares them (coerce_lax, lax_input.hpp).
  call_result call(const rapidjson::Value& args, tool_context& ctx) const;

  /// The tool's entry in tools/list (`modern`: for 2026-07-28, where a
  /// nullable result's schema is not wrapped; `ui`: for a client that
  /// renders MCP Apps, with `_meta.ui.resourceUri` when it has a view).
  void write_definition(json_writer& w, bool modern = false,
                        bool ui = false) const;

  const std::string& input_schema_json() const {
    return compiled().texts.input;
  }

  /// The 2025 output schema (a nullable result's wrap, which check_output
  /// uses).
  const std::string& output_schema_json() const {
    return compiled().texts.output;
  }

  /// For tests and debug checks: does `structured` match the output schema?
  /// Returns an empty string when it does, else what is wrong.
  std::string check_output(const std::string& structured) const;

private:
  struct compiled_schemas {
    schema_texts texts;
    // Kept alive beside the schema documents compiled from them.
    std::shared_ptr<const rapidjson::Document> input_doc;
    std::shared_ptr<const rapidjson::SchemaDocument> input_schema;
    std::shared_ptr<const rapidjson::Document> output_doc;
    std::shared_ptr<const rapidjson::SchemaDocument> output_schema;
  };
  /// Shared by the copies of a tool: compiled once for all of them.
  struct lazy_schemas {
    once_retry once;
    std::function<schema_texts()> make;
    compiled_schemas value;
  };

  const compiled_schemas& compiled() const;

  std::string name_;
  std::string title_;
  std::string description_;
  hint annotations_;
  tool_about about_;
  std::shared_ptr<lazy_schemas> schemas_;
  invoker invoke_;
};

/// The structuredContent of a failed call.
std::string encode_tool_error(const tool_error& err);

/// A tracking failure as the agent sees it.
inline tool_error to_tool_error(domain::tracking_error err) {
  return {std::move(err.code), std::move(err.message),
          std::move(err.suggestions)};
}

/// The error shape every output schema carries beside the result fields
/// (`with_error_flag` false: the caller declares "error" itself, as
/// make_output_schema does: false on every success, true on a failure).
void write_error_properties(json_writer& w, bool with_error_flag = true);
void write_error_required(json_writer& w);

/// The output schema: the result's properties plus the error shape, with
/// `anyOf` requiring either every result field or error/error_code/message.
template <class Result>
std::string make_output_schema(const output_schema<Result>& out) {
  rapidjson::StringBuffer buf;
  json_writer w{buf};
  w.StartObject();
  w.Key("type");
  w.String("object");
  w.Key("properties");
  w.StartObject();
  out.write_properties(w, true);
  // Every result says whether it failed: `"error": false` on a success
  // too (to_call_result), so a client tests one field.
  w.Key("error");
  w.StartObject();
  w.Key("type");
  w.String("boolean");
  w.Key("description");
  w.String("false: success; true: failed.");
  w.EndObject();
  write_error_properties(w, false);
  w.EndObject();
  w.Key("anyOf");
  w.StartArray();
  w.StartObject();
  w.Key("required");
  w.StartArray();
  out.write_required(w);
  w.String("error");
  w.EndArray();
  w.EndObject();
  write_error_required(w);
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

/// `r` with the SVG its handler left in `ctx` (tool_context::view_svg).
inline call_result with_view(call_result r, tool_context& ctx) {
  r.view_svg = std::move(ctx.view_svg);
  ctx.view_svg.clear();
  return r;
}

template <class Result>
call_result to_call_result(const output_schema<Result>& out,
                           outcome<Result> res) {
  call_result r;
  if (auto* ok = std::get_if<Result>(&res)) {
    r.structured = out.encode_success(*ok);
    if constexpr (std::is_base_of_v<nullable_result, Result>) {
      r.wrap_for_legacy = true;
      if (ok->is_null)
        r.structured = "null";
    }
    return r;
  }
  r.status = call_result::failed;
  r.structured = encode_tool_error(std::get<tool_error>(res));
  return r;
}

template <class Result>
call_result
to_call_result(const std::shared_ptr<const output_schema<Result>>& out,
               slot_outcome<Result> res) {
  if (auto* wait = std::get_if<slot_wait<Result>>(&res)) {
    call_result r;
    r.status = call_result::needs_slot;
    r.slot_id = std::move(wait->session_id);
    r.resume = [out, finish = std::move(wait->finish)](
                 const domain::slot_answer& answer, tool_context& ctx) {
      return with_view(to_call_result(*out, finish(answer, ctx)), ctx);
    };
    return r;
  }
  if (auto* wait = std::get_if<history_wait<Result>>(&res)) {
    call_result r;
    r.status = call_result::needs_history;
    r.history = std::move(wait->filter);
    r.resume_history = [out, finish = std::move(wait->finish)](
                         const domain::history_page& page, tool_context& ctx) {
      return with_view(to_call_result(*out, finish(page, ctx)), ctx);
    };
    return r;
  }
  if (auto* wait = std::get_if<principal_wait<Result>>(&res)) {
    call_result r;
    r.status = call_result::needs_principal;
    r.principal = std::move(wait->op);
    r.resume_principal = [out, finish = std::move(wait->finish)](
                           const domain::principal_state& state,
                           tool_context& ctx) {
      return with_view(to_call_result(*out, finish(state, ctx)), ctx);
    };
    return r;
  }
  if (auto* ok = std::get_if<Result>(&res))
    return to_call_result(*out, outcome<Result>{std::move(*ok)});
  auto& err = std::get<tool_error>(res);
  if (!err.maybe_focus.empty()) {
    // Not a tracking session of the caller: one of its focus sessions?
    // (Their ids are UUIDs too.) A history query tells; else the error.
    domain::history_filter f;
    f.kind = domain::history_kind::focus;
    f.focus_id = err.maybe_focus;
    f.limit = 1;
    call_result r;
    r.status = call_result::needs_history;
    r.history = std::move(f);
    r.resume_history = [out, err](const domain::history_page& page,
                                  tool_context&) {
      auto e = page.focus.empty() ? err
                                  : focus_not_tracking(err, err.maybe_focus);
      e.maybe_focus.clear();
      return to_call_result(*out, outcome<Result>{std::move(e)});
    };
    return r;
  }
  return to_call_result(*out, outcome<Result>{std::move(err)});
}

/// What a tool runs: a callable taking the decoded arguments and the
/// context, returning `outcome<Result>` or, when it may need a global slot,
/// `slot_outcome<Result>`.
template <class Args, class Result>
class tool_handler {
public:
  using function
    = std::function<slot_outcome<Result>(const Args&, tool_context&)>;

  tool_handler() = default;

  template <class F, class = std::enable_if_t<!std::is_same_v<
                       std::decay_t<F>, tool_handler>>>
  tool_handler(F f) // NOLINT: implicit, so a spec's handler is set by `=`
    : fn_([f = std::move(f)](const Args& args,
                             tool_context& ctx) -> slot_outcome<Result> {
        auto res = f(args, ctx);
        if constexpr (std::is_same_v<decltype(res), outcome<Result>>) {
          if (auto* ok = std::get_if<Result>(&res))
            return std::move(*ok);
          return std::move(std::get<tool_error>(res));
        } else {
          return res;
        }
      }) {
  }

  explicit operator bool() const noexcept {
    return static_cast<bool>(fn_);
  }

  slot_outcome<Result> operator()(const Args& args, tool_context& ctx) const {
    return fn_(args, ctx);
  }

private:
  function fn_;
};

/// A tool, declared once with named fields: the shape of the TypeScript
/// SDK's registerTool(name, {title, description, inputSchema, outputSchema,
/// annotations}, handler). The schemas published in tools/list come from
/// the same declarations that decode arguments and encode results.
template <class Args, class Result>
struct tool_spec {
  std::string name;
  std::string title;
  std::string description;
  std::shared_ptr<input_schema<Args>> input;
  std::shared_ptr<output_schema<Result>> output;
  hint annotations = hint::none;
  tool_handler<Args, Result> handler;
  /// Its toolset (toolsets.hpp): required, a tool in none is refused when
  /// the registry is built.
  std::string toolset;
  /// Set when arguments fall back to the caller's preferences.
  std::optional<tools::preference_defaults> preferences;
  /// Set when prompts or resources rely on it.
  tools::role role = role::none;
  /// Set when the server's instructions mention it.
  instructions_note instructions;
  /// Set when its results show in an MCP App (timeline_view_uri).
  std::string ui_resource;
  /// `heavy` when its work grows with the caller's data (see `cost`).
  tools::cost cost = cost::light;
};

/// Builds the registry's tool from its declaration; its schemas are
/// rendered and compiled on first use.
template <class Args, class Result>
tool make_tool(tool_spec<Args, Result> spec) {
  if (!spec.input || !spec.output || !spec.handler)
    throw std::invalid_argument("tool '" + spec.name
                                + "' needs input, output and handler");
  std::shared_ptr<const input_schema<Args>> in = std::move(spec.input);
  std::shared_ptr<const output_schema<Result>> out = std::move(spec.output);
  auto schemas = [in, out] {
    schema_texts texts{in->json(), make_output_schema(*out)};
    if constexpr (std::is_base_of_v<nullable_result, Result>) {
      texts.modern_output
        = compact_with_defs(nullable_output_schema(texts.output));
      texts.output = wrapped_output_schema(texts.output);
    }
    // Not model-facing, but every client reads it: repeats once, in $defs.
    texts.output = compact_with_defs(texts.output);
    return texts;
  };
  auto invoke = [in, out, handler = std::move(spec.handler)](
                  const rapidjson::Value& args,
                  tool_context& ctx) -> call_result {
    return with_view(to_call_result(out, handler(in->decode(args), ctx)),
                     ctx);
  };
  tool_about about{std::move(spec.toolset), spec.preferences, spec.role,
                   std::move(spec.instructions), std::move(spec.ui_resource),
                   spec.cost};
  return tool{std::move(spec.name),        std::move(spec.title),
              std::move(spec.description), spec.annotations,
              std::move(about),            std::move(schemas),
              std::move(invoke)};
}

} // namespace ttm::tools
