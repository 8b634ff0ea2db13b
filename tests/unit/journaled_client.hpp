#pragma once

// An MCP client (mcp::session) whose journal steps (appends, claims,
// history queries) a real store answers at once, as the client and journal
// actors do: the tool tests of issue 16 run the journal path without an
// actor system.

#include "journal/history.hpp"
#include "session_client.hpp"
#include "storage/sqlite_store.hpp"
#include "temp_dir.hpp"

#include <variant>

namespace ttm::test::session_client {

/// One MCP client whose journal steps are answered by a real store, as the
/// client and journal actors do.
struct journaled {
  std::shared_ptr<domain::fake_clock> clock;
  tools::registry_ptr registry = tools::make_registry({}, {"all"});
  storage::store& store;
  mcp::session state;
  int next_id = 1;
  int history_queries = 0;
  int principal_ops = 0;

  journaled(std::shared_ptr<domain::fake_clock> c, storage::store& st,
            std::string principal)
    : clock(std::move(c)), store(st), state([&] {
        mcp::session_config cfg{
          registry, clock, "America/New_York",
          {"time-tracker-mcp", "Time Tracker MCP", "0.1.0", "instructions"},
          domain::tracking_limits{}};
        cfg.journal = true;
        cfg.principal = std::move(principal);
        return cfg;
      }()) {
    run(initialize_request("2025-11-25"));
  }

  rapidjson::Document run(const std::string& json) {
    auto step = state.handle(mcp::decode(json));
    for (;;) {
      if (!step.slot_for().empty()) {
        step = state.resume(true);
      } else if (!step.journal().empty()) {
        auto r = store.append(step.journal());
        storage::append_answer a;
        if (auto* e = std::get_if<storage::error>(&r))
          a = {e->kind == storage::error_kind::fenced
                 ? storage::append_answer::fenced
                 : storage::append_answer::failed,
               e->message};
        step = state.resume_journal(a);
      } else if (step.claim()) {
        auto r = store.claim(*step.claim());
        auto* e = std::get_if<storage::error>(&r);
        step = e ? state.resume_claim({}, e->message)
                 : state.resume_claim(std::get<storage::claim_result>(r), "");
      } else if (step.history()) {
        ++history_queries;
        // As the journal and client actors: the rows converted as the
        // store hands them on, else the page whole by the session.
        auto r = journal::read_history(store, *step.history(),
                                       clock->wall_now());
        if (r.error)
          step = state.resume_history(domain::history_page{},
                                      r.error->message);
        else if (r.whole)
          step = state.resume_history(std::move(*r.whole), "");
        else
          step = state.resume_history(std::move(r.page), "");
      } else if (step.principal()) {
        ++principal_ops;
        auto r = store.principal(*step.principal());
        auto* e = std::get_if<storage::error>(&r);
        step = e ? state.resume_principal({}, e->message)
                 : state.resume_principal(
                   std::get<storage::principal_state>(r), "");
      } else {
        break;
      }
    }
    REQUIRE_FALSE(step.output.response.empty());
    return parse(step.output.response);
  }

  rapidjson::Document ok(const std::string& tool, const std::string& args) {
    auto res = run(tools_call(tool, args, std::to_string(next_id++)));
    INFO(to_json(res));
    REQUIRE(res.HasMember("result"));
    auto r = check_tool_result(res["result"], *registry, tool);
    REQUIRE_FALSE(r.is_error);
    return std::move(r.sc);
  }
};

inline storage::store_ptr open_store(const std::string& dir) {
  auto r = storage::open_sqlite({dir, storage::sync_mode::normal, "test"});
  REQUIRE(std::holds_alternative<storage::store_ptr>(r));
  return std::move(std::get<storage::store_ptr>(r));
}

} // namespace ttm::test::session_client
