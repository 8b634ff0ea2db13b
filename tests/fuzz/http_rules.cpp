// The MCP-over-HTTP rules (src/edge/http_rules.*): a request's line and
// headers, then its body, through the same decisions the HTTP edge follows.
// Input: one option byte, then "METHOD TARGET", header lines "Name: value",
// an empty line and the body. Checked beyond "no crash": a routed
// 2026-07-28 call matches its headers (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name), every refusal is a 4xx/5xx with a JSON error body, and no
// response header value carries a line break.

#include "fuzz_check.hpp"

#include "log.hpp"

#include "edge/http_rules.hpp"
#include "mcp/wire.hpp"
#include "protocol/modern.hpp"

#include <rapidjson/document.h>

#include <charconv>

namespace {

using namespace ttm;
using namespace ttm::edge;

/// Whether `text` parses (into a buffer on the stack: a Document's first
/// 64 KB chunk per call would halve the executions per second).
bool is_json(const std::string& text) {
  char buffer[4096];
  rapidjson::MemoryPoolAllocator<> pool{buffer, sizeof buffer};
  rapidjson::Document d{&pool};
  d.Parse(text.c_str(), text.size());
  return !d.HasParseError();
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto x = a[i] >= 'A' && a[i] <= 'Z' ? a[i] - 'A' + 'a' : a[i];
    auto y = b[i] >= 'A' && b[i] <= 'Z' ? b[i] - 'A' + 'a' : b[i];
    if (x != y)
      return false;
  }
  return true;
}

bool one_line(std::string_view v) {
  return v.find_first_of("\r\n") == std::string_view::npos;
}

void check_refusal(const refusal& r, bool modern,
                   const protocol::request_id& id) {
  FUZZ_CHECK(r.status >= 400 && r.status <= 599, std::to_string(r.status));
  FUZZ_CHECK(!r.message.empty(), "a refusal without a message");
  FUZZ_CHECK(one_line(r.www_authenticate) && one_line(r.allow)
               && one_line(r.retry_after),
             "a line break in a response header");
  FUZZ_CHECK((r.status == 405) == !r.allow.empty(), r.message);
  if (modern)
    FUZZ_CHECK(r.code > -32000 || r.code < -32019,
               "2026-07-28 reply with code " + std::to_string(r.code));
  auto body = protocol::encode_error(id, r.code, r.message, r.data_json);
  FUZZ_CHECK(is_json(body), body);
}

http_method method_of(std::string_view m) {
  if (m == "GET")
    return http_method::get;
  if (m == "HEAD")
    return http_method::head;
  if (m == "POST")
    return http_method::post;
  if (m == "DELETE")
    return http_method::delete_;
  return http_method::other;
}

const access_policy& policy(bool tokens) {
  static const access_policy open{8787, std::nullopt, {"mcp.example.com"},
                                  {"https://app.example.com"}, {}, {}};
  static const access_policy guarded{8787, std::string{"10.0.0.5"}, {}, {},
                                     {"s3cret", "other"}, {"alice", "bob"}};
  return tokens ? guarded : open;
}

} // namespace

