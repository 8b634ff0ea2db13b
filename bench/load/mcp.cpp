#include "mcp.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace ttb::mcp {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

era era_of(std::string_view v) noexcept {
  // ISO dates compare as strings; anything that is no date is legacy.
  if (v.size() != 10)
    return era::legacy;
  for (std::size_t i = 0; i < v.size(); ++i) {
    bool dash = i == 4 || i == 7;
    if (dash ? v[i] != '-' : v[i] < '0' || v[i] > '9')
      return era::legacy;
  }
  return v >= std::string_view{"2026-07-28"} ? era::modern : era::legacy;
}

std::string header_value(std::string_view value) {
  bool plain = value.empty()
               || (value.front() != ' ' && value.front() != '\t'
                   && value.back() != ' ' && value.back() != '\t');
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e)
      plain = false;
  }
  if (plain)
    return std::string{value};
  static constexpr char digits[]
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out = "=?base64?";
  std::size_t i = 0;
  for (; i + 3 <= value.size(); i += 3) {
    auto n = static_cast<unsigned>(static_cast<unsigned char>(value[i])) << 16
             | static_cast<unsigned>(static_cast<unsigned char>(value[i + 1]))
                 << 8
             | static_cast<unsigned char>(value[i + 2]);
    out += digits[(n >> 18) & 63];
    out += digits[(n >> 12) & 63];
    out += digits[(n >> 6) & 63];
    out += digits[n & 63];
  }
  if (auto rest = value.size() - i; rest > 0) {
    unsigned n = static_cast<unsigned>(static_cast<unsigned char>(value[i]))
                 << 16;
    if (rest == 2)
      n |= static_cast<unsigned>(static_cast<unsigned char>(value[i + 1]))
           << 8;
    out += digits[(n >> 18) & 63];
    out += digits[(n >> 12) & 63];
    out += rest == 2 ? digits[(n >> 6) & 63] : '=';
    out += '=';
  }
  out += "?=";
  return out;
}

request_builder::request_builder(std::string protocol_version)
  : version_(std::move(protocol_version)), era_(era_of(version_)) {
  auto client_info = std::string{R"({"name":)"} + json_quote(client_name)
                     + R"(,"version":)" + json_quote(client_version) + "}";
  initialize_tail_ = R"(,"method":"initialize","params":{"protocolVersion":)"
                     + json_quote(version_)
                     + R"(,"capabilities":{},"clientInfo":)" + client_info
                     + "}}";
  meta_ = R"("_meta":{"io.modelcontextprotocol/protocolVersion":)"
          + json_quote(version_)
          + R"(,"io.modelcontextprotocol/clientCapabilities":{})"
            R"(,"io.modelcontextprotocol/clientInfo":)"
          + client_info + "}";
}

outgoing request_builder::request(std::int64_t id, std::string body,
                                  std::string_view method) const {
  outgoing m;
  m.body = std::move(body);
  m.id = id;
  m.headers.emplace_back("MCP-Protocol-Version", version_);
  if (modern())
    m.headers.emplace_back("Mcp-Method", std::string{method});
  return m;
}

outgoing request_builder::initialize(std::int64_t id) const {
  outgoing m;
  m.body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + initialize_tail_;
  m.id = id;
  return m;
}

outgoing request_builder::initialized() const {
  auto m = request(
    0, R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
    "notifications/initialized");
  m.notification = true;
  return m;
}

outgoing request_builder::end_session(const std::string& session) const {
  outgoing m;
  m.verb = outgoing::del;
  m.session = session;
  m.headers.emplace_back("MCP-Protocol-Version", version_);
  return m;
}

outgoing request_builder::discover(std::int64_t id) const {
  return request(id,
                 R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
                   + R"(,"method":"server/discover","params":{)" + meta_
                   + "}}",
                 "server/discover");
}

outgoing request_builder::ping(std::int64_t id) const {
  if (modern())
    return discover(id);
  return request(id,
                 R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
                   + R"(,"method":"ping"})",
                 "ping");
}

outgoing request_builder::tools_call(std::int64_t id, std::string_view tool,
                                     std::string_view args_json) const {
  std::string out;
  out.reserve(80 + tool.size() + args_json.size()
              + (modern() ? meta_.size() + 1 : 0));
  out += R"({"jsonrpc":"2.0","id":)";
  out += std::to_string(id);
  out += R"(,"method":"tools/call","params":{"name":)";
  out += json_quote(tool);
  out += R"(,"arguments":)";
  out += args_json;
  if (modern()) {
    out += ',';
    out += meta_;
  }
  out += "}}";
  auto m = request(id, std::move(out), "tools/call");
  if (modern())
    m.headers.emplace_back("Mcp-Name", header_value(tool));
  if (modern()) {
    // The tools declare x-mcp-header on session_id: a conforming client
    // repeats it as Mcp-Param-Session-Id (the server checks it, a proxy
    // may hash on it). The bench's own arguments: a plain quoted string.
    constexpr std::string_view key = R"("session_id":")";
    if (auto at = args_json.find(key); at != std::string_view::npos) {
      auto from = at + key.size();
      auto to = args_json.find('"', from);
      if (to != std::string_view::npos)
        m.headers.emplace_back(
          "Mcp-Param-Session-Id",
          header_value(args_json.substr(from, to - from)));
    }
  }
  return m;
}

