// The journal codec byte for byte: a representative change of every kind
// encodes to the exact payload the journal has always stored (the literals
// were captured from the hand-written codec before it became declarative),
// decodes back to what it was made from, and old or malformed payloads read
// as before (absent fields take their defaults; bad ones are named).

#include "journal/codec.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;
using domain::change;
using domain::task_op;

namespace {

domain::instant at_ns(std::int64_t ns) {
  domain::instant i;
  i.wall = domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
  i.mono = domain::mono_time{std::chrono::duration_cast<
    domain::mono_time::duration>(std::chrono::nanoseconds{ns / 1000})};
  return i;
}

constexpr std::int64_t t0 = 1'767'225'600'000'000'000; // 2026-01-01Z

change base(change::kind_t k) {
  change c;
  c.kind = k;
  c.session_id = "s-1";
  c.at = at_ns(t0);
  return c;
}

// -- one change of each kind and shape -----------------------------------------

change session_minimal() {
  auto c = base(change::session_started);
  c.session.milestone_id = "M-1";
  c.zone_name = "UTC";
  return c;
}

change session_full() {
  auto c = base(change::session_started);
  // Quotes, a backslash, a newline, a control character and non-ASCII text
  // pin the escaping too.
  c.session.milestone_id = "M-2";
  c.session.milestone_name = "Release \"2\"\n\x01 caf\xc3\xa9 a/b\\c";
  c.session.task_ids = {"a", "b", "c"};
  c.session.metadata = {{"repo", "x"}, {"path", "a/b"}, {"", "empty key"}};
  c.session.tags = {"t1", "t2"};
  c.session.idempotency_key = "key-1";
  c.session.estimates = {{"a", 90min}, {"c", 1500ms}};
  c.zone_name = "Europe/Paris";
  return c;
}

change session_key_only() {
  auto c = session_minimal();
  c.session.task_ids = {"a"};
  c.session.idempotency_key = "";
  return c;
}

change session_estimates_only() {
  auto c = session_minimal();
  c.session.task_ids = {"a"};
  c.session.estimates = {{"a", 0ms}};
  return c;
}

change task_started_minimal() {
  auto c = base(change::task_started);
  c.task.task_id = "a";
  return c;
}

domain::task_start_request full_task(const std::string& id) {
  domain::task_start_request t;
  t.task_id = id;
  t.task_name = "Task " + id;
  t.external_task_id = "EXT-" + id;
  t.work_item_id = "WI-" + id;
  t.metadata = {{"k", "v"}, {"k2", "v2"}};
  return t;
}

change task_started_full() {
  auto c = base(change::task_started);
  c.task = full_task("b");
  return c;
}

change task_ended(domain::run_status s, domain::string_map metadata) {
  auto c = base(change::task_ended);
  c.task_id = "a";
  c.status = s;
  c.metadata = std::move(metadata);
  return c;
}

change session_expired() {
  auto c = base(change::session_expired);
  c.reason = "idle";
  return c;
}

task_op op_of(task_op::kind_t k, const std::string& task) {
  task_op op;
  op.kind = k;
  op.task.task_id = task;
  return op;
}

// Every operation kind, each with only the fields it carries (so that a
// round trip gives back an equal operation).
std::vector<task_op> every_op() {
  std::vector<task_op> ops;
  auto start_full = op_of(task_op::start, "a");
  start_full.task = full_task("a");
  ops.push_back(start_full);
  ops.push_back(op_of(task_op::start, "b"));
  auto end_skipped = op_of(task_op::end, "a");
  end_skipped.status = domain::run_status::skipped;
  end_skipped.metadata = {{"why", "blocked"}};
  ops.push_back(end_skipped);
  auto end_failed = op_of(task_op::end, "b");
  end_failed.status = domain::run_status::failed;
  ops.push_back(end_failed);
  ops.push_back(op_of(task_op::end, "c")); // completed, no metadata
  ops.push_back(op_of(task_op::pause, "a"));
  ops.push_back(op_of(task_op::resume, "a"));
  auto note = op_of(task_op::note, "a");
  note.text = "looked at \"x\"";
  ops.push_back(note);
  auto add_full = op_of(task_op::add, "d");
  add_full.task.task_name = "Task d";
  add_full.estimate = 45min;
  ops.push_back(add_full);
  ops.push_back(op_of(task_op::add, "e"));
  auto add_zero = op_of(task_op::add, "f");
  add_zero.estimate = 0ms;
  ops.push_back(add_zero);
  ops.push_back(op_of(task_op::remove, "e"));
  auto correct_full = op_of(task_op::correct, "a");
  correct_full.run = 2;
  correct_full.start_time = at_ns(t0 - 3'600'000'000'000).wall;
  correct_full.end_time = at_ns(t0 - 60'000'000'000).wall;
  correct_full.new_status = domain::run_status::skipped;
  correct_full.text = "forgot to stop";
  ops.push_back(correct_full);
  auto correct_min = op_of(task_op::correct, "b"); // run 0, reason ""
  ops.push_back(correct_min);
  auto correct_end = op_of(task_op::correct, "c");
  correct_end.run = 1;
  correct_end.end_time = at_ns(-1'500'000'000).wall; // before 1970
  correct_end.new_status = domain::run_status::completed;
  correct_end.text = "end only";
  ops.push_back(correct_end);
  return ops;
}

change tasks_edited(std::vector<task_op> ops) {
  auto c = base(change::tasks_edited);
  c.ops = std::move(ops);
  return c;
}

change change_undone(change::kind_t undid, const std::string& task,
                     std::size_t ops) {
  auto c = base(change::change_undone);
  c.undone_kind = undid;
  c.undone_at = at_ns(t0 - 5'000'000'000);
  c.task_id = task;
  c.undone_ops = ops;
  return c;
}

struct sample {
  const char* name;
  change c;
  protocol::era era;
  journal::origin by;
  std::string principal;
  const char* expected;
};

const journal::origin nobody{};
const journal::origin tool{"c-42", "time_tasks_edit"};

std::vector<sample> samples() {
  using protocol::era;
  using rs = domain::run_status;
  return {
    {"session_started, only what is required", session_minimal(),
     era::legacy, nobody, "local",
     R"({"era":"2025","milestone_id":"M-1","task_ids":[],"metadata":{},"tags":[],"timezone":"UTC"})"},
    {"session_started, every field, modern era, by a tool", session_full(),
     era::modern, {"c-1", "time_session_start"}, "alice",
     "{\"by\":{\"principal\":\"alice\",\"client\":\"c-1\",\"tool\":\"time_session_start\"},\"era\":\"2026-07-28\",\"milestone_id\":\"M-2\",\"milestone_name\":\"Release \\\"2\\\"\\n\\u0001 caf\xc3\xa9 a/b\\\\c\",\"task_ids\":[\"a\",\"b\",\"c\"],\"metadata\":{\"repo\":\"x\",\"path\":\"a/b\",\"\":\"empty key\"},\"tags\":[\"t1\",\"t2\"],\"idempotency_key\":\"key-1\",\"estimates_ms\":{\"a\":5400000,\"c\":1500},\"timezone\":\"Europe/Paris\"}"},
    {"session_started, an empty idempotency key, no estimates",
     session_key_only(), era::legacy, nobody, "local",
     R"({"era":"2025","milestone_id":"M-1","task_ids":["a"],"metadata":{},"tags":[],"idempotency_key":"","timezone":"UTC"})"},
    {"session_started, a zero estimate, no key", session_estimates_only(),
     era::legacy, nobody, "local",
     R"({"era":"2025","milestone_id":"M-1","task_ids":["a"],"metadata":{},"tags":[],"estimates_ms":{"a":0},"timezone":"UTC"})"},
    {"task_started, only the task", task_started_minimal(), era::legacy,
     nobody, "local", R"({"metadata":{}})"},
    {"task_started, every field, by a tool", task_started_full(),
     era::legacy, {"c-7", "time_task_start"}, "local",
     R"({"by":{"principal":"local","client":"c-7","tool":"time_task_start"},"task_name":"Task b","external_task_id":"EXT-b","work_item_id":"WI-b","metadata":{"k":"v","k2":"v2"}})"},
    {"task_ended, completed with metadata",
     task_ended(rs::completed, {{"result", "ok"}}), era::legacy, nobody,
     "local", R"({"status":"completed","metadata":{"result":"ok"}})"},
    {"task_ended, skipped", task_ended(rs::skipped, {}), era::legacy, nobody,
     "local", R"({"status":"skipped","metadata":{}})"},
    {"task_ended, failed, by a tool", task_ended(rs::failed, {{"e", "x"}}),
     era::legacy, {"c-7", "time_task_end"}, "bob",
     R"({"by":{"principal":"bob","client":"c-7","tool":"time_task_end"},"status":"failed","metadata":{"e":"x"}})"},
    {"session_ended", base(change::session_ended), era::legacy, nobody,
     "local", R"({})"},
    {"session_ended, by a tool with no client", base(change::session_ended),
     era::modern, {"", "time_session_end"}, "local",
     R"({"by":{"principal":"local","client":"","tool":"time_session_end"}})"},
    {"session_ended, a client but no tool: no by",
     base(change::session_ended), era::legacy, {"c-9", ""}, "local",
     R"({})"},
    {"session_expired", session_expired(), era::legacy, nobody, "local",
     R"({"reason":"idle"})"},
    {"tasks_edited, every operation, by a tool", tasks_edited(every_op()),
     era::legacy, tool, "local",
     R"({"by":{"principal":"local","client":"c-42","tool":"time_tasks_edit"},"ops":[{"op":"start","task_id":"a","task_name":"Task a","external_task_id":"EXT-a","work_item_id":"WI-a","metadata":{"k":"v","k2":"v2"}},{"op":"start","task_id":"b","metadata":{}},{"op":"end","task_id":"a","status":"skipped","metadata":{"why":"blocked"}},{"op":"end","task_id":"b","status":"failed","metadata":{}},{"op":"end","task_id":"c","status":"completed","metadata":{}},{"op":"pause","task_id":"a"},{"op":"resume","task_id":"a"},{"op":"note","task_id":"a","text":"looked at \"x\""},{"op":"add","task_id":"d","task_name":"Task d","estimate_ms":2700000},{"op":"add","task_id":"e"},{"op":"add","task_id":"f","estimate_ms":0},{"op":"remove","task_id":"e"},{"op":"correct","task_id":"a","run":2,"start_ns":1767222000000000000,"end_ns":1767225540000000000,"status":"skipped","reason":"forgot to stop"},{"op":"correct","task_id":"b","run":0,"reason":""},{"op":"correct","task_id":"c","run":1,"end_ns":-1500000000,"status":"completed","reason":"end only"}]})"},
    {"tasks_edited, no operations", tasks_edited({}), era::legacy, nobody,
     "local", R"({"ops":[]})"},
    {"change_undone, a task start", change_undone(change::task_started, "a", 0),
     era::legacy, {"c-1", "time_undo"}, "local",
     R"({"by":{"principal":"local","client":"c-1","tool":"time_undo"},"undid":{"kind":"task_started","wall_ns":1767225595000000000,"task_id":"a"}})"},
    {"change_undone, a task end", change_undone(change::task_ended, "b", 0),
     era::legacy, nobody, "local",
     R"({"undid":{"kind":"task_ended","wall_ns":1767225595000000000,"task_id":"b"}})"},
    {"change_undone, a bulk edit", change_undone(change::tasks_edited, "", 3),
     era::legacy, nobody, "local",
     R"({"undid":{"kind":"tasks_edited","wall_ns":1767225595000000000,"ops":3}})"},
    {"change_undone, a bulk edit of no operations",
     change_undone(change::tasks_edited, "", 0), era::legacy, nobody, "local",
     R"({"undid":{"kind":"tasks_edited","wall_ns":1767225595000000000,"ops":0}})"},
    {"change_undone, a session end", change_undone(change::session_ended, "", 7),
     era::legacy, nobody, "local",
     R"({"undid":{"kind":"session_ended","wall_ns":1767225595000000000}})"},
  };
}

// -- equality of what the decoder gives back -----------------------------------

void check_same(const domain::task_start_request& a,
                const domain::task_start_request& b) {
  CHECK(a.task_id == b.task_id);
  CHECK(a.task_name == b.task_name);
  CHECK(a.external_task_id == b.external_task_id);
  CHECK(a.work_item_id == b.work_item_id);
  CHECK(a.metadata == b.metadata);
}

void check_same(const task_op& a, const task_op& b) {
  CHECK(a.kind == b.kind);
  check_same(a.task, b.task);
  CHECK(a.status == b.status);
  CHECK(a.metadata == b.metadata);
  CHECK(a.text == b.text);
  CHECK(a.estimate == b.estimate);
  CHECK(a.run == b.run);
  CHECK(a.start_time == b.start_time);
  CHECK(a.end_time == b.end_time);
  CHECK(a.new_status == b.new_status);
}

void check_round_trip(const sample& s, const storage::event& e) {
  journal::payload p{e.payload};
  auto by = p.by();
  CHECK(by.tool == s.by.tool);
  CHECK(by.client == (s.by.tool.empty() ? "" : s.by.client));
  const auto& c = s.c;
  switch (c.kind) {
    case change::session_started: {
      auto req = p.session_request();
      CHECK(req.milestone_id == c.session.milestone_id);
      CHECK(req.milestone_name == c.session.milestone_name);
      CHECK(req.task_ids == c.session.task_ids);
      CHECK(req.metadata == c.session.metadata);
      CHECK(req.tags == c.session.tags);
      CHECK(req.idempotency_key == c.session.idempotency_key);
      CHECK(req.estimates == c.session.estimates);
      CHECK(p.zone_name() == c.zone_name);
      storage::stored_session st;
      st.events = {e};
      CHECK(journal::era_of(st) == s.era);
      break;
    }
    case change::task_started:
      check_same(p.task_request(e.task_id), c.task);
      break;
    case change::task_ended:
      CHECK(p.status() == c.status);
      CHECK(p.metadata() == c.metadata);
      break;
    case change::tasks_edited: {
      auto ops = p.ops();
      REQUIRE(ops.size() == c.ops.size());
      CHECK(p.op_count() == c.ops.size());
      for (std::size_t i = 0; i < ops.size(); ++i) {
        INFO("operation " << i);
        check_same(ops[i], c.ops[i]);
      }
      break;
    }
    case change::change_undone:
      CHECK(p.undid() == c.undone_kind);
      CHECK(p.op_count() == 0);
      break;
    case change::session_ended:
    case change::session_expired:
      CHECK(p.op_count() == 0);
      break;
  }
}

} // namespace

