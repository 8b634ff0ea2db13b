#pragma once

// The fixed session of the report golden files (tests/golden/): built on a
// fake clock from 2025-12-14 9:45:32.123 AM EST, with parallel runs, a task
// run twice, a skipped, a failed and an interrupted task, one never started,
// and names holding |, a newline, ", a comma, =cmd and <script>.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

#include <chrono>
#include <string>
#include <variant>

namespace ttm::test {

struct report_fixture {
  domain::fake_clock clock{date::sys_days{date::year{2025} / 12 / 14}
                           + std::chrono::hours{14}
                           + std::chrono::minutes{45}
                           + std::chrono::seconds{32}
                           + std::chrono::milliseconds{123}};
  domain::tracker tr{domain::tracking_limits{}};
  domain::tracking_session* s = nullptr;

  domain::instant now() const {
    return domain::now_of(clock);
  }

  void wait(std::chrono::milliseconds d) {
    clock.advance(d);
  }

  void start(const std::string& id, const char* name) {
    domain::task_start_request req;
    req.task_id = id;
    if (name != nullptr)
      req.task_name = name;
    auto res = tr.start_task(*s, std::move(req), now());
    REQUIRE(std::holds_alternative<domain::task_started>(res));
  }

  void end(const std::string& id,
           domain::run_status st = domain::run_status::completed) {
    auto res = tr.end_task(*s, id, st, {}, now());
    REQUIRE(std::holds_alternative<domain::task_ended>(res));
  }

  /// Runs the scripted session; `end_it` false leaves it open (M2-006
  /// still running) as of the last step.
  explicit report_fixture(bool end_it = true) {
    using namespace std::chrono_literals;
    auto z = domain::resolve_zone("America/New_York", "UTC");
    REQUIRE(z.found);
    domain::session_request req;
    req.milestone_id = "M2";
    req.milestone_name = "Commit + Lifecycle";
    req.task_ids = {"M2-001", "M2-002", "M2-003", "M2-004",
                    "M2-005", "M2-006", "M2-007"};
    req.metadata = {{"branch", "Recipe-Ingest-Agent"}, {"agent", "claude"}};
    req.tags = {"milestone:2", "area:gateway"};
    s = const_cast<domain::tracking_session*>(
      &tr.add("3f2b9c1e-0000-4000-8000-00000000000a", req, *z.found, now()));
    start("M2-001", "Create ImportRecipeRequest model");
    wait(73s);
    end("M2-001");
    // Two tasks in parallel; the second fails.
    start("M2-002", "Parse | pipes\nand lines");
    wait(20s);
    start("M2-003", "Quote \"q\", comma");
    wait(40s);
    end("M2-003", domain::run_status::failed);
    wait(25s);
    end("M2-002");
    // Run twice: started again after it ended.
    start("M2-004", "=cmd|' /C calc'!A0");
    wait(30s);
    end("M2-004");
    wait(5s);
    start("M2-004", "=cmd|' /C calc'!A0");
    wait(45500ms);
    end("M2-004");
    start("M2-005", "<script>alert(1)</script>");
    wait(2s);
    end("M2-005", domain::run_status::skipped);
    start("M2-006", "section: #1; 50% done");
    wait(90s);
    if (end_it)
      REQUIRE(tr.end_session(*s, now())); // M2-006 becomes interrupted
  }
};

} // namespace ttm::test
