// The MCP App (issue 35; docs/app.md): the view ui://time-tracker/
// timeline.html and its gate. Only a client whose capabilities declare
// io.modelcontextprotocol/ui (initialize in 2025, each request's _meta in
// 2026-07-28) sees the tools' `_meta.ui.resourceUri`, the resource in
// resources/list, can read it, and gets the rendered SVG in the results'
// `_meta`; everyone else sees what they saw before (the tools/list
// snapshots, tools_snapshot_test.cpp, hold unchanged).

#include "mcp/app_resource.hpp"
#include "test_client_state.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace ttm;
using namespace ttm::test;

namespace {

const std::string ui_caps
  = R"({"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}})";
const std::string view_uri = "ui://time-tracker/timeline.html";
const std::string svg_key = "time-tracker-mcp/svg";
const std::set<std::string> linked{"time_session_summary",
                                   "time_session_report", "time_stats"};

std::string initialize_with(const std::string& caps) {
  return R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{)"
         R"("protocolVersion":"2025-11-25","capabilities":)"
         + caps + R"(,"clientInfo":{"name":"host","version":"1"}}})";
}

mcp::session legacy(const std::string& caps) {
  auto s = session();
  auto res = call(s, initialize_with(caps));
  REQUIRE(res.HasMember("result"));
  send(s, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  return s;
}

std::string meta(const std::string& caps) {
  return R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
         R"("io.modelcontextprotocol/clientCapabilities":)"
         + caps + "}";
}

/// A request of `method` with params `members` (may be empty) and, when
/// `caps` is given, the 2026-07-28 `_meta` declaring them.
std::string req(const std::string& method, const std::string& members,
                const std::string& caps = "", const std::string& id = "1") {
  std::string params = "{" + members;
  if (!caps.empty())
    params += (members.empty() ? "" : ",") + std::string{R"("_meta":)"}
              + meta(caps);
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method
         + R"(","params":)" + params + "}}";
}

std::string tool_call(const std::string& tool, const std::string& args,
                      const std::string& caps = "") {
  return req("tools/call",
             R"("name":")" + tool + R"(","arguments":)" + args, caps);
}

/// The names of the tools that link the view, and checks each link.
std::set<std::string> links(const rapidjson::Value& res) {
  std::set<std::string> out;
  for (const auto& t : result_object(res)["tools"].GetArray()) {
    if (!t.HasMember("_meta"))
      continue;
    CHECK(str(t["_meta"]["ui"]["resourceUri"]) == view_uri);
    out.insert(str(t["name"]));
  }
  return out;
}

bool lists_view(const rapidjson::Value& res) {
  for (const auto& r : result_object(res)["resources"].GetArray())
    if (str(r["uri"]) == view_uri)
      return true;
  return false;
}

/// Starts a session with a task run; returns its id.
std::string start(mcp::session& s, const std::string& caps = "") {
  auto res = call(s, tool_call("time_session_start",
                               R"({"milestone_id":"M1","task_ids":["T1","T2"],)"
                               R"("timezone":"UTC"})",
                               caps));
  auto sid = str(result_object(res)["structuredContent"]["session_id"]);
  call(s, tool_call("time_task_start",
                    R"({"session_id":")" + sid + R"(","task_id":"T1"})",
                    caps));
  return sid;
}

void check_view_contents(const rapidjson::Value& res) {
  const auto& contents = result_object(res)["contents"];
  REQUIRE(contents.Size() == 1);
  const auto& c = contents[0];
  CHECK(str(c["uri"]) == view_uri);
  CHECK(str(c["mimeType"]) == "text/html;profile=mcp-app");
  CHECK(str(c["text"]) == std::string{mcp::timeline_app_html()});
  const auto& csp = c["_meta"]["ui"]["csp"];
  REQUIRE(csp.IsObject());
  CHECK(csp["connectDomains"].IsArray());
  CHECK(csp["connectDomains"].Empty());
  CHECK(csp["resourceDomains"].IsArray());
  CHECK(csp["resourceDomains"].Empty());
  CHECK_FALSE(csp.HasMember("frameDomains"));
}

} // namespace

TEST_CASE("app: the capability shape the gate reads", "[app]") {
  auto yes = [](const std::string& caps) {
    auto d = parse(caps);
    return mcp::declares_ui_extension(d);
  };
  CHECK(yes(ui_caps));
  CHECK(yes(R"({"extensions":{"io.modelcontextprotocol/ui":{}}})"));
  CHECK(yes(R"({"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html","text/html;profile=mcp-app"]}}})"));
  CHECK_FALSE(yes("{}"));
  CHECK_FALSE(yes(R"({"extensions":{}})"));
  CHECK_FALSE(yes(R"({"extensions":{"io.modelcontextprotocol/ui":true}})"));
  CHECK_FALSE(yes(R"({"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html"]}}})"));
  CHECK_FALSE(yes(R"({"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":"text/html;profile=mcp-app"}}})"));
  CHECK_FALSE(yes(R"({"experimental":{"io.modelcontextprotocol/ui":{}}})"));
  CHECK_FALSE(yes("[]"));
}

TEST_CASE("app: a 2025 client without the extension sees no trace of it",
          "[app]") {
  auto s = legacy("{}");
  auto list = call(s, request("tools/list"));
  CHECK(links(list).empty());
  CHECK_FALSE(lists_view(call(s, request("resources/list", "2", "{}"))));
  auto read = call(s, request("resources/read", "3",
                              R"({"uri":")" + view_uri + R"("})"));
  CHECK(contains(error_message(read, -32002), view_uri));
  auto sid = start(s);
  auto res = call(s, tool_call("time_session_summary",
                               R"({"session_id":")" + sid + R"("})"));
  CHECK_FALSE(result_object(res).HasMember("_meta"));
  // The extension under another key is not the extension.
  auto other = legacy(R"({"experimental":{"io.modelcontextprotocol/ui":{}}})");
  CHECK(links(call(other, request("tools/list"))).empty());
}