TEST_CASE("journal codec: every kind of change encodes to the bytes the "
          "journal has always stored",
          "[journal][codec]") {
  for (const auto& s : samples()) {
    INFO(s.name);
    auto e = journal::to_event(s.c, s.principal, "boot-1", s.era, s.by);
    CHECK(e.payload == s.expected);
    CHECK(e.session_id == "s-1");
    CHECK(e.principal == s.principal);
    CHECK(e.at.wall_ns == t0);
    CHECK(e.at.mono_ns == t0 / 1000);
    CHECK(e.at.boot_id == "boot-1");
    switch (s.c.kind) {
      case change::task_started:
        CHECK(e.task_id == s.c.task.task_id);
        break;
      case change::task_ended:
        CHECK(e.task_id == "a");
        break;
      default:
        CHECK(e.task_id.empty());
    }
    CHECK(std::string{storage::to_string(e.kind)}
          == domain::to_string(s.c.kind));
  }
}

TEST_CASE("journal codec: what is encoded decodes back to what it was made "
          "from",
          "[journal][codec]") {
  for (const auto& s : samples()) {
    INFO(s.name);
    check_round_trip(
      s, journal::to_event(s.c, s.principal, "boot-1", s.era, s.by));
  }
}

TEST_CASE("journal codec: payloads of older journals read with the fields "
          "they lack at their defaults",
          "[journal][codec]") {
  // session_started before issue 17 (estimates), issue 20 (idempotency
  // key) and the eras: no key, no estimates, no era, no name.
  journal::payload old{
    R"({"milestone_id":"M","task_ids":["a"],"metadata":{},"tags":[],"timezone":"UTC"})"};
  auto req = old.session_request();
  CHECK(req.milestone_id == "M");
  CHECK_FALSE(req.milestone_name);
  CHECK(req.task_ids == std::vector<std::string>{"a"});
  CHECK_FALSE(req.idempotency_key);
  CHECK(req.estimates.empty());
  CHECK(old.by().tool.empty());
  CHECK(old.by().client.empty());
  storage::stored_session st;
  st.events.resize(1);
  st.events[0].payload = R"({"milestone_id":"M","timezone":"UTC"})";
  CHECK(journal::era_of(st) == protocol::era::legacy);
  st.events[0].payload = R"({"era":"1999"})";
  CHECK(journal::era_of(st) == protocol::era::legacy);
  CHECK(journal::era_of(storage::stored_session{}) == protocol::era::legacy);

  // Lists and maps absent altogether.
  auto bare = journal::payload{R"({"milestone_id":"M"})"}.session_request();
  CHECK(bare.task_ids.empty());
  CHECK(bare.metadata.empty());
  CHECK(bare.tags.empty());

  // A task start or end without metadata; an edit whose start has none.
  auto task = journal::payload{"{}"}.task_request("t");
  CHECK(task.task_id == "t");
  CHECK_FALSE(task.task_name);
  CHECK(task.metadata.empty());
  CHECK(journal::payload{R"({"status":"skipped"})"}.metadata().empty());
  auto ops = journal::payload{
    R"({"ops":[{"op":"start","task_id":"a"},{"op":"end","task_id":"a","status":"completed"}]})"}
               .ops();
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].task.metadata.empty());
  CHECK(ops[1].metadata.empty());

  // Unknown members are ignored; `by` that is not an object counts as none.
  journal::payload extra{R"({"by":3,"future":[1,2],"reason":"age"})"};
  CHECK(extra.by().tool.empty());
  CHECK(journal::payload{R"({"by":{}})"}.by().tool.empty());
}

