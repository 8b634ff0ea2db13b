// Unit tests for protocol/: JSON-RPC 2.0 framing (json_rpc.hpp) and the MCP
// revision / logging-level helpers (mcp.hpp).

#include "protocol/error_codes.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"

#include <catch2/catch.hpp>
#include "test_json.hpp"
#include <rapidjson/document.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using namespace ttm::protocol;

using ttm::test::parse;

namespace {

/// Decodes a frame that must hold exactly one message (not a batch).
message decode_single(const std::string& text) {
  INFO("frame: " << text);
  auto f = decode(text);
  REQUIRE(f.error_code == 0);
  REQUIRE_FALSE(f.batch);
  REQUIRE(f.messages.size() == 1);
  return f.messages.front();
}

/// `depth` nested objects: {"a":{"a":...{}...}}.
std::string nested_objects(int depth) {
  std::string out;
  for (int i = 1; i < depth; ++i)
    out += R"({"a":)";
  out += "{}";
  out.append(static_cast<size_t>(depth - 1), '}');
  return out;
}

std::string nested_arrays(int depth) {
  return std::string(static_cast<size_t>(depth), '[')
         + std::string(static_cast<size_t>(depth), ']');
}

void require_invalid_with_null_id(const message& m) {
  CHECK(m.kind == message::invalid);
  CHECK(m.id.kind == request_id::null);
  CHECK(m.id.json == "null");
  CHECK(m.id.json_or_null() == "null");
  CHECK(m.error_code == invalid_request);
  CHECK(m.error_code == -32600);
  CHECK_FALSE(m.error_message.empty());
}

std::string request_with_id(const std::string& id_json) {
  return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"method":"ping"})";
}

} // namespace

// -- error codes ---------------------------------------------------------------

TEST_CASE("protocol: error codes have the JSON-RPC 2.0 values") {
  CHECK(parse_error == -32700);
  CHECK(invalid_request == -32600);
  CHECK(method_not_found == -32601);
  CHECK(invalid_params == -32602);
  CHECK(internal_error == -32603);
}

// -- decode: frame-level errors ------------------------------------------------

TEST_CASE("protocol: decode reports parse errors for malformed JSON") {
  const std::vector<std::string> inputs{
    "not json",
    "",
    "   ",
    R"({"jsonrpc":"2.0","id":1,"method":"ping")",  // truncated
    R"({"jsonrpc":"2.0","id":1,"method":"pi)",     // truncated in a string
    "{} {}",                                       // trailing garbage
    R"({"jsonrpc":"2.0","method":"x"} x)",
    "[1,2",
    "{'a':1}",
    std::string{R"({"jsonrpc":"2.0","method":"a)"} + "\xff" + R"("})",
    std::string{R"({"jsonrpc":"2.0","id":")"} + "\xc3\x28" + R"(","method":"a"})",
  };
  for (const auto& text : inputs) {
    INFO("input: " << text);
    auto f = decode(text);
    CHECK(f.error_code == parse_error);
    CHECK(f.error_code == -32700);
    CHECK(f.messages.empty());
    CHECK(f.error_message.rfind("Parse error", 0) == 0);
  }
}

TEST_CASE("protocol: decode accepts valid UTF-8 inside strings") {
  auto m = decode_single(std::string{R"({"jsonrpc":"2.0","id":1,"method":")"}
                         + "caf\xc3\xa9 \xe2\x9c\x93" + R"("})");
  CHECK(m.kind == message::request);
  CHECK(m.method == "caf\xc3\xa9 \xe2\x9c\x93");
}