std::string
request_builder::session_start_args(std::string_view milestone_id,
                                    const std::vector<std::string>& tasks) {
  std::string out = R"({"milestone_id":)" + json_quote(milestone_id)
                    + R"(,"milestone_name":"Commit + Lifecycle","task_ids":[)";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (i > 0)
      out += ',';
    out += json_quote(tasks[i]);
  }
  out += R"(],"timezone":"America/New_York",)"
         R"("metadata":{"branch":"Recipe-Ingest-Agent"},)"
         R"("tags":["milestone:2","area:gateway"]})";
  return out;
}

std::string request_builder::task_args(std::string_view session_id,
                                       std::string_view task_id) {
  return R"({"session_id":)" + json_quote(session_id) + R"(,"task_id":)"
         + json_quote(task_id) + "}";
}

std::string request_builder::session_args(std::string_view session_id) {
  return R"({"session_id":)" + json_quote(session_id) + "}";
}

std::string request_builder::report_args(std::string_view session_id,
                                         std::string_view format) {
  return R"({"session_id":)" + json_quote(session_id) + R"(,"format":)"
         + json_quote(format) + "}";
}

std::vector<std::string> task_ids(std::size_t k) {
  std::vector<std::string> out;
  out.reserve(k);
  for (std::size_t i = 1; i <= k; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "M2-%03zu", i);
    out.emplace_back(buf);
  }
  return out;
}

namespace {

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size())
    return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i])
      return false;
  return true;
}

std::string shorten(std::string_view s) {
  constexpr std::size_t max = 200;
  if (s.size() <= max)
    return std::string{s};
  return std::string{s.substr(0, max)} + "...";
}

bool id_matches(const rapidjson::Value& msg, std::int64_t id) {
  auto it = msg.FindMember("id");
  return it != msg.MemberEnd() && it->value.IsInt64()
         && it->value.GetInt64() == id;
}

bool is_response(const rapidjson::Value& msg) {
  return msg.IsObject() && !msg.HasMember("method")
         && (msg.HasMember("result") || msg.HasMember("error"));
}

/// Parses one JSON text into a new document; nullptr on a parse error.
document_ptr parse(std::string_view text) {
  auto doc = std::make_shared<rapidjson::Document>();
  doc->Parse(text.data(), text.size());
  if (doc->HasParseError())
    return nullptr;
  return doc;
}

/// The response to `id` among the events of an SSE stream (other events,
/// e.g. log notifications, are skipped).
document_ptr from_sse(std::string_view body, std::int64_t id,
                      std::string& error) {
  std::string data;
  bool have_data = false;
  document_ptr found;
  std::size_t events = 0;
  auto dispatch = [&] {
    if (!have_data)
      return;
    ++events;
    if (!found) {
      if (auto doc = parse(data); doc && is_response(*doc)
                                  && id_matches(*doc, id))
        found = std::move(doc);
    }
    data.clear();
    have_data = false;
  };
  std::size_t pos = 0;
  while (pos <= body.size()) {
    auto nl = body.find('\n', pos);
    auto line = body.substr(pos, nl == std::string_view::npos
                                   ? std::string_view::npos
                                   : nl - pos);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty()) {
      dispatch();
    } else if (line.rfind("data:", 0) == 0) {
      auto v = line.substr(5);
      if (!v.empty() && v.front() == ' ')
        v.remove_prefix(1);
      if (have_data)
        data += '\n';
      data += v;
      have_data = true;
    } // event:, id:, retry: and comments do not matter here
    if (nl == std::string_view::npos)
      break;
    pos = nl + 1;
  }
  dispatch();
  if (!found)
    error = "SSE stream (" + std::to_string(events)
            + " events) holds no response to id " + std::to_string(id);
  return found;
}

} // namespace

