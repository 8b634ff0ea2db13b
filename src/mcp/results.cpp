#include "mcp/results.hpp"

#include "mcp/request_trace.hpp"

#include "protocol/modern.hpp"

namespace ttm::mcp {

namespace {

void key(json_writer& w, std::string_view k) {
  w.string(k);
}

} // namespace

result_builder::result_builder(const protocol::request_id& id,
                               result_stamp stamp)
  : w_(buf_), stamp_(stamp) {
  w_.StartObject();
  write_member(w_, "jsonrpc", "2.0");
  key(w_, "id");
  auto idj = id.json_or_null();
  w_.RawValue(idj.data(), idj.size(), rapidjson::kNumberType);
  key(w_, "result");
  w_.StartObject();
  if (stamp_.modern)
    write_member(w_, "resultType", "complete");
}

std::string result_builder::finish(std::string_view meta_key,
                                   std::string_view meta_json) {
  if (stamp_.modern) {
    if (stamp_.cacheable) {
      // The tool list never changes while the server runs and is the same
      // for every caller: clients and shared caches may keep it an hour.
      key(w_, "ttlMs");
      w_.Int(3600000);
      write_member(w_, "cacheScope", "public");
    } else if (stamp_.private_scope) {
      key(w_, "ttlMs");
      w_.Int(stamp_.private_ttl_ms);
      write_member(w_, "cacheScope", "private");
    }
    key(w_, "_meta");
    w_.StartObject();
    if (!meta_key.empty()) {
      key(w_, meta_key);
      w_.RawValue(meta_json.data(), meta_json.size(), rapidjson::kNumberType);
    }
    key(w_, protocol::meta_key::server_info);
    write_server_info(w_, *stamp_.modern);
    w_.EndObject();
  }
  w_.EndObject();
  w_.EndObject();
  return {buf_.GetString(), buf_.GetSize()};
}

void write_member(json_writer& w, std::string_view k, std::string_view value) {
  key(w, k);
  w.string(value);
}

void write_server_info(json_writer& w, const server_info& info) {
  w.StartObject();
  write_member(w, "name", info.name);
  write_member(w, "title", info.title);
  write_member(w, "version", info.version);
  w.EndObject();
}

void write_tool_call(json_writer& w, std::string_view structured,
                     bool is_error, request_trace* trace) {
  std::string stamped;
  if (is_error && trace != nullptr) {
    stamped = stamp_tool_error(*trace, structured);
    structured = stamped;
  }
  key(w, "content");
  w.StartArray();
  w.StartObject();
  write_member(w, "type", "text");
  write_member(w, "text", structured);
  w.EndObject();
  w.EndArray();
  key(w, "structuredContent");
  w.raw(structured, structured == "null" ? rapidjson::kNullType
                                         : rapidjson::kObjectType);
  key(w, "isError");
  w.Bool(is_error);
}

std::string invalid_params(const protocol::request_id& id,
                           std::string_view text) {
  std::string message = "Invalid params: ";
  message += text;
  return protocol::encode_error(id, protocol::invalid_params, message);
}

std::string log_notification(protocol::log_level level,
                             std::string_view logger, std::string_view text) {
  rapidjson::StringBuffer buf;
  json_writer w{buf};
  w.StartObject();
  write_member(w, "jsonrpc", "2.0");
  write_member(w, "method", "notifications/message");
  key(w, "params");
  w.StartObject();
  write_member(w, "level", protocol::to_string(level));
  write_member(w, "logger", logger);
  write_member(w, "data", text);
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

} // namespace ttm::mcp