TEST_CASE("app: a 2025 client with the extension gets the view, the "
          "links and the pictures",
          "[app]") {
  auto s = legacy(ui_caps);
  auto list = call(s, request("tools/list"));
  CHECK(links(list) == linked);
  // The rest of each definition is what everyone else gets.
  auto plain = legacy("{}");
  auto before = call(plain, request("tools/list"));
  REQUIRE(result_object(list)["tools"].Size()
          == result_object(before)["tools"].Size());
  for (rapidjson::SizeType k = 0; k < result_object(list)["tools"].Size();
       ++k) {
    rapidjson::Document t;
    t.CopyFrom(result_object(list)["tools"][k], t.GetAllocator());
    t.RemoveMember("_meta");
    CHECK(t == result_object(before)["tools"][k]);
  }
  auto resources = call(s, request("resources/list", "2", "{}"));
  REQUIRE(lists_view(resources));
  const auto& first = result_object(resources)["resources"][0];
  CHECK(str(first["uri"]) == view_uri);
  CHECK(str(first["mimeType"]) == "text/html;profile=mcp-app");
  check_view_contents(call(s, request("resources/read", "3",
                                      R"({"uri":")" + view_uri + R"("})")));

  auto sid = start(s);
  auto summary = call(s, tool_call("time_session_summary",
                                   R"({"session_id":")" + sid + R"("})"));
  const auto& r = result_object(summary);
  auto svg = str(r["_meta"][svg_key.c_str()]);
  CHECK(svg.rfind("<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\"",
                  0)
        == 0);
  CHECK(contains(svg, "data-task=\"T1\""));
  // Not in what the model reads.
  CHECK_FALSE(contains(str(r["content"][0]["text"]), "<svg"));
  auto report = call(s, tool_call("time_session_report",
                                  R"({"session_id":")" + sid + R"("})"));
  CHECK(contains(str(result_object(report)["_meta"][svg_key.c_str()]),
                 "class=\"timeline\""));
  // (The session started at the fake clock's now: `to` past it.)
  auto stats = call(s, tool_call("time_stats",
                                 R"({"timezone":"UTC","to":"2025-12-15"})"));
  CHECK(contains(str(result_object(stats)["_meta"][svg_key.c_str()]),
                 "<rect class=\"bar stat\""));
  // Tools without a view carry nothing extra.
  auto now = call(s, tool_call("time_get_current", "{}"));
  CHECK_FALSE(result_object(now).HasMember("_meta"));
  // A report read as a resource is the report's text only.
  auto md = call(s, request("resources/read", "4",
                            R"({"uri":"time-tracker://sessions/)" + sid
                              + R"(/report.md"})"));
  CHECK_FALSE(result_object(md)["contents"][0].HasMember("_meta"));
}

TEST_CASE("app: the gate holds for a restored 2025 session", "[app]") {
  auto s = legacy(ui_caps);
  auto copy = session();
  REQUIRE(copy.restore(s.state_json()));
  CHECK(links(call(copy, request("tools/list"))) == linked);
  auto plain = legacy("{}");
  auto plain_copy = session();
  REQUIRE(plain_copy.restore(plain.state_json()));
  CHECK(links(call(plain_copy, request("tools/list"))).empty());
}

TEST_CASE("app: 2026-07-28 requests are gated one by one", "[app]") {
  auto s = session();
  auto with = call(s, req("tools/list", "", ui_caps));
  CHECK(links(with) == linked);
  // No longer every caller's list: kept privately.
  CHECK(str(result_object(with)["cacheScope"]) == "private");
  auto without = call(s, req("tools/list", "", "{}", "2"));
  CHECK(links(without).empty());
  CHECK(str(result_object(without)["cacheScope"]) == "public");
  CHECK(lists_view(call(s, req("resources/list", "", ui_caps, "3"))));
  CHECK_FALSE(lists_view(call(s, req("resources/list", "", "{}", "4"))));
  check_view_contents(call(s, req("resources/read",
                                  R"("uri":")" + view_uri + "\"", ui_caps,
                                  "5")));
  auto refused = call(s, req("resources/read", R"("uri":")" + view_uri + "\"",
                             "{}", "6"));
  CHECK(contains(error_message(refused, -32602), view_uri));

  auto sid = start(s, "{}");
  auto args = R"({"session_id":")" + sid + R"("})";
  auto pic = call(s, tool_call("time_session_summary", args, ui_caps));
  const auto& m = result_object(pic)["_meta"];
  CHECK(contains(str(m[svg_key.c_str()]), "data-task=\"T1\""));
  CHECK(m.HasMember("io.modelcontextprotocol/serverInfo"));
  auto none = call(s, tool_call("time_session_summary", args, "{}"));
  CHECK_FALSE(result_object(none)["_meta"].HasMember(svg_key.c_str()));
}

TEST_CASE("app: the whole view is at most 40 KB", "[app]") {
  // A contract (docs/app.md), not a speed figure: the resource is
  // self-contained and small.
  CHECK(mcp::timeline_app_html().size() <= 40 * 1024);
  CHECK(mcp::timeline_app_html().rfind("<!DOCTYPE html>", 0) == 0);
  // Self-contained: it names no URL to load (only the SVG namespace the
  // server's pictures carry is not in here either).
  CHECK_FALSE(contains(std::string{mcp::timeline_app_html()}, "http"));
  CHECK_FALSE(contains(std::string{mcp::timeline_app_html()}, "src="));
}
