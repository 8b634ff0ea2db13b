// The JSON-RPC decoder of both transports and both eras: a stdio input
// (lines) or an HTTP body (one frame), decoded with the MCP layer's options
// (mcp/wire.hpp), then every reply the server could build from what was
// decoded is checked to be JSON, and the 2026-07-28 envelope checks run.

#include "fuzz_check.hpp"

#include "mcp/wire.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/modern.hpp"

#include <rapidjson/memorystream.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/reader.h>

namespace {

using namespace ttm;

/// Whether `text` parses: RapidJSON's reader with a handler that keeps
/// nothing (the same grammar a Document's parse accepts, without building
/// one), reused so that its stack's memory is too: the DOM and the stack's
/// heap block per check were a third of this target's time under ASan.
FUZZ_ORACLE bool is_json(std::string_view text) {
  static rapidjson::Reader reader;
  rapidjson::BaseReaderHandler<> keep_nothing;
  rapidjson::MemoryStream bytes{text.data(), text.size()};
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in{
    bytes};
  return !reader.Parse(in, keep_nothing).IsError();
}

FUZZ_ORACLE void check_frame(const protocol::frame& f) {
  std::vector<std::string> replies;
  if (f.error_code != 0) {
    FUZZ_CHECK(f.messages.empty(), f.error_message);
    FUZZ_CHECK(!f.error_message.empty(), "a frame error without a message");
    replies.push_back(encode_error(protocol::request_id::make_null(),
                                   f.error_code, f.error_message));
  }
  for (const auto& m : f.messages) {
    if (m.id.kind != protocol::request_id::none)
      FUZZ_CHECK(is_json(m.id.json), m.id.json);
    if (!m.params.empty())
      FUZZ_CHECK(is_json(m.params), m.params);
    if (m.kind == protocol::message::invalid) {
      FUZZ_CHECK(m.error_code != 0, m.error_message);
      replies.push_back(encode_error(m.id, m.error_code, m.error_message));
    }
    if (m.kind == protocol::message::request) {
      replies.push_back(encode_result(m.id, "{}"));
      if (m.meta.claimed)
        if (auto r = protocol::check_modern_request(m))
          replies.push_back(
            encode_error(m.id, r->code, r->message, r->data_json));
    }
    auto cancelled = protocol::cancelled_request_id(m);
    if (!cancelled.empty())
      FUZZ_CHECK(is_json(cancelled), cancelled);
    // What a reply quotes of the request: its method and name.
    FUZZ_CHECK(is_json(protocol::json_quote(m.method)), m.method);
    FUZZ_CHECK(is_json(protocol::json_quote(m.name)), m.name);
  }
  for (const auto& r : replies)
    FUZZ_CHECK(is_json(r), r);
  // The batch is JSON when it is exactly '[' the replies ',' ']' (each
  // checked above): compared, not parsed a second time.
  if (!replies.empty()) {
    auto batch = protocol::encode_batch(replies);
    std::string_view rest = batch;
    bool framed = !rest.empty() && rest.front() == '[';
    rest.remove_prefix(framed ? 1 : 0);
    for (std::size_t i = 0; framed && i < replies.size(); ++i) {
      framed = rest.substr(0, replies[i].size()) == replies[i]
               && rest.size() > replies[i].size()
               && rest[replies[i].size()] == (i + 1 < replies.size() ? ',' : ']');
      rest.remove_prefix(framed ? replies[i].size() + 1 : 0);
    }
    FUZZ_CHECK(framed && rest.empty(), batch);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = fuzz::bytes(data, size);
  auto mode = fuzz::take_byte(in);
  if (mode & 1) {
    // stdio: one frame per line (the edge splits at '\n').
    for (const auto& line : fuzz::split(in, '\n'))
      check_frame(mcp::decode(line));
  } else {
    // An HTTP body: the whole rest is one frame.
    check_frame(mcp::decode(in));
  }
  return 0;
}