TEST_CASE("protocol: decode refuses nesting deeper than 128 levels") {
  SECTION("exactly 128 nested objects are accepted") {
    auto f = decode(nested_objects(128));
    CHECK(f.error_code == 0);
    REQUIRE(f.messages.size() == 1);
    // Parsed fine, but not a JSON-RPC message.
    CHECK(f.messages[0].kind == message::invalid);
  }
  SECTION("129 nested objects are a frame error") {
    auto f = decode(nested_objects(129));
    CHECK(f.error_code == invalid_request);
    CHECK(f.messages.empty());
    CHECK(f.error_message.find("128") != std::string::npos);
  }
  SECTION("exactly 128 nested arrays are accepted") {
    auto f = decode(nested_arrays(128));
    CHECK(f.error_code == 0);
    CHECK(f.batch);
  }
  SECTION("much deeper arrays are a frame error, not a crash") {
    auto f = decode(nested_arrays(100000));
    CHECK(f.error_code == invalid_request);
    CHECK(f.messages.empty());
  }
  SECTION("params nested 128 levels deep (message included) are refused") {
    auto text = R"({"jsonrpc":"2.0","id":1,"method":"m","params":)"
                + nested_objects(128) + "}";
    auto f = decode(text);
    CHECK(f.error_code == invalid_request);
  }
  SECTION("a notification nested too deep gets no reply: it is a "
          "malformed notification, logged, never answered") {
    auto text = R"({"jsonrpc":"2.0","method":"notifications/x","params":)"
                + nested_objects(200) + "}";
    auto f = decode(text);
    CHECK(f.error_code == 0);
    REQUIRE(f.messages.size() == 1);
    CHECK(f.messages[0].kind == message::malformed_notification);
    CHECK(f.messages[0].error_message.find("128") != std::string::npos);
  }
  SECTION("a response nested too deep is a response (never answered)") {
    for (std::string key : {"result", "error"}) {
      auto text = R"({"jsonrpc":"2.0","id":7,")" + key + R"(":)"
                  + nested_arrays(300) + "}";
      auto f = decode(text);
      CHECK(f.error_code == 0);
      REQUIRE(f.messages.size() == 1);
      CHECK(f.messages[0].kind == message::response);
      CHECK_FALSE(f.messages[0].error_message.empty());
    }
  }
  SECTION("only top-level keys decide: an id or a method deeper down, or "
          "in a string, does not count") {
    // A request (top-level id) stays a frame error with id null.
    auto request = R"({"params":{"method":"x"},"id":1,"method":"m","p":)"
                   + nested_objects(200) + "}";
    CHECK(decode(request).error_code == invalid_request);
    // "id" appears only below the top level and as a string value: a
    // notification.
    auto note = R"({"method":"m","x":"id","params":{"id":1,"q":)"
                + nested_objects(200) + "}}";
    auto f = decode(note);
    REQUIRE(f.messages.size() == 1);
    CHECK(f.messages[0].kind == message::malformed_notification);
    // Too deep, with neither method nor result/error: a frame error.
    CHECK(decode(R"({"jsonrpc":"2.0","x":)" + nested_objects(200) + "}")
            .error_code
          == invalid_request);
    // A deep batch stays a frame error.
    CHECK(decode(std::string{"["} + R"({"method":"m","params":)" + nested_objects(200)
                 + "}]")
            .error_code
          == invalid_request);
  }
  SECTION("brackets inside strings do not count") {
    std::string deep(500, '[');
    deep += std::string(500, '{');
    auto text = R"({"jsonrpc":"2.0","id":1,"method":")" + deep
                + R"(\"[[[[","params":{"k":")" + deep + R"("}})";
    auto m = decode_single(text);
    CHECK(m.kind == message::request);
    CHECK(m.method == deep + "\"[[[[");
  }
}

TEST_CASE("protocol: decode answers non-object top-level values as invalid") {
  for (std::string text : {"42", R"("s")", "null", "true", "false", "1.5"}) {
    INFO("input: " << text);
    auto f = decode(text);
    CHECK(f.error_code == 0);
    CHECK_FALSE(f.batch);
    REQUIRE(f.messages.size() == 1);
    require_invalid_with_null_id(f.messages[0]);
  }
}

TEST_CASE("protocol: decode refuses an empty batch as a frame error") {
  for (std::string text : {"[]", " [ ] "}) {
    auto f = decode(text);
    CHECK(f.error_code == invalid_request);
    CHECK(f.error_code == -32600);
    CHECK(f.messages.empty());
    CHECK_FALSE(f.error_message.empty());
  }
}

// -- decode: batches -------------------------------------------------------------

