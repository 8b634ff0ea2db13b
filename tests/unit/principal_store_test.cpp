// A focus start while another focus session is open, as both stores decide
// it: the operation carries a test of the principal's stored preferences
// (storage::pref_test), which the store checks in the transaction that
// opens the session. The store compares JSON text under a key it is given
// and knows no preference by name; the rule that makes the test is the
// domain's (overlap_refused).

#include "storage_fixture.hpp"

#include "domain/preferences.hpp"
#include "storage/principal.hpp"

#include <functional>

namespace {

principal_op focus_start(const std::string& id, pref_test refuse) {
  principal_op op;
  op.kind = principal_op::focus_start;
  op.principal = "p";
  op.start.session_id = id;
  op.start.intent = "work on " + id;
  op.start.started_wall_ns = 1'000 * static_cast<std::int64_t>(id.back());
  op.refuse_open = std::move(refuse);
  return op;
}

principal_op set_pref(const std::string& key, const std::string& json) {
  principal_op op;
  op.kind = principal_op::set_prefs;
  op.principal = "p";
  op.prefs = {{key, json}};
  return op;
}

void refuses_as_its_test_says(
  const std::function<principal_state(const principal_op&)>& apply) {
  // Not stored: `otherwise` decides.
  auto first = apply(focus_start("s1", {"mode", "\"strict\"", true}));
  CHECK(first.refused.empty()); // none open: nothing to refuse
  REQUIRE(first.open);
  CHECK(first.open->session_id == "s1");
  auto refused = apply(focus_start("s2", {"mode", "\"strict\"", true}));
  CHECK(refused.refused == "SESSION_ALREADY_OPEN");
  REQUIRE(refused.open);
  CHECK(refused.open->session_id == "s1");
  CHECK_FALSE(refused.closed);

  // Stored with another value: the test fails, whatever `otherwise` says,
  // and the open one is closed at the new start.
  apply(set_pref("mode", "\"lenient\""));
  auto closing = apply(focus_start("s2", {"mode", "\"strict\"", true}));
  CHECK(closing.refused.empty());
  REQUIRE(closing.closed);
  CHECK(closing.closed->session_id == "s1");
  CHECK(closing.closed->ended_wall_ns == closing.open->started_wall_ns);
  REQUIRE(closing.open);
  CHECK(closing.open->session_id == "s2");

  // Stored with the value: refused, whatever `otherwise` says.
  apply(set_pref("mode", "\"strict\""));
  auto strict = apply(focus_start("s3", {"mode", "\"strict\"", false}));
  CHECK(strict.refused == "SESSION_ALREADY_OPEN");
  CHECK(strict.open->session_id == "s2");

  // Another key's test ignores this one.
  auto other = apply(focus_start("s3", {"other", "\"strict\"", false}));
  CHECK(other.refused.empty());
  CHECK(other.open->session_id == "s3");
}

} // namespace

TEST_CASE("principal store: a focus start is refused while one is open "
          "exactly when the operation's preference test holds",
          "[storage][focus][backends]") {
  SECTION("in memory") {
    principal_memory m;
    refuses_as_its_test_says([&](const principal_op& op) {
      return m.apply(op);
    });
  }
  SECTION("in the store (SQLite, or PostgreSQL with TTM_TEST_PG_URI), in the "
          "transaction that opens the session") {
    temp_dir tmp;
    auto st = must_open(tmp.data());
    refuses_as_its_test_says([&](const principal_op& op) {
      return must(st->principal(op));
    });
  }
}

TEST_CASE("preferences: the overlap policy's test is the principal's "
          "session_overlap_policy, else the server's",
          "[domain][focus]") {
  ttm::domain::preferences server;
  auto lenient = ttm::domain::overlap_refused(server);
  CHECK(lenient.key == "session_overlap_policy");
  CHECK(lenient.value == "\"error\""); // JSON text, as preferences are stored
  CHECK_FALSE(lenient.otherwise);
  server.session_overlap_policy = "error";
  CHECK(ttm::domain::overlap_refused(server).otherwise);
}
