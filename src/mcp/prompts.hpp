#pragma once

// The server's prompts (MCP `prompts/list`, `prompts/get`; issue 16 item 3):
// short, fixed templates a user picks in the client ("/execution_report")
// that tell the model which tools to call with which arguments. Their
// arguments are checked here, so a prompt never hands the model a time
// range or zone the tools would refuse; times come from the server's clock.

#include "domain/clock.hpp"
#include "mcp/results.hpp"
#include "tools/registry.hpp"

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ttm::mcp {

struct prompt_argument {
  std::string name;
  std::string title;
  std::string description;
  bool required = false;
};

/// The arguments of a prompts/get, as the client sent them (strings).
using prompt_args = std::vector<std::pair<std::string, std::string>>;

/// What a prompt is rendered against.
struct prompt_context {
  domain::wall_time now{};
  /// The server's zone: what `timezone` defaults to, as in the tools.
  std::string local_zone;
  /// Whether time_session_report is offered (--toolsets): a prompt that
  /// may mention it does so only then.
  bool reports = true;
};

/// A rendered prompt: a description and one user message (text).
struct prompt_text {
  std::string description;
  std::string text;
};

/// Rendered, or the reason the arguments were refused (-32602).
using prompt_outcome = std::variant<prompt_text, std::string>;

struct prompt {
  std::string name;
  std::string title;
  std::string description;
  std::vector<prompt_argument> arguments;
  prompt_outcome (*render)(const prompt_args& args, const prompt_context& ctx);
  /// The roles of the tools its text tells the model to call: the prompt
  /// is offered only while --toolsets enables them all.
  std::vector<tools::role> tools;
};

/// Whether `p` is offered: `r` (the enabled tools) has every tool it names.
bool offered(const prompt& p, const tools::registry& r);

/// Why `p` is not offered: the first tool it needs that `r` does not
/// enable, and its toolset.
std::string not_offered(const prompt& p, const tools::registry& r);

/// Every prompt, in the order prompts/list gives them.
const std::vector<prompt>& server_prompts();

/// The prompt named `name`, or nullptr.
const prompt* find_prompt(std::string_view name);

/// Checks `args` against `p` (unknown names, missing required ones, more
/// than 4,096 bytes in a value) and renders it.
prompt_outcome render_prompt(const prompt& p, const prompt_args& args,
                             const prompt_context& ctx);

/// Writes the `prompts` array of a prompts/list result: the prompts `r`
/// offers.
void write_prompt_list(json_writer& w, const tools::registry& r);

} // namespace ttm::mcp
