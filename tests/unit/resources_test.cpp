// The report resources (issue 16 item 2): URIs, templates, and reads that
// give what time_session_report gives, or the resource-not-found error for
// anything a caller may not see.

#include "mcp/resources.hpp"
#include "session_client.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

TEST_CASE("resources: report URIs parse and print", "[resources]") {
  auto md = mcp::parse_report_uri("time-tracker://sessions/abc/report.md");
  REQUIRE(md);
  CHECK(md->session_id == "abc");
  CHECK(md->kind->format == "markdown");
  CHECK(md->kind->mime_type == "text/markdown");
  CHECK(mcp::report_uri_of("abc", *md->kind)
        == "time-tracker://sessions/abc/report.md");
  auto html = mcp::parse_report_uri("time-tracker://sessions/x-1/report.html");
  REQUIRE(html);
  CHECK(html->kind->mime_type == "text/html");
  for (const char* bad :
       {"time-tracker://sessions//report.md", "time-tracker://sessions/abc",
        "time-tracker://sessions/abc/report.pdf",
        "time-tracker://sessions/abc/summary.md", "file:///etc/passwd",
        "time-tracker://sessions/abc/report.md/x", ""}) {
    INFO(bad);
    CHECK_FALSE(mcp::parse_report_uri(bad));
  }
}

TEST_CASE("resources: templates list the four formats", "[resources]") {
  client c;
  auto res = c.rpc(R"({"jsonrpc":"2.0","id":"t","method":"resources/templates/list"})");
  const auto& list = res["result"]["resourceTemplates"];
  REQUIRE(list.Size() == 4);
  CHECK(str(list[0]["uriTemplate"])
        == "time-tracker://sessions/{session_id}/report.md");
  CHECK(str(list[3]["mimeType"]) == "text/html");
  for (const auto& t : list.GetArray()) {
    CHECK_FALSE(str(t["name"]).empty());
    CHECK_FALSE(str(t["title"]).empty());
  }
}

TEST_CASE("resources: a read is the report tool's text, unknown ids are "
          "not found, with the URI",
          "[resources]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  c.ok("time_task_start", task_args(sid, "a"));
  auto tool = c.ok("time_session_report",
                   R"({"session_id":")" + sid + R"(","format":"csv"})");
  auto uri = "time-tracker://sessions/" + sid + "/report.csv";
  auto read = c.rpc(R"({"jsonrpc":"2.0","id":"r","method":"resources/read",)"
                    R"("params":{"uri":")" + uri + R"("}})");
  const auto& contents = read["result"]["contents"];
  REQUIRE(contents.Size() == 1);
  CHECK(str(contents[0]["uri"]) == uri);
  CHECK(str(contents[0]["mimeType"]) == "text/csv");
  CHECK(str(contents[0]["text"]) == str(tool["report"]));
  for (std::string bad : {std::string("time-tracker://sessions/"
                                      "0f0e0d0c-0b0a-4908-8706-050403020100"
                                      "/report.md"),
                          std::string("time-tracker://sessions/abc/report.pdf")}) {
    auto err = c.rpc(R"({"jsonrpc":"2.0","id":"n","method":"resources/read",)"
                     R"("params":{"uri":")" + bad + R"("}})");
    REQUIRE(err.HasMember("error"));
    CHECK(err["error"]["code"] == -32002);
    CHECK(str(err["error"]["message"]) == "Resource not found: " + bad);
    CHECK(str(err["error"]["data"]["uri"]) == bad);
  }
  auto no_uri = c.rpc(R"({"jsonrpc":"2.0","id":"u","method":"resources/read","params":{}})");
  CHECK(no_uri["error"]["code"] == -32602);
}
