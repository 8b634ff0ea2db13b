// Prompts and toolsets (issues 16 and 19): a prompt is offered only while
// --toolsets enables every tool its text tells the model to call; its
// prompts/get and completions then say which toolset is off, and
// plan_milestone mentions time_session_report only while it is offered.

#include "session_client.hpp"
#include "mcp/prompts.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

/// An MCP session whose server enables `toolsets` (a comma list).
struct sets_client {
  std::shared_ptr<domain::fake_clock> clock
    = std::make_shared<domain::fake_clock>(example_start());
  tools::registry_ptr registry;
  mcp::session state;

  explicit sets_client(std::vector<std::string> toolsets)
    : registry(tools::make_registry({}, std::move(toolsets))),
      state(mcp::session_config{
        registry, clock, "Europe/Berlin",
        {"time-tracker-mcp", "Time Tracker MCP", "0.1.0", "instructions"},
        {}}) {
    rpc(initialize_request("2025-11-25"));
  }

  rapidjson::Document rpc(const std::string& json) {
    auto s = state.handle(mcp::decode(json));
    while (s.waiting())
      s = state.resume(true);
    REQUIRE_FALSE(s.output.response.empty());
    return test::parse(s.output.response);
  }

  std::vector<std::string> prompt_names() {
    auto r = rpc(R"({"jsonrpc":"2.0","id":2,"method":"prompts/list"})");
    std::vector<std::string> out;
    for (const auto& p : r["result"]["prompts"].GetArray())
      out.emplace_back(p["name"].GetString());
    return out;
  }

  rapidjson::Document get(const std::string& name, const std::string& args) {
    return rpc(R"({"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":")"
               + name + R"(","arguments":)" + args + "}}");
  }
};

} // namespace

TEST_CASE("prompts: offered only with the toolsets of the tools they name",
          "[prompts][toolsets]") {
  sets_client all{{"all"}};
  CHECK(all.prompt_names()
        == std::vector<std::string>{"execution_report", "standup",
                                    "plan_milestone"});
  sets_client plain{{"time", "tracking", "chronometric"}}; // no history
  CHECK(plain.prompt_names() == std::vector<std::string>{"plan_milestone"});
  auto refused = plain.get("standup", "{}");
  REQUIRE(refused.HasMember("error"));
  CHECK(refused["error"]["code"].GetInt() == -32602);
  CHECK(std::string{refused["error"]["message"].GetString()}
        == "Invalid params: prompt 'standup' needs the tool "
           "time_session_list, which this "
           "server does not offer: its toolset 'history' is off (start the "
           "server with --toolsets naming it)");
  auto completion = plain.rpc(
    R"({"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{)"
    R"("ref":{"type":"ref/prompt","name":"standup"},)"
    R"("argument":{"name":"timezone","value":"Europe/Ber"}}})");
  REQUIRE(completion.HasMember("error"));
  CHECK(completion["error"]["code"].GetInt() == -32602);

  // plan_milestone names time_session_report only where it is offered.
  auto args = R"({"milestone_id":"M1","tasks":"a, b"})";
  auto with = all.get("plan_milestone", args);
  auto without = plain.get("plan_milestone", args);
  std::string with_text
    = with["result"]["messages"][0]["content"]["text"].GetString();
  std::string without_text
    = without["result"]["messages"][0]["content"]["text"].GetString();
  CHECK_THAT(with_text, Catch::Contains("time_session_report"));
  CHECK_THAT(without_text, !Catch::Contains("time_session_report"));
  CHECK_THAT(without_text, Catch::Contains("`time_session_end`"));
}