TEST_CASE("protocol: decode splits a batch into one message per element") {
  auto f = decode(R"([
    {"jsonrpc":"2.0","id":1,"method":"ping"},
    42,
    {"jsonrpc":"2.0","method":"notifications/initialized"},
    {"jsonrpc":"2.0","id":"r","result":{}},
    {"jsonrpc":"1.0","id":7,"method":"ping"},
    []
  ])");
  CHECK(f.error_code == 0);
  CHECK(f.batch);
  REQUIRE(f.messages.size() == 6);
  CHECK(f.messages[0].kind == message::request);
  CHECK(f.messages[0].id.json == "1");
  CHECK(f.messages[0].method == "ping");
  require_invalid_with_null_id(f.messages[1]);
  CHECK(f.messages[2].kind == message::notification);
  CHECK(f.messages[2].method == "notifications/initialized");
  CHECK(f.messages[3].kind == message::response);
  CHECK(f.messages[3].id.json == R"("r")");
  CHECK(f.messages[4].kind == message::invalid);
  CHECK(f.messages[4].id.json == "7");
  require_invalid_with_null_id(f.messages[5]);
}

TEST_CASE("protocol: decode of a one-element batch is still a batch") {
  auto f = decode(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  CHECK(f.batch);
  REQUIRE(f.messages.size() == 1);
  CHECK(f.messages[0].kind == message::request);
}

// -- decode: message classification -------------------------------------------

TEST_CASE("protocol: decode classifies requests, notifications, responses") {
  SECTION("request: method and id") {
    auto m = decode_single(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})");
    CHECK(m.kind == message::request);
    CHECK(m.id.kind == request_id::integer);
    CHECK(m.id.json == "3");
    CHECK(m.method == "tools/list");
    CHECK(m.params.empty());
    CHECK(m.error_code == 0);
  }
  SECTION("notification: method without id") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    CHECK(m.kind == message::notification);
    CHECK(m.id.kind == request_id::none);
    CHECK(m.id.json.empty());
    CHECK(m.id.json_or_null() == "null");
    CHECK(m.method == "notifications/initialized");
  }
  SECTION("response with result") {
    auto m = decode_single(R"({"jsonrpc":"2.0","id":"a","result":{"x":1}})");
    CHECK(m.kind == message::response);
    CHECK(m.id.kind == request_id::string);
    CHECK(m.id.json == R"("a")");
  }
  SECTION("response with error") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"x"}})");
    CHECK(m.kind == message::response);
    CHECK(m.id.json == "9");
  }
  SECTION("member order does not matter") {
    auto m = decode_single(R"({"method":"ping","id":5,"jsonrpc":"2.0"})");
    CHECK(m.kind == message::request);
    CHECK(m.id.json == "5");
  }
}

TEST_CASE("protocol: decode refuses a missing or wrong jsonrpc member") {
  for (std::string member : {"", R"("jsonrpc":"1.0",)", R"("jsonrpc":2.0,)",
                             R"("jsonrpc":null,)", R"("jsonrpc":"2.0 ",)",
                             R"("jsonrpc":["2.0"],)"}) {
    auto text = "{" + member + R"("id":12,"method":"ping"})";
    INFO("input: " << text);
    auto m = decode_single(text);
    CHECK(m.kind == message::invalid);
    CHECK(m.error_code == invalid_request);
    // The id could be read, so the error goes to it.
    CHECK(m.id.kind == request_id::integer);
    CHECK(m.id.json == "12");
    CHECK(m.error_message.find("jsonrpc") != std::string::npos);
  }
}

TEST_CASE("protocol: decode refuses a method that is not a string") {
  for (std::string method : {"1", "null", "true", "{}", R"(["ping"])"}) {
    auto text = R"({"jsonrpc":"2.0","id":"q","method":)" + method + "}";
    INFO("input: " << text);
    auto m = decode_single(text);
    CHECK(m.kind == message::invalid);
    CHECK(m.error_code == invalid_request);
    CHECK(m.id.json == R"("q")");
    CHECK(m.error_message.find("method") != std::string::npos);
  }
}

