#include "protocol/json_rpc.hpp"

#include "protocol/mcp.hpp"
#include "protocol/meta.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ttm::protocol {

namespace {

// Deeper input is refused before parsing: RapidJSON's writer and schema
// validator recurse, so unbounded nesting would overflow the stack.
constexpr int max_nesting = 128;

int hex4(std::string_view text, std::size_t pos) {
  if (pos + 4 > text.size())
    return -1;
  int v = 0;
  for (std::size_t i = pos; i < pos + 4; ++i) {
    char c = text[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

/// What RapidJSON lets through but must not reach a reply: raw NUL bytes
/// (RapidJSON stops reading at the first one), escapes of lone UTF-16
/// surrogates (they would come out as invalid UTF-8), and nesting deeper
/// than `max_nesting`. Returns an error frame's code and message, or 0.
std::pair<int, std::string> prescan(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\0')
      return {parse_error,
              "Parse error: NUL byte at byte " + std::to_string(i)};
    if (in_string) {
      if (c == '"') {
        in_string = false;
      } else if (c == '\\' && i + 1 < text.size()) {
        if (text[++i] != 'u')
          continue;
        int unit = hex4(text, i + 1);
        if (unit >= 0xD800 && unit <= 0xDFFF) {
          int low = unit <= 0xDBFF && i + 6 < text.size()
                        && text[i + 5] == '\\' && text[i + 6] == 'u'
                      ? hex4(text, i + 7)
                      : -1;
          bool paired = low >= 0xDC00 && low <= 0xDFFF;
          if (!paired)
            return {parse_error, "Parse error: unpaired UTF-16 surrogate "
                                 "escape at byte "
                                   + std::to_string(i - 1)};
          i += 6; // the low surrogate's backslash and 'u'
        }
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '{':
      case '[':
        if (++depth > max_nesting)
          return {invalid_request, "Invalid Request: JSON nested deeper than "
                                     + std::to_string(max_nesting)
                                     + " levels"};
        break;
      case '}':
      case ']':
        --depth;
        break;
      default:
        break;
    }
  }
  return {0, {}};
}

/// The keys of a top-level JSON object, read without parsing what they hold
/// (for a message too deep to parse): whether it names a method, an id, a
/// result or an error. Contents at any depth below 1 are skipped.
struct top_level_keys {
  bool object = false;
  bool method = false, id = false, result = false, error = false;
};

top_level_keys scan_top_level_keys(std::string_view text) {
  top_level_keys k;
  std::size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || text[i] != '{')
    return k;
  k.object = true;
  int depth = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0)
        break;
    } else if (c == '"') {
      std::size_t start = ++i;
      while (i < text.size() && text[i] != '"')
        i += text[i] == '\\' ? 2 : 1;
      if (depth != 1 || i >= text.size())
        continue;
      auto name = text.substr(start, i - start);
      std::size_t next = text.find_first_not_of(" \t\r\n", i + 1);
      if (next == std::string_view::npos || text[next] != ':')
        continue; // a value, not a key
      k.method |= name == "method";
      k.id |= name == "id";
      k.result |= name == "result";
      k.error |= name == "error";
    }
  }
  return k;
}

std::string to_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer{buf};
  v.Accept(writer);
  return {buf.GetString(), buf.GetSize()};
}

using document_ptr = std::shared_ptr<const rapidjson::Document>;

// A frame's document with its own allocator, sized to the frame.
struct parsed_frame {
  explicit parsed_frame(std::size_t text_size)
    : pool(2 * text_size + 1024), doc(&pool) {}
  rapidjson::MemoryPoolAllocator<> pool;
  rapidjson::Document doc;
};

message invalid(request_id id, std::string text) {
  message msg;
  msg.kind = message::invalid;
  msg.id = std::move(id);
  msg.error_code = invalid_request;
  msg.error_message = "Invalid Request: " + std::move(text);
  return msg;
}