document_ptr check_reply(const incoming& in, std::int64_t id, want w,
                         std::string& error, era e) {
  if (!in.transport_error.empty()) {
    error = in.transport_error;
    return nullptr;
  }
  bool over_http = in.status != 0;
  if (w == want::notification) {
    if (over_http && (in.status < 200 || in.status > 299))
      error = "HTTP " + std::to_string(in.status)
              + " for a notification (expected 202): " + shorten(in.body);
    return nullptr;
  }
  if (w == want::session_end) {
    if (over_http && !((in.status >= 200 && in.status <= 299)
                       || in.status == 405))
      error = "HTTP " + std::to_string(in.status)
              + " for DELETE (expected 204, 200 or 405): " + shorten(in.body);
    return nullptr;
  }
  document_ptr doc;
  if (in.doc) {
    doc = in.doc;
  } else {
    if (in.status != 200) {
      error = "HTTP " + std::to_string(in.status) + ": " + shorten(in.body);
      return nullptr;
    }
    if (starts_with_ci(in.content_type, "text/event-stream")) {
      doc = from_sse(in.body, id, error);
      if (!doc)
        return nullptr;
    } else if (starts_with_ci(in.content_type, "application/json")) {
      doc = parse(in.body);
      if (!doc) {
        error = "the reply is not JSON: " + shorten(in.body);
        return nullptr;
      }
    } else {
      error = "unexpected Content-Type '" + in.content_type + "'";
      return nullptr;
    }
  }
  const auto& d = *doc;
  if (!d.IsObject()) {
    error = "the reply is not a JSON-RPC object";
    return nullptr;
  }
  auto jsonrpc = d.FindMember("jsonrpc");
  if (jsonrpc == d.MemberEnd() || !jsonrpc->value.IsString()
      || std::string_view{jsonrpc->value.GetString()} != "2.0") {
    error = "the reply lacks \"jsonrpc\":\"2.0\"";
    return nullptr;
  }
  if (!id_matches(d, id)) {
    error = "the reply's id does not match the request's id "
            + std::to_string(id);
    return nullptr;
  }
  auto result = d.FindMember("result");
  auto err = d.FindMember("error");
  bool has_result = result != d.MemberEnd();
  bool has_error = err != d.MemberEnd();
  if (has_result == has_error) {
    error = "the reply must hold exactly one of result and error";
    return nullptr;
  }
  if (w == want::rpc_error) {
    if (!has_error || !err->value.IsObject()
        || !err->value.HasMember("code")) {
      error = "expected a JSON-RPC error, got a result";
      return nullptr;
    }
    return doc;
  }
  if (has_error) {
    std::string msg;
    if (err->value.IsObject()) {
      auto m = err->value.FindMember("message");
      auto c = err->value.FindMember("code");
      if (c != err->value.MemberEnd() && c->value.IsInt())
        msg += std::to_string(c->value.GetInt()) + " ";
      if (m != err->value.MemberEnd() && m->value.IsString())
        msg += m->value.GetString();
    }
    error = "JSON-RPC error " + msg;
    return nullptr;
  }
  if (!result->value.IsObject()) {
    error = "the result is not an object";
    return nullptr;
  }
  const auto& r = result->value;
  if (e == era::modern) {
    const char* type = string_member(r, "resultType");
    if (!type || std::string_view{type} != "complete") {
      error = type ? std::string{"resultType is '"} + type
                       + "', not 'complete'"
                   : "the result has no resultType (2026-07-28 wants "
                     "'complete')";
      return nullptr;
    }
  }
  if (w == want::result)
    return doc;
  auto content = r.FindMember("content");
  if (content == r.MemberEnd() || !content->value.IsArray()) {
    error = "the tool result has no content array";
    return nullptr;
  }
  auto is_error = r.FindMember("isError");
  bool tool_failed = is_error != r.MemberEnd() && is_error->value.IsBool()
                     && is_error->value.GetBool();
  if (w == want::tool_ok && tool_failed) {
    std::string text;
    const auto& c = content->value;
    if (!c.Empty() && c[0].IsObject() && c[0].HasMember("text")
        && c[0]["text"].IsString())
      text = c[0]["text"].GetString();
    error = "isError: true: " + shorten(text);
    return nullptr;
  }
  if (w == want::tool_error && !tool_failed) {
    error = "expected isError: true, the call succeeded";
    return nullptr;
  }
  return doc;
}

const rapidjson::Value* tool_payload(const rapidjson::Document& response,
                                     rapidjson::Document& scratch) {
  auto result = response.FindMember("result");
  if (result == response.MemberEnd() || !result->value.IsObject())
    return nullptr;
  const auto& r = result->value;
  auto sc = r.FindMember("structuredContent");
  if (sc != r.MemberEnd() && sc->value.IsObject())
    return &sc->value;
  auto content = r.FindMember("content");
  if (content == r.MemberEnd() || !content->value.IsArray())
    return nullptr;
  for (const auto& c : content->value.GetArray()) {
    if (!c.IsObject())
      continue;
    auto text = c.FindMember("text");
    if (text == c.MemberEnd() || !text->value.IsString())
      continue;
    scratch.Parse(text->value.GetString(), text->value.GetStringLength());
    if (!scratch.HasParseError() && scratch.IsObject())
      return &scratch;
    return nullptr;
  }
  return nullptr;
}

const char* string_member(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject())
    return nullptr;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString())
    return nullptr;
  return it->value.GetString();
}

} // namespace ttb::mcp