TEST_CASE("protocol: decode refuses params that are not an object or array") {
  for (std::string params : {"1", R"("x")", "null", "true"}) {
    auto text = R"({"jsonrpc":"2.0","id":4,"method":"m","params":)" + params
                + "}";
    INFO("input: " << text);
    auto m = decode_single(text);
    CHECK(m.kind == message::invalid);
    CHECK(m.error_code == invalid_request);
    CHECK(m.id.json == "4");
    CHECK(m.error_message.find("params") != std::string::npos);
  }
  SECTION("a notification with bad params stays unanswered") {
    auto m = decode_single(R"({"jsonrpc":"2.0","method":"m","params":3})");
    CHECK(m.kind == message::malformed_notification);
    CHECK(m.error_message.find("params") != std::string::npos);
  }
}

TEST_CASE("protocol: decode keeps params as JSON text") {
  SECTION("object") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2,{"b":null}],"c":"d"}})");
    CHECK(m.params == R"({"a":[1,2,{"b":null}],"c":"d"})");
  }
  SECTION("array") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","method":"m","params":[1,"two",true]})");
    CHECK(m.kind == message::notification);
    CHECK(m.params == R"([1,"two",true])");
  }
  SECTION("whitespace and escapes: the same JSON value") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","id":1,"method":"m","params": { "k" : "a\"b\u0041\\" , "n" : 1e2 } })");
    auto expected = parse(R"({"k":"a\"bA\\","n":100.0})");
    CHECK(parse(m.params) == expected);
  }
  SECTION("empty object") {
    auto m = decode_single(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{}})");
    CHECK(m.params == "{}");
  }
}

// -- decode: ids --------------------------------------------------------------

TEST_CASE("protocol: decode keeps string ids as JSON text") {
  SECTION("plain") {
    auto m = decode_single(request_with_id(R"("abc-123")"));
    CHECK(m.id.kind == request_id::string);
    CHECK(m.id.json == R"("abc-123")");
    CHECK(m.id.json_or_null() == R"("abc-123")");
  }
  SECTION("empty string") {
    auto m = decode_single(request_with_id(R"("")"));
    CHECK(m.id.kind == request_id::string);
    CHECK(m.id.json == R"("")");
  }
  SECTION("escapes survive with the same meaning") {
    const std::string id_json = R"("q\"uo\\te\n\u0041\u00e9\ud83d\ude00/")";
    auto m = decode_single(request_with_id(id_json));
    CHECK(m.id.kind == request_id::string);
    auto got = parse(m.id.json);
    auto want = parse(id_json);
    REQUIRE(got.IsString());
    CHECK(got == want);
    CHECK(std::string{got.GetString(), got.GetStringLength()}
          == "q\"uo\\te\nA\xc3\xa9\xf0\x9f\x98\x80/");
  }
  SECTION("a numeric-looking string stays a string") {
    auto m = decode_single(request_with_id(R"("42")"));
    CHECK(m.id.kind == request_id::string);
    CHECK(m.id.json == R"("42")");
  }
}

TEST_CASE("protocol: decode keeps integer ids exactly") {
  for (std::string id : {"0", "1", "-1", "2147483648", "4294967296",
                         "9223372036854775807", "-9223372036854775808",
                         "9223372036854775808", "18446744073709551615"}) {
    INFO("id: " << id);
    auto m = decode_single(request_with_id(id));
    CHECK(m.kind == message::request);
    CHECK(m.id.kind == request_id::integer);
    CHECK(m.id.json == id);
    CHECK(m.id.json_or_null() == id);
  }
}

TEST_CASE("protocol: decode refuses ids that are not strings or integers") {
  for (std::string id : {"1.5", "1.0", "1e3", "true", "false", "null", "{}",
                         R"({"a":1})", "[]", "[1]", "18446744073709551616",
                         "-9223372036854775809"}) {
    INFO("id: " << id);
    auto m = decode_single(request_with_id(id));
    require_invalid_with_null_id(m);
    CHECK(m.error_message.find("id") != std::string::npos);
  }
  SECTION("a response with a bad id is still a response: never answered") {
    auto m = decode_single(R"({"jsonrpc":"2.0","id":2.5,"result":{}})");
    CHECK(m.kind == message::response);
  }
}