std::string_view view(const rapidjson::Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

/// Reads what routing and the modern revision need from `params`: the
/// `_meta` envelope, `name`/`uri` and the argument `opts` names.
void read_params(const rapidjson::Value& params, message& msg,
                 const decode_options& opts) {
  if (!params.IsObject())
    return;
  if (auto n = params.FindMember("name");
      n != params.MemberEnd() && n->value.IsString())
    msg.name = view(n->value);
  else if (auto u = params.FindMember("uri");
           u != params.MemberEnd() && u->value.IsString()) {
    msg.name = view(u->value);
    if (opts.uri_handle != nullptr)
      msg.handle = opts.uri_handle(view(u->value));
  }
  const auto& lift = opts.handle_argument;
  const auto& lookup = opts.lookup_argument;
  if (auto a = params.FindMember("arguments");
      a != params.MemberEnd() && a->value.IsObject()) {
    if (!lift.empty())
      if (auto h = a->value.FindMember(rapidjson::StringRef(
            lift.data(), static_cast<rapidjson::SizeType>(lift.size())));
          h != a->value.MemberEnd() && h->value.IsString())
        msg.handle = view(h->value);
    if (!lookup.empty())
      if (auto k = a->value.FindMember(rapidjson::StringRef(
            lookup.data(), static_cast<rapidjson::SizeType>(lookup.size())));
          k != a->value.MemberEnd() && k->value.IsString())
        msg.lookup = view(k->value);
  }
  auto m = params.FindMember("_meta");
  if (m == params.MemberEnd() || !m->value.IsObject())
    return;
  const auto& meta = m->value;
  if (auto tp = meta.FindMember("traceparent");
      tp != meta.MemberEnd() && tp->value.IsString()) {
    msg.meta.traceparent = view(tp->value);
    if (auto ts = meta.FindMember("tracestate");
        ts != meta.MemberEnd() && ts->value.IsString())
      msg.meta.tracestate = view(ts->value);
  }
  auto pv = meta.FindMember(rapidjson::StringRef(
    meta_key::protocol_version.data(), meta_key::protocol_version.size()));
  if (pv == meta.MemberEnd())
    return; // no claim: a 2025-era message, whatever else _meta holds
  auto& env = msg.meta;
  env.claimed = true;
  auto find = [&](std::string_view key) {
    return meta.FindMember(rapidjson::StringRef(key.data(), key.size()));
  };
  auto problem = [&](std::string_view key, std::string_view what) {
    if (env.problem.empty())
      env.problem = "_meta['" + std::string{key} + "'] " + std::string{what};
  };
  if (pv->value.IsString())
    env.version = view(pv->value);
  else
    problem(meta_key::protocol_version, "must be a string");
  if (auto c = find(meta_key::client_capabilities); c == meta.MemberEnd())
    problem(meta_key::client_capabilities,
            "is missing (send {} when the client has none)");
  else if (!c->value.IsObject())
    problem(meta_key::client_capabilities, "must be an object");
  if (auto i = find(meta_key::client_info);
      i != meta.MemberEnd() && !i->value.IsObject())
    problem(meta_key::client_info, "must be an object");
  if (auto l = find(meta_key::log_level); l != meta.MemberEnd()) {
    if (l->value.IsString() && parse_log_level(view(l->value)))
      env.log_level = view(l->value);
    else
      problem(meta_key::log_level, std::string{"must be one of "}
                                     + std::string{log_level_names});
  }
}

/// A request (id set) or notification (id none) with `method`.
message decode_request(const rapidjson::Value& v, request_id id,
                       const decode_options& opts, const document_ptr& doc) {
  auto jsonrpc = v.FindMember("jsonrpc");
  if (jsonrpc == v.MemberEnd() || !jsonrpc->value.IsString()
      || view(jsonrpc->value) != "2.0")
    return invalid(std::move(id), "\"jsonrpc\" must be \"2.0\"");
  const auto& m = v["method"];
  if (!m.IsString())
    return invalid(std::move(id), "\"method\" must be a string");
  message msg;
  msg.kind = id.kind == request_id::none ? message::notification
                                         : message::request;
  msg.id = std::move(id);
  msg.method.assign(m.GetString(), m.GetStringLength());
  if (auto p = v.FindMember("params"); p != v.MemberEnd()) {
    if (!p->value.IsObject() && !p->value.IsArray())
      return invalid(std::move(msg.id),
                     "\"params\" must be an object or an array");
    msg.params = to_json(p->value);
    msg.params_value = std::shared_ptr<const rapidjson::Value>(doc, &p->value);
    read_params(p->value, msg, opts);
  }
  return msg;
}

message decode_one(const rapidjson::Value& v, const decode_options& opts,
                   const document_ptr& doc) {
  if (!v.IsObject())
    return invalid(request_id::make_null(),
                   "a JSON-RPC message must be a JSON object");
  bool has_method = v.HasMember("method");
  // A response (even a malformed one, e.g. an error with id null) is never
  // answered: two peers would otherwise answer each other forever.
  if (!has_method && (v.HasMember("result") || v.HasMember("error"))) {
    message msg;
    msg.kind = message::response;
    // The id is kept for the log only; nothing is sent back to it.
    if (auto i = v.FindMember("id"); i != v.MemberEnd())
      msg.id = {i->value.IsString() ? request_id::string
                : i->value.IsNull() ? request_id::null
                                    : request_id::integer,
                to_json(i->value)};
    return msg;
  }
  // Without an id it is meant as a notification: never answered, even when
  // malformed (the sender reads no reply to it).
  if (has_method && !v.HasMember("id")) {
    message msg = decode_request(v, request_id{}, opts, doc);
    if (msg.kind == message::invalid)
      msg.kind = message::malformed_notification;
    return msg;
  }
  request_id id;
  if (auto i = v.FindMember("id"); i != v.MemberEnd()) {
    const auto& x = i->value;
    if (x.IsString())
      id = {request_id::string, to_json(x)};
    else if (x.IsInt64() || x.IsUint64())
      id = {request_id::integer, to_json(x)};
    else
      return invalid(request_id::make_null(),
                     "\"id\" must be a string or an integer");
  }
  if (!has_method)
    return invalid(std::move(id),
                   "expected \"method\" (request or notification) or "
                   "\"result\"/\"error\" (response)");
  return decode_request(v, std::move(id), opts, doc);
}

} // namespace

