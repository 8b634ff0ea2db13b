#include "protocol/request_ids.hpp"

#include <rapidjson/document.h>

namespace ttm::protocol {

void resolve(trace_context& t, const frame& f, const id_source& ids) {
  if (t.trace_id.empty())
    for (const auto& msg : f.messages) {
      if (msg.meta.traceparent.empty())
        continue;
      if (take_traceparent(t, msg.meta.traceparent, msg.meta.tracestate,
                           id_origin::meta))
        break;
    }
  ensure_id(t, ids);
}

bool stamp_error(std::string& reply, std::string_view request_id) {
  if (error_code_of(reply) == 0 || reply.size() < 3)
    return false;
  rapidjson::Document d;
  d.Parse(reply.data(), reply.size());
  if (d.HasParseError() || !d.IsObject())
    return false;
  auto err = d.FindMember("error");
  if (err == d.MemberEnd() || !err->value.IsObject())
    return false;
  auto member = "\"request_id\":" + json_quote(request_id);
  auto data = err->value.FindMember("data");
  // encode_error writes `data` last: the reply ends "<data>}}".
  if (data == err->value.MemberEnd()) {
    reply.insert(reply.size() - 2, ",\"data\":{" + member + "}");
    return true;
  }
  if (!data->value.IsObject() || data->value.HasMember("request_id")
      || reply.compare(reply.size() - 3, 3, "}}}") != 0)
    return true; // never replace what is there
  reply.insert(reply.size() - 3,
               data->value.MemberCount() > 0 ? "," + member : member);
  return true;
}

int error_code_of(std::string_view reply) noexcept {
  constexpr std::string_view head = R"({"jsonrpc":"2.0","id":)";
  constexpr std::string_view err = R"(,"error":{"code":)";
  if (reply.substr(0, head.size()) != head)
    return 0;
  auto at = head.size();
  // Skip the id: a JSON string (quotes inside it are escaped), a number or
  // null.
  if (at < reply.size() && reply[at] == '"') {
    for (++at; at < reply.size() && reply[at] != '"'; ++at)
      if (reply[at] == '\\')
        ++at;
    ++at;
  } else {
    while (at < reply.size() && reply[at] != ',')
      ++at;
  }
  if (reply.substr(at, err.size()) != err)
    return 0;
  at += err.size();
  bool negative = at < reply.size() && reply[at] == '-';
  if (negative)
    ++at;
  long code = 0;
  bool any = false;
  for (; at < reply.size() && reply[at] >= '0' && reply[at] <= '9'
         && code < 1'000'000'000;
       ++at) {
    code = code * 10 + (reply[at] - '0');
    any = true;
  }
  if (!any)
    return 0;
  return static_cast<int>(negative ? -code : code);
}

} // namespace ttm::protocol