TEST_CASE("protocol: decode refuses a message without method or result") {
  SECTION("id only") {
    auto m = decode_single(R"({"jsonrpc":"2.0","id":8})");
    CHECK(m.kind == message::invalid);
    CHECK(m.error_code == invalid_request);
    CHECK(m.id.json == "8");
  }
  SECTION("empty object") {
    auto m = decode_single("{}");
    CHECK(m.kind == message::invalid);
    CHECK(m.error_code == invalid_request);
    CHECK(m.id.json_or_null() == "null");
  }
  SECTION("jsonrpc only") {
    auto m = decode_single(R"({"jsonrpc":"2.0"})");
    CHECK(m.kind == message::invalid);
    CHECK(m.id.json_or_null() == "null");
  }
  SECTION("result or error without a usable id is still a response") {
    // Answering a response, even a malformed one, lets two peers answer each
    // other forever.
    for (std::string text :
         {R"({"jsonrpc":"2.0","result":{}})",
          R"({"jsonrpc":"2.0","error":{"code":1,"message":"m"}})",
          R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})",
          R"({"jsonrpc":"1.0","id":3,"result":{}})"}) {
      INFO("input: " << text);
      CHECK(decode_single(text).kind == message::response);
    }
  }
  SECTION("a method without an id is a notification, even when malformed") {
    for (std::string text :
         {R"({"jsonrpc":"2.0","method":7})",
          R"({"jsonrpc":"1.0","method":"notifications/initialized"})",
          R"({"method":"notifications/initialized"})"}) {
      INFO("input: " << text);
      CHECK(decode_single(text).kind == message::malformed_notification);
    }
  }
}

TEST_CASE("protocol: decode refuses NUL bytes and lone surrogates") {
  using namespace std::string_literals;
  for (std::string text :
       {R"({"jsonrpc":"2.0","id":"nul","method":"ping"})"s + '\0' + "junk",
        R"({"jsonrpc":"2.0","id":"a)"s + '\0' + R"(b","method":"ping"})",
        R"({"jsonrpc":"2.0","id":"\udc00x","method":"ping"})"s,
        R"({"jsonrpc":"2.0","id":"\ud800","method":"ping"})"s,
        R"({"jsonrpc":"2.0","id":"\ud800\u0041","method":"ping"})"s,
        R"({"jsonrpc":"2.0","id":"x","method":"ping","params":{"\uDFFF":1}})"s}) {
    INFO("input: " << text);
    auto f = decode(text);
    CHECK(f.error_code == parse_error);
    CHECK(f.messages.empty());
  }
  SECTION("a surrogate pair and escaped backslashes are fine") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","id":"\ud83d\ude00","method":"ping"})");
    CHECK(m.kind == message::request);
    CHECK(m.id.json == "\"\xF0\x9F\x98\x80\"");
    auto n = decode_single(R"({"jsonrpc":"2.0","id":"\\udc00","method":"p"})");
    CHECK(n.kind == message::request);
  }
}

TEST_CASE("protocol: request_id helpers") {
  request_id none;
  CHECK(none.kind == request_id::none);
  CHECK(none.json.empty());
  CHECK(none.json_or_null() == "null");
  auto null = request_id::make_null();
  CHECK(null.kind == request_id::null);
  CHECK(null.json == "null");
  CHECK(null.json_or_null() == "null");
  CHECK_FALSE(none == null);
  request_id a{request_id::integer, "1"};
  request_id b{request_id::string, R"("1")"};
  CHECK_FALSE(a == b);
  CHECK(a == request_id{request_id::integer, "1"});
}

// -- encoding -----------------------------------------------------------------

TEST_CASE("protocol: encode_result writes the exact JSON text") {
  CHECK(encode_result({request_id::integer, "1"}, "{}")
        == R"({"jsonrpc":"2.0","id":1,"result":{}})");
  CHECK(encode_result({request_id::string, R"("a\"b")"}, R"({"x":[1,2]})")
        == R"({"jsonrpc":"2.0","id":"a\"b","result":{"x":[1,2]}})");
  CHECK(encode_result({request_id::integer, "18446744073709551615"}, "{}")
        == R"({"jsonrpc":"2.0","id":18446744073709551615,"result":{}})");
  CHECK(encode_result(request_id{}, "{}")
        == R"({"jsonrpc":"2.0","id":null,"result":{}})");
  CHECK(encode_result(request_id::make_null(), "{}")
        == R"({"jsonrpc":"2.0","id":null,"result":{}})");
}