/// The log's lines are formatted (the code a line runs stays fuzzed) but
/// not written: stderr is libFuzzer's report.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ttm::log::set_sink([](ttm::log::level lvl, std::string_view where,
                        std::string_view msg, const ttm::log::fields& f) {
    (void)ttm::log::format_line(ttm::log::format::json, 0, lvl, where, msg, f);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = fuzz::bytes(data, size);
  auto opts = fuzz::take_byte(in);
  auto blank = in.find("\n\n");
  auto head_text = in.substr(0, blank);
  auto body = blank == std::string_view::npos ? std::string_view{}
                                              : in.substr(blank + 2);
  auto lines = fuzz::split(head_text, '\n');

  request_head h;
  h.version = (opts & 8) ? 10 : 11;
  std::string_view line0 = lines.front();
  auto sp = line0.find(' ');
  h.method = method_of(line0.substr(0, sp));
  h.target = sp == std::string_view::npos ? std::string_view{"/mcp"}
                                          : line0.substr(sp + 1);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    auto colon = l.find(':');
    if (colon == std::string_view::npos)
      continue;
    auto name = l.substr(0, colon);
    auto value = l.substr(colon + 1);
    if (!value.empty() && value.front() == ' ')
      value.remove_prefix(1);
    auto set = [&](std::optional<std::string_view>& field) {
      if (!field) // the first value of each header, as the edge reads it
        field = value;
    };
    if (iequals(name, "host")) {
      set(h.host);
      ++h.host_count;
    } else if (iequals(name, "origin"))
      set(h.origin);
    else if (iequals(name, "authorization"))
      set(h.authorization);
    else if (iequals(name, "content-type"))
      set(h.content_type);
    else if (iequals(name, "accept"))
      set(h.accept);
    else if (iequals(name, "expect"))
      set(h.expect);
    else if (iequals(name, "mcp-session-id"))
      set(h.session_id);
    else if (iequals(name, "mcp-protocol-version"))
      set(h.protocol_version);
    else if (iequals(name, "mcp-method"))
      set(h.mcp_method);
    else if (iequals(name, "mcp-name"))
      set(h.mcp_name);
    else if (name.size() > param_header_prefix.size()
             && iequals(name.substr(0, param_header_prefix.size()),
                        param_header_prefix))
      h.params.emplace_back(name.substr(param_header_prefix.size()), value);
    else if (iequals(name, "content-length") && !h.content_length) {
      std::uint64_t n = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec == std::errc{})
        h.content_length = n;
    }
  }

  auto route = route_path(h.method, h.target, "/mcp", opts & 1,
                          (opts & 2) ? "the journal is not open" : "");
  FUZZ_CHECK(route.status >= 200 && route.status <= 599, route.text);
  if (route.kind == path_decision::metrics) {
    auto m = decide_metrics(policy(opts & 4), h, opts & 16);
    FUZZ_CHECK(m.status == 200 || m.status >= 400, m.text);
  }
  if (route.kind != path_decision::mcp)
    return 0;

  std::size_t max_body = (opts & 32) ? 64 : 1024 * 1024;
  auto head = decide_head(policy(opts & 4), h, max_body);
  bool modern_header = protocol::names_modern_era(head.headers.version);
  if (head.kind == head_decision::refuse) {
    check_refusal(head.why, modern_header, protocol::request_id::make_null());
    return 0;
  }
  if (head.kind == head_decision::end_session) {
    FUZZ_CHECK(h.method == http_method::delete_, "end_session of a non-DELETE");
    return 0;
  }
  FUZZ_CHECK(h.method == http_method::post, "a body read for a non-POST");
  if (body.size() > max_body) {
    check_refusal(too_large(max_body, modern_header), modern_header,
                  protocol::request_id::make_null());
    return 0;
  }
  auto frame = mcp::decode(body);
  // Half the inputs: every tool mirrors its session_id into
  // Mcp-Param-Session-Id (x-mcp-header), so the header-body checks of the
  // 2026-07-28 tools/call run too.
  static const mirrored_args session_id{{"session_id", "Session-Id"}};
  mirrored_lookup mirrored;
  if (opts & 32)
    mirrored = [](std::string_view) { return &session_id; };
  auto d = decide_body(head, frame, mirrored);
  switch (d.kind) {
    case body_decision::refuse:
      check_refusal(d.why, d.modern || modern_header, d.id);
      break;
    case body_decision::call: {
      // The 2026-07-28 header<->body rules held: one request, its headers
      // repeating the body's version, method and name.
      FUZZ_CHECK(!frame.batch && frame.messages.size() == 1, "call of a batch");
      const auto& m = frame.messages.front();
      FUZZ_CHECK(m.kind == protocol::message::request, m.method);
      FUZZ_CHECK(head.headers.version == m.meta.version, head.headers.version);
      FUZZ_CHECK(head.headers.method == m.method, head.headers.method);
      FUZZ_CHECK(protocol::is_modern_method(m.method), m.method);
      if (m.method == "tools/call" || m.method == "prompts/get"
          || m.method == "resources/read") {
        FUZZ_CHECK(head.headers.name.has_value(), "no Mcp-Name");
        auto name = decode_header_value(*head.headers.name);
        FUZZ_CHECK(name && *name == m.name, m.name);
      }
      break;
    }
    case body_decision::accept: {
      const auto& m = frame.messages.front();
      FUZZ_CHECK(m.kind == protocol::message::notification, m.method);
      FUZZ_CHECK(head.headers.method.empty() || head.headers.method == m.method,
                 head.headers.method);
      break;
    }
    case body_decision::open:
      FUZZ_CHECK(head.session.empty(), head.session);
      FUZZ_CHECK(frame.messages.size() == 1
                   && frame.messages.front().method == "initialize",
                 "open without initialize");
      break;
    case body_decision::forward:
      FUZZ_CHECK(!head.session.empty(), "forward without a session");
      break;
  }
  return 0;
}