TEST_CASE("journal codec: a malformed payload is a bad event that names "
          "what is wrong",
          "[journal][codec]") {
  using journal::payload;
  auto session = [](const char* json) {
    return payload{json}.session_request();
  };
  auto ops = [](const char* json) { return payload{json}.ops(); };
  CHECK_THROWS_WITH(payload{"{not json"}, "payload is not a JSON object");
  CHECK_THROWS_WITH(payload{"[]"}, "payload is not a JSON object");
  CHECK_THROWS_AS(payload{"[]"}, journal::bad_event);
  CHECK_THROWS_WITH(session("{}"), "payload lacks the string 'milestone_id'");
  CHECK_THROWS_WITH(session(R"({"milestone_id":1})"),
                    "payload lacks the string 'milestone_id'");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","milestone_name":5})"),
                    "payload lacks the string 'milestone_name'");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","milestone_name":null})"),
                    "payload lacks the string 'milestone_name'");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","task_ids":"a"})"),
                    "'task_ids' is not an array");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","tags":[1]})"),
                    "'tags' holds a non-string");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","metadata":[]})"),
                    "'metadata' is not an object");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","metadata":{"a":1}})"),
                    "'metadata' holds a non-string");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","idempotency_key":7})"),
                    "payload lacks the string 'idempotency_key'");
  CHECK_THROWS_WITH(session(R"({"milestone_id":"m","estimates_ms":[]})"),
                    "'estimates_ms' is not an object");
  CHECK_THROWS_WITH(
    session(R"({"milestone_id":"m","estimates_ms":{"a":"1"}})"),
    "'estimates_ms' holds a non-integer");
  CHECK_THROWS_WITH(
    session(R"({"milestone_id":"m","estimates_ms":{"a":1.5}})"),
    "'estimates_ms' holds a non-integer");
  CHECK_THROWS_WITH(payload{"{}"}.zone_name(),
                    "payload lacks the string 'timezone'");
  CHECK_THROWS_WITH(payload{R"({"task_name":false})"}.task_request("a"),
                    "payload lacks the string 'task_name'");
  CHECK_THROWS_WITH(payload{"{}"}.status(),
                    "payload lacks the string 'status'");
  CHECK_THROWS_WITH(payload{R"({"status":"in_progress"})"}.status(),
                    "unknown task status 'in_progress'");
  CHECK_THROWS_WITH(payload{R"({"metadata":"x"})"}.metadata(),
                    "'metadata' is not an object");
  CHECK_THROWS_WITH(ops("{}"), "payload lacks the array 'ops'");
  CHECK_THROWS_WITH(ops(R"({"ops":{}})"), "payload lacks the array 'ops'");
  CHECK_THROWS_WITH(ops(R"({"ops":[1]})"), "'ops' holds a non-object");
  CHECK_THROWS_WITH(ops(R"({"ops":[{"task_id":"a"}]})"),
                    "payload lacks the string 'op'");
  CHECK_THROWS_WITH(ops(R"({"ops":[{"op":"jump","task_id":"a"}]})"),
                    "unknown operation 'jump'");
  CHECK_THROWS_WITH(ops(R"({"ops":[{"op":"pause"}]})"),
                    "payload lacks the string 'task_id'");
  CHECK_THROWS_WITH(ops(R"({"ops":[{"op":"note","task_id":"a"}]})"),
                    "payload lacks the string 'text'");
  CHECK_THROWS_WITH(
    ops(R"({"ops":[{"op":"end","task_id":"a","status":"lost"}]})"),
    "unknown task status 'lost'");
  CHECK_THROWS_WITH(
    ops(R"({"ops":[{"op":"add","task_id":"a","estimate_ms":"1"}]})"),
    "'estimate_ms' is not an integer");
  CHECK_THROWS_WITH(
    ops(R"({"ops":[{"op":"correct","task_id":"a","run":1}]})"),
    "payload lacks the string 'reason'");
  CHECK_THROWS_WITH(
    ops(R"({"ops":[{"op":"correct","task_id":"a","reason":"r"}]})"),
    "a correction lacks its run");
  CHECK_THROWS_WITH(
    ops(R"({"ops":[{"op":"correct","task_id":"a","reason":"r","run":-1}]})"),
    "a correction lacks its run");
  CHECK_THROWS_WITH(
    ops(
      R"({"ops":[{"op":"correct","task_id":"a","reason":"r","run":1,"start_ns":"x"}]})"),
    "'start_ns' is not an integer");
  CHECK_THROWS_WITH(
    ops(
      R"({"ops":[{"op":"correct","task_id":"a","reason":"r","run":1,"end_ns":1.5}]})"),
    "'end_ns' is not an integer");
  CHECK_THROWS_WITH(
    ops(
      R"({"ops":[{"op":"correct","task_id":"a","reason":"r","run":1,"status":"x"}]})"),
    "unknown task status 'x'");
  CHECK_THROWS_WITH(payload{"{}"}.undid(), "payload lacks the object 'undid'");
  CHECK_THROWS_WITH(payload{R"({"undid":[]})"}.undid(),
                    "payload lacks the object 'undid'");
  CHECK_THROWS_WITH(payload{R"({"undid":{}})"}.undid(),
                    "payload lacks the string 'kind'");
  CHECK_THROWS_WITH(
    payload{R"({"undid":{"kind":"session_started"}})"}.undid(),
    "'undid' names the kind 'session_started', which cannot be undone");
  CHECK_THROWS_WITH(payload{R"({"by":{"tool":5}})"}.by(),
                    "payload lacks the string 'tool'");
  CHECK_THROWS_WITH(payload{R"({"by":{"tool":"t","client":[]}})"}.by(),
                    "payload lacks the string 'client'");
  CHECK(payload{R"({"ops":3})"}.op_count() == 0);
  CHECK(payload{"{}"}.op_count() == 0);
}
