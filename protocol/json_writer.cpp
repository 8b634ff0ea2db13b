#include "protocol/json_writer.hpp"

#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ttm::protocol {

namespace {

// 0: as is; otherwise the character after the backslash ('u': \u00XX).
constexpr char escape_of(unsigned char c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default: return c < 0x20 ? 'u' : 0;
  }
}

struct escape_table {
  char of[256];
  constexpr escape_table() : of{} {
    for (int c = 0; c < 256; ++c)
      of[c] = escape_of(static_cast<unsigned char>(c));
  }
};

constexpr escape_table table;

// Room write_body may store past the end.
constexpr std::size_t slack = 16;

// Bytes append_json_string adds beyond the two quotes and the input: one
// for a backslash escape, five for \u00XX. A table, so counting has no
// branch per byte.
struct extra_table {
  unsigned char of[256];
  constexpr extra_table() : of{} {
    for (int c = 0; c < 256; ++c) {
      char e = escape_of(static_cast<unsigned char>(c));
      of[c] = e == 0 ? 0 : (e == 'u' ? 5 : 1);
    }
  }
};

constexpr extra_table extra;

// Writes one escaped byte; returns the end.
char* write_escape(char* dst, unsigned char c) {
  static constexpr char hex[] = "0123456789ABCDEF";
  char e = table.of[c];
  *dst++ = '\\';
  *dst++ = e;
  if (e == 'u') {
    *dst++ = '0';
    *dst++ = '0';
    *dst++ = hex[c >> 4];
    *dst++ = hex[c & 0xF];
  }
  return dst;
}

#ifdef __SSE2__
// Masks of the bytes in `v` that need an escape ('"', '\\', < 0x20) and of
// those that are control characters (escaped as \u00XX or \n...).
struct escape_masks {
  unsigned any;
  unsigned ctrl;
  __m128i hits; // 0xFF per byte that needs an escape
};

escape_masks escapes_in(__m128i v) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  // Unsigned v < 0x20 <=> max(v, 0x20) != v.
  __m128i printable = _mm_cmpeq_epi8(_mm_max_epu8(v, space), v);
  __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                             _mm_cmpeq_epi8(v, backslash));
  hit = _mm_or_si128(hit, _mm_andnot_si128(printable, _mm_set1_epi8(-1)));
  unsigned ctrl = ~static_cast<unsigned>(_mm_movemask_epi8(printable)) & 0xFFFF;
  return {static_cast<unsigned>(_mm_movemask_epi8(hit)), ctrl, hit};
}
#endif

// Writes the escaped body of `s` to `dst`, which has room for
// json_string_length(s) - 2 + 16 bytes (whole 16-byte stores may run past
// the end); returns the end.
char* write_body(char* dst, std::string_view s) {
  auto p = reinterpret_cast<const unsigned char*>(s.data());
  auto end = p + s.size();
#ifdef __SSE2__
  // Structured JSON has a quote every few bytes: find each with one
  // 16-byte compare and store the bytes before it in one go.
  // Every escape in a 16-byte block is handled from one mask; the bytes
  // before each are moved with one 16-byte load and store (the source has
  // 32 bytes left, the destination its slack).
  while (end - p >= 32) {
    auto m = escapes_in(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    unsigned mask = m.any;
    unsigned pos = 0;
    while (mask != 0) {
      auto i = static_cast<unsigned>(__builtin_ctz(mask));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos)));
      dst += i - pos;
      if (m.ctrl == 0) {
        // '"' or '\\': a backslash goes before it, and the byte itself is
        // copied with what follows.
        *dst++ = '\\';
        pos = i;
      } else {
        dst = write_escape(dst, p[i]);
        pos = i + 1;
      }
      mask &= mask - 1;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos)));
    dst += 16 - pos;
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    if (table.of[*p] == 0)
      *dst++ = static_cast<char>(*p);
    else
      dst = write_escape(dst, *p);
  }
  return dst;
}

// Whether any byte of `s` needs an escape; no branch per byte.
bool needs_escape(std::string_view s) {
  auto p = reinterpret_cast<const unsigned char*>(s.data());
  auto end = p + s.size();
#ifdef __SSE2__
  for (; end - p >= 16; p += 16)
    if (escapes_in(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))).any
        != 0)
      return true;
#endif
  unsigned char any = 0;
  for (; p < end; ++p)
    any |= extra.of[*p];
  return any != 0;
}

} // namespace

std::size_t json_string_length(std::string_view s) {
  std::size_t n = s.size() + 2;
  auto p = reinterpret_cast<const unsigned char*>(s.data());
  auto end = p + s.size();
#ifdef __SSE2__
  // Sums of 0/1 bytes per 8-byte half (psadbw): no popcnt in baseline x86-64.
  __m128i sums = _mm_setzero_si128();
  const __m128i one = _mm_set1_epi8(1);
  for (; end - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    auto m = escapes_in(v);
    if (m.any == 0)
      continue;
    sums = _mm_add_epi64(sums, _mm_sad_epu8(_mm_and_si128(m.hits, one),
                                            _mm_setzero_si128()));
    if (m.ctrl != 0) // \n is one byte more, \u00XX five: rare, so exact
      for (int i = 0; i < 16; ++i)
        n += (m.ctrl >> i & 1) != 0 ? extra.of[p[i]] - 1u : 0u;
  }
  n += static_cast<std::size_t>(_mm_cvtsi128_si64(sums))
       + static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
#endif
  for (; p < end; ++p)
    n += extra.of[*p];
  return n;
}

void append_json_string(std::string& out, std::string_view s) {
  auto at = out.size();
  auto n = json_string_length(s);
  out.resize(at + n + slack);
  char* dst = out.data() + at;
  *dst++ = '"';
  dst = write_body(dst, s);
  *dst = '"';
  out.resize(at + n);
}

bool json_writer::string(std::string_view s) {
  // Prefix writes the comma or colon and checks the nesting (asserts);
  // after it the value is raw bytes, as in Writer::RawValue.
  Prefix(rapidjson::kStringType);
  // Most values (timestamps, names, offsets) need no escape at all: one
  // check, one copy.
  if (!needs_escape(s)) {
    char* dst = os_->Push(s.size() + 2);
    *dst++ = '"';
    std::memcpy(dst, s.data(), s.size());
    dst[s.size()] = '"';
    return EndValue(true);
  }
  // A short string gets room for the worst case (six bytes per byte)
  // rather than a counting pass; a long one is counted exactly.
  auto room = s.size() <= 256 ? 2 + 6 * s.size() : json_string_length(s);
  char* start = os_->Push(room + slack);
  char* dst = start;
  *dst++ = '"';
  dst = write_body(dst, s);
  *dst++ = '"';
  os_->Pop(room + slack - static_cast<std::size_t>(dst - start));
  return EndValue(true);
}

bool json_writer::raw(std::string_view json, rapidjson::Type type) {
  // Writer::RawValue copies byte by byte; a tool's structuredContent is
  // kilobytes.
  Prefix(type);
  std::memcpy(os_->Push(json.size()), json.data(), json.size());
  return EndValue(true);
}

} // namespace ttm::protocol