TEST_CASE("protocol: encode_error writes the exact JSON text") {
  SECTION("without data") {
    CHECK(encode_error({request_id::integer, "7"}, method_not_found,
                       "Method not found: 'x'")
          == R"({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found: 'x'"}})");
  }
  SECTION("with data") {
    CHECK(encode_error({request_id::string, R"("s")"}, invalid_params, "bad",
                       R"({"field":"format"})")
          == R"({"jsonrpc":"2.0","id":"s","error":{"code":-32602,"message":"bad","data":{"field":"format"}}})");
  }
  SECTION("the message is quoted and escaped") {
    CHECK(encode_error(request_id::make_null(), parse_error,
                       "say \"hi\"\\\n")
          == R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"say \"hi\"\\\n"}})");
  }
  SECTION("a none id is written as null") {
    CHECK(encode_error(request_id{}, internal_error, "m")
          == R"({"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"m"}})");
  }
}

TEST_CASE("protocol: encode_notification and encode_batch") {
  CHECK(encode_notification("notifications/message",
                            R"({"level":"info","data":"x"})")
        == R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}})");
  CHECK(encode_notification("a\"b", "{}")
        == R"({"jsonrpc":"2.0","method":"a\"b","params":{}})");
  CHECK(encode_batch({}) == "[]");
  CHECK(encode_batch({R"({"a":1})"}) == R"([{"a":1}])");
  CHECK(encode_batch({R"({"a":1})", R"({"b":2})", "3"})
        == R"([{"a":1},{"b":2},3])");
}

TEST_CASE("protocol: json_quote escapes quotes, backslashes and controls") {
  CHECK(json_quote("") == R"("")");
  CHECK(json_quote("plain text") == R"("plain text")");
  CHECK(json_quote("a\"b") == R"("a\"b")");
  CHECK(json_quote("a\\b") == R"("a\\b")");
  CHECK(json_quote("\n\r\t\b\f") == R"("\n\r\t\b\f")");
  CHECK(json_quote(std::string_view{"a\0b", 3}) == R"("a\u0000b")");
  CHECK(json_quote("\x01\x1f") == R"("\u0001\u001F")");
  CHECK(json_quote("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  SECTION("every control character round-trips through a JSON parser") {
    std::string all;
    for (int c = 0; c < 0x20; ++c)
      all += static_cast<char>(c);
    all += "\"\\/\x7f";
    auto quoted = json_quote(all);
    for (char c : quoted)
      CHECK(static_cast<unsigned char>(c) >= 0x20);
    auto doc = parse(quoted);
    REQUIRE(doc.IsString());
    CHECK(std::string{doc.GetString(), doc.GetStringLength()} == all);
  }
}

TEST_CASE("protocol: encoded messages decode back to what was encoded") {
  auto id = decode_single(request_with_id("-9223372036854775808")).id;
  auto reply = encode_result(id, "{}");
  auto m = decode_single(reply);
  CHECK(m.kind == message::response);
  CHECK(m.id == id);
  auto n = decode_single(encode_notification("x/y", R"({"k":[1]})"));
  CHECK(n.kind == message::notification);
  CHECK(n.method == "x/y");
  CHECK(n.params == R"({"k":[1]})");
}

// -- cancellation -------------------------------------------------------------

TEST_CASE("protocol: cancelled_request_id spells ids like request_id::json") {
  auto cancel = [](const std::string& id_json) {
    return decode_single(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)"
      + id_json + R"(,"reason":"user"}})");
  };
  for (std::string id : {"0", "42", "-7", "9223372036854775807",
                         "-9223372036854775808", "18446744073709551615",
                         R"("abc")", R"("")", R"("a\"b\\c")",
                         R"("\u0041\u00e9")", R"("x y")"}) {
    INFO("id: " << id);
    auto request = decode_single(request_with_id(id));
    auto got = cancelled_request_id(cancel(id));
    CHECK_FALSE(got.empty());
    CHECK(got == request.id.json);
  }
}

