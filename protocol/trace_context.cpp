#include "protocol/trace_context.hpp"

#include <array>
#include <random>

namespace ttm::protocol {

namespace {

bool is_lower_hex(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/// `n` lowercase hex digits, not all zeros when `nonzero`.
bool hex_field(std::string_view s, bool nonzero) noexcept {
  bool any = false;
  for (char c : s) {
    if (!is_lower_hex(c))
      return false;
    any = any || c != '0';
  }
  return any || !nonzero;
}

bool is_tchar(char c) noexcept {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
      || (c >= 'A' && c <= 'Z'))
    return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*':
    case '+': case '-': case '.': case '^': case '_': case '`': case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

/// `tracestate` as it came, when it is printable ASCII of a sane length
/// (W3C: at most 32 members of up to 256 characters each); else dropped.
std::string clean_tracestate(std::string_view s) {
  if (s.size() > 512 * 8)
    return {};
  for (char c : s)
    if (c < 0x20 || c > 0x7e)
      return {};
  return std::string{s};
}

} // namespace

std::optional<traceparent> parse_traceparent(std::string_view text) noexcept {
  // 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
  if (text.size() != 55 || text[2] != '-' || text[35] != '-'
      || text[52] != '-')
    return std::nullopt;
  auto version = text.substr(0, 2);
  auto trace = text.substr(3, 32);
  auto parent = text.substr(36, 16);
  auto flags = text.substr(53, 2);
  if (version != "00" || !hex_field(trace, true) || !hex_field(parent, true)
      || !hex_field(flags, false))
    return std::nullopt;
  try {
    return traceparent{std::string{trace}, std::string{parent},
                       std::string{flags}};
  } catch (...) {
    return std::nullopt;
  }
}

bool valid_request_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > max_request_id_bytes)
    return false;
  for (char c : id)
    if (!is_tchar(c))
      return false;
  return true;
}

bool take_traceparent(trace_context& t, std::string_view traceparent,
                      std::string_view tracestate, id_origin origin) {
  auto tp = parse_traceparent(traceparent);
  if (!tp)
    return false;
  t.trace_id = std::move(tp->trace_id);
  t.parent_id = std::move(tp->parent_id);
  t.flags = std::move(tp->flags);
  t.tracestate = clean_tracestate(tracestate);
  if (t.origin == id_origin::none) {
    t.request_id = t.trace_id;
    t.origin = origin;
  }
  return true;
}

std::string_view to_string(id_origin o) noexcept {
  switch (o) {
    case id_origin::none:
      return "none";
    case id_origin::header:
      return "header";
    case id_origin::traceparent:
      return "traceparent";
    case id_origin::meta:
      return "meta";
    case id_origin::generated:
      return "generated";
  }
  return "none";
}

std::string random_request_id() {
  thread_local std::mt19937_64 gen{[] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
    return std::mt19937_64{seq};
  }()};
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int half = 0; half < 2; ++half) {
    auto v = gen();
    for (int i = 0; i < 16; ++i, v >>= 4)
      out[static_cast<std::size_t>(half * 16 + i)] = digits[v & 0xf];
  }
  return out;
}

trace_context from_headers(std::optional<std::string_view> request_id,
                           std::optional<std::string_view> tp,
                           std::optional<std::string_view> tracestate) {
  trace_context t;
  if (request_id && valid_request_id(*request_id)) {
    t.request_id = std::string{*request_id};
    t.origin = id_origin::header;
  }
  if (tp)
    take_traceparent(t, *tp, tracestate.value_or(std::string_view{}),
                     id_origin::traceparent);
  return t;
}

void ensure_id(trace_context& t, const id_source& ids) {
  if (!t.request_id.empty())
    return;
  t.request_id = ids ? ids() : random_request_id();
  t.origin = id_origin::generated;
}

} // namespace ttm::protocol