frame decode(std::string_view text, const decode_options& opts) {
  frame result;
  if (auto [code, text_error] = prescan(text); code != 0) {
    // Too deep to parse, but recognisably a notification or a response:
    // those are never answered (the sender reads no reply), only logged.
    if (code == invalid_request) {
      auto k = scan_top_level_keys(text);
      bool notification = k.object && k.method && !k.id;
      bool response = k.object && !k.method && (k.result || k.error);
      if (notification || response) {
        message msg;
        msg.kind = notification ? message::malformed_notification
                                : message::response;
        msg.error_message = std::move(text_error);
        result.messages.push_back(std::move(msg));
        return result;
      }
    }
    result.error_code = code;
    result.error_message = std::move(text_error);
    return result;
  }
  // Shared: each message keeps its parsed params (message::params_value),
  // so a frame waiting in a mailbox holds its document. RapidJSON's pool
  // would take 64 KiB chunks; one of twice the text's size keeps a queued
  // frame small (the backpressure test bounds a server's memory).
  auto owner = std::make_shared<parsed_frame>(text.size());
  auto& doc = owner->doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    result.error_code = parse_error;
    result.error_message = std::string{"Parse error: "}
                           + rapidjson::GetParseError_En(doc.GetParseError())
                           + " (at byte "
                           + std::to_string(doc.GetErrorOffset()) + ")";
    return result;
  }
  document_ptr shared{owner, &owner->doc};
  if (doc.IsArray()) {
    result.batch = true;
    if (doc.Empty()) {
      result.error_code = invalid_request;
      result.error_message = "Invalid Request: empty batch";
      return result;
    }
    result.messages.reserve(doc.Size());
    for (const auto& item : doc.GetArray())
      result.messages.push_back(decode_one(item, opts, shared));
    return result;
  }
  result.messages.push_back(decode_one(doc, opts, shared));
  return result;
}

std::string cancelled_request_id(const message& msg) {
  if (msg.kind != message::notification
      || msg.method != "notifications/cancelled" || msg.params.empty())
    return {};
  rapidjson::Document doc;
  doc.Parse(msg.params.c_str(), msg.params.size());
  if (doc.HasParseError() || !doc.IsObject())
    return {};
  auto i = doc.FindMember("requestId");
  if (i == doc.MemberEnd()
      || !(i->value.IsString() || i->value.IsInt64() || i->value.IsUint64()))
    return {};
  return to_json(i->value);
}

std::string json_quote(std::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer{buf};
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return {buf.GetString(), buf.GetSize()};
}

std::string encode_result(const request_id& id, std::string_view result_json) {
  std::string out;
  auto idj = id.json_or_null();
  out.reserve(32 + idj.size() + result_json.size());
  out += R"({"jsonrpc":"2.0","id":)";
  out += idj;
  out += R"(,"result":)";
  out += result_json;
  out += '}';
  return out;
}

std::string encode_error(const request_id& id, int code,
                         std::string_view message,
                         std::string_view data_json) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  out += id.json_or_null();
  out += R"(,"error":{"code":)";
  out += std::to_string(code);
  out += R"(,"message":)";
  out += json_quote(message);
  if (!data_json.empty()) {
    out += R"(,"data":)";
    out += data_json;
  }
  out += "}}";
  return out;
}

std::string encode_notification(std::string_view method,
                                std::string_view params_json) {
  std::string out = R"({"jsonrpc":"2.0","method":)";
  out += json_quote(method);
  out += R"(,"params":)";
  out += params_json;
  out += '}';
  return out;
}

std::string encode_batch(const std::vector<std::string>& replies) {
  std::string out = "[";
  for (size_t i = 0; i < replies.size(); ++i) {
    if (i > 0)
      out += ',';
    out += replies[i];
  }
  out += ']';
  return out;
}

} // namespace ttm::protocol