TEST_CASE("protocol: cancelled_request_id is empty when not applicable") {
  SECTION("another method") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":1}})");
    CHECK(cancelled_request_id(m).empty());
  }
  SECTION("a request, not a notification") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","id":2,"method":"notifications/cancelled","params":{"requestId":1}})");
    CHECK(cancelled_request_id(m).empty());
  }
  SECTION("no params") {
    auto m
      = decode_single(R"({"jsonrpc":"2.0","method":"notifications/cancelled"})");
    CHECK(cancelled_request_id(m).empty());
  }
  SECTION("params is an array") {
    auto m = decode_single(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]})");
    CHECK(cancelled_request_id(m).empty());
  }
  SECTION("missing or invalid requestId") {
    for (std::string params :
         {R"({})", R"({"reason":"x"})", R"({"requestId":1.5})",
          R"({"requestId":null})", R"({"requestId":true})",
          R"({"requestId":{}})", R"({"requestId":[1]})",
          R"({"requestId":18446744073709551616})"}) {
      INFO("params: " << params);
      auto m = decode_single(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":)"
        + params + "}");
      CHECK(cancelled_request_id(m).empty());
    }
  }
  SECTION("an invalid message") {
    message m;
    m.kind = message::invalid;
    m.method = "notifications/cancelled";
    m.params = R"({"requestId":1})";
    CHECK(cancelled_request_id(m).empty());
  }
}

// -- mcp.hpp ------------------------------------------------------------------

TEST_CASE("protocol: negotiate_revision echoes supported revisions") {
  CHECK(supported_revisions.size() == 3);
  CHECK(latest_revision == "2025-11-25");
  for (std::string_view r : {"2025-03-26", "2025-06-18", "2025-11-25"}) {
    CHECK(is_supported_revision(r));
    CHECK(negotiate_revision(r) == r);
  }
  for (std::string_view r :
       {"1999-01-01", "", "2024-11-05", "2025-11-25 ", "2026-01-01",
        "2025-06-1"}) {
    INFO("requested: " << r);
    CHECK_FALSE(is_supported_revision(r));
    CHECK(negotiate_revision(r) == "2025-11-25");
  }
}

TEST_CASE("protocol: negotiate_revision never points into the caller's buffer") {
  SECTION("a buffer overwritten afterwards") {
    std::string requested = "2025-06-18";
    auto answer = negotiate_revision(requested);
    const char* begin = requested.data();
    const char* end = begin + requested.size();
    CHECK_FALSE((answer.data() >= begin && answer.data() < end));
    requested.assign("XXXX-XX-XX");
    CHECK(answer == "2025-06-18");
  }
  SECTION("a temporary that is gone") {
    std::string_view answer = negotiate_revision(std::string{"2025-03-26"});
    std::string filler(64, 'Z'); // likely to reuse the temporary's memory
    CHECK(answer == "2025-03-26");
    CHECK(filler.size() == 64);
  }
  SECTION("the answer is one of the static spellings") {
    std::string requested = "2025-11-25";
    auto answer = negotiate_revision(requested);
    bool is_static = false;
    for (auto r : supported_revisions)
      is_static = is_static || answer.data() == r.data();
    CHECK(is_static);
  }
}

TEST_CASE("protocol: parse_log_level knows the 8 MCP levels") {
  const std::vector<std::pair<std::string_view, log_level>> levels{
    {"debug", log_level::debug},         {"info", log_level::info},
    {"notice", log_level::notice},       {"warning", log_level::warning},
    {"error", log_level::error},         {"critical", log_level::critical},
    {"alert", log_level::alert},         {"emergency", log_level::emergency},
  };
  for (const auto& [name, level] : levels) {
    INFO("level: " << name);
    auto parsed = parse_log_level(name);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == level);
    CHECK(to_string(level) == name);
    CHECK(log_level_names.find(name) != std::string_view::npos);
  }
  // Least severe first.
  for (size_t i = 1; i < levels.size(); ++i)
    CHECK(levels[i - 1].second < levels[i].second);
  for (std::string_view bad :
       {"verbose", "DEBUG", "Debug", "", "debug ", "warn", "fatal", "trace"}) {
    INFO("level: " << bad);
    CHECK_FALSE(parse_log_level(bad).has_value());
  }
}
