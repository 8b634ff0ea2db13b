// The report renderers (src/reports) with hostile names: every piece of
// user text in the model (milestone, task ids and names, metadata, tags,
// notes, corrections, the audit trail's tool and client) comes from the
// input, one field per line, reused round-robin. Seeds carry `|`, `:`, `#`,
// `%%`, `<script>`, bidi and zero-width characters. Checked beyond "no
// crash", cheaply:
//  - Mermaid (render_mermaid_gantt): the lines its gantt grammar expects,
//    no label that its lexer would read as syntax or as a keyword (after
//    the whitespace the lexer skips);
//  - HTML (and the MCP App's SVG timeline and bar chart): no `<script`,
//    only the elements the renderer writes, every element closed in order,
//    every `&` an entity;
//  - Markdown: every row of a table has its header's number of cells, no
//    `<script`;
//  - JSON: parses.

#include "fuzz_check.hpp"

#include <date/date.h>

#include "reports/report.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>

namespace {

using namespace ttm;
using namespace std::chrono;

char lower_char(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// Whether `s` starts with `word`, ASCII letters in any case.
FUZZ_ORACLE bool istarts_with(std::string_view s, std::string_view word) {
  if (s.size() < word.size())
    return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (lower_char(s[i]) != lower_char(word[i]))
      return false;
  return true;
}

/// `a` and `b` equal, ASCII letters in any case.
FUZZ_ORACLE bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && istarts_with(a, b);
}

/// `<script` in any case (no lower-cased copy of the page).
FUZZ_ORACLE bool contains_script(std::string_view s) {
  for (auto at = s.find('<'); at != std::string_view::npos;
       at = s.find('<', at + 1))
    if (istarts_with(s.substr(at + 1), "script"))
      return true;
  return false;
}

/// The length of the JavaScript whitespace (`\s`) at the start of `s`: what
/// Mermaid's lexer skips before it tries its keywords.
FUZZ_ORACLE std::size_t js_space(std::string_view s) {
  static constexpr std::string_view spaces[] = {
    " ", "\t", "\v", "\f", "\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\x80",
    "\xE2\x80\x81", "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84",
    "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88",
    "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9",
    "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF"};
  std::size_t at = 0;
  for (bool more = true; more;) {
    more = false;
    for (auto sp : spaces)
      if (s.substr(at, sp.size()) == sp) {
        at += sp.size();
        more = true;
      }
  }
  return at;
}

FUZZ_ORACLE void check_mermaid(const std::string& g) {
  auto lines = fuzz::split_views(g, '\n');
  FUZZ_CHECK(lines.front() == "gantt", g);
  FUZZ_CHECK(lines.back().empty(), g);
  static constexpr std::string_view keywords[] = {
    "title", "section", "dateformat", "axisformat", "tickinterval",
    "excludes", "includes", "todaymarker", "weekday", "weekend",
    "inclusiveenddates", "topaxis", "acctitle", "accdescr", "click",
    "displaymode", "gantt"};
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    std::string_view l = lines[i];
    FUZZ_CHECK(l.substr(0, 4) == "    ", l);
    l.remove_prefix(4);
    FUZZ_CHECK(l.find_first_of("\r;#%<>") == std::string_view::npos
                 || l == "axisFormat %H:%M:%S",
               l);
    if (i == 1) {
      FUZZ_CHECK(l.substr(0, 15) == "title Milestone", l);
      FUZZ_CHECK(l.find(':') == std::string_view::npos, l);
      continue;
    }
    if (l == "dateFormat YYYY-MM-DD HH:mm:ss" || l == "axisFormat %H:%M:%S")
      continue;
    if (l.substr(0, 8) == "section ") {
      FUZZ_CHECK(l.find(':') == std::string_view::npos, l);
      continue;
    }
    // A task: its label up to the first ':', then the bar's data.
    auto colon = l.find(':');
    FUZZ_CHECK(colon != std::string_view::npos && colon > 0, l);
    auto label = l.substr(0, colon);
    auto bare = label.substr(js_space(label));
    FUZZ_CHECK(!bare.empty(), l);
    for (auto k : keywords)
      FUZZ_CHECK(!istarts_with(bare, k),
                 "a task label read as '" + std::string{k} + "': " + g);
    auto rest = l.substr(colon + 1);
    FUZZ_CHECK(rest.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_, :-")
                 == std::string_view::npos,
               l);
  }
}

FUZZ_ORACLE void check_html(const std::string& h) {
  FUZZ_CHECK(!contains_script(h), h);
  static constexpr std::string_view known[] = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p",
    "dl", "dt", "dd", "ul", "li", "table", "thead", "tbody", "tr", "th", "td",
    "strong", "span", "i", "svg", "rect", "line", "text", "br"};
  static constexpr std::string_view empty_elements[] = {"meta", "br"};
  std::vector<std::string_view> open; // element names as written
  std::size_t k = 0;
  while (k < h.size()) {
    char c = h[k];
    if (c == '&') {
      auto semi = h.find(';', k);
      FUZZ_CHECK(semi != std::string::npos && semi - k <= 8, h.substr(k, 16));
      auto ent = std::string_view{h}.substr(k + 1, semi - k - 1);
      FUZZ_CHECK(!ent.empty()
                   && std::all_of(ent.begin(), ent.end(),
                                  [](char x) {
                                    return std::isalnum(
                                             static_cast<unsigned char>(x))
                                           || x == '#';
                                  }),
                 h.substr(k, 16));
      k = semi + 1;
      continue;
    }
    if (c == '>')
      FUZZ_CHECK(false, "a bare '>' in text at " + std::to_string(k));
    if (c != '<') {
      ++k;
      continue;
    }
    if (h.compare(k, 9, "<!DOCTYPE") == 0 || h.compare(k, 9, "<!doctype") == 0) {
      k = h.find('>', k) + 1;
      continue;
    }
    auto end = k + 1;
    bool closing = end < h.size() && h[end] == '/';
    if (closing)
      ++end;
    auto name_end = end;
    while (name_end < h.size() && std::isalnum(static_cast<unsigned char>(h[name_end])))
      ++name_end;
    std::string_view name{h.data() + end, name_end - end};
    auto is_name = [&](std::string_view w) { return iequals(name, w); };
    FUZZ_CHECK(std::any_of(std::begin(known), std::end(known), is_name),
               "element <" + std::string{name} + "> at " + std::to_string(k));
    // Attributes: quoted values only, up to the tag's '>'.
    auto p = name_end;
    char quote = 0;
    for (; p < h.size(); ++p) {
      if (quote) {
        FUZZ_CHECK(h[p] != '<', "'<' in an attribute value");
        if (h[p] == quote)
          quote = 0;
      } else if (h[p] == '"' || h[p] == '\'') {
        quote = h[p];
      } else if (h[p] == '>') {
        break;
      } else {
        FUZZ_CHECK(h[p] != '<', "'<' inside a tag");
      }
    }
    FUZZ_CHECK(p < h.size(), "an unterminated tag <" + std::string{name});
    bool self_closed = h[p - 1] == '/';
    k = p + 1;
    if (closing) {
      FUZZ_CHECK(!open.empty() && iequals(open.back(), name),
                 "</" + std::string{name} + "> closes <"
                   + std::string{open.empty() ? "" : open.back()} + ">");
      open.pop_back();
    } else if (!self_closed
               && std::none_of(std::begin(empty_elements),
                               std::end(empty_elements), is_name)) {
      open.push_back(name);
      if (is_name("style")) { // CSS: raw text up to </style>
        auto close = h.find("</style>", k);
        FUZZ_CHECK(close != std::string::npos, "unclosed <style>");
        k = close;
      }
    }
  }
  FUZZ_CHECK(open.empty(),
             "unclosed <" + std::string{open.empty() ? "" : open.back()} + ">");
}

/// The unescaped '|' of a Markdown table row.
FUZZ_ORACLE std::size_t cells(std::string_view l) {
  std::size_t n = 0;
  for (std::size_t k = 0; k < l.size(); ++k) {
    if (l[k] == '\\')
      ++k;
    else if (l[k] == '|')
      ++n;
  }
  return n;
}

FUZZ_ORACLE void check_markdown(const std::string& md) {
  FUZZ_CHECK(!contains_script(md), md);
  std::size_t header = 0;
  for (auto l : fuzz::split_views(md, '\n')) {
    if (l.empty() || l.front() != '|') {
      header = 0;
      continue;
    }
    if (header == 0)
      header = cells(l);
    else
      FUZZ_CHECK(cells(l) == header, "a table row of " + std::to_string(cells(l))
                                       + " cells' bars, not "
                                       + std::to_string(header) + ": "
                                       + std::string{l});
  }
}

/// Whether `text` parses: its pool in a static buffer, where a Document's
/// own first chunk is 64 KiB of fresh heap per input under ASan.
FUZZ_ORACLE bool is_json(const std::string& text) {
  static char buffer[1 << 16];
  rapidjson::MemoryPoolAllocator<> pool{buffer, sizeof buffer};
  rapidjson::Document d{&pool};
  d.Parse(text.c_str(), text.size());
  return !d.HasParseError();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = fuzz::bytes(data, size);
  auto opts = fuzz::take_byte(in);
  auto fields = fuzz::split(in, '\n');
  std::size_t next = 0;
  auto text = [&] { return fields[next++ % fields.size()]; };

  reports::report_model m;
  const domain::wall_time t0{date::sys_days{date::year{2026} / 3 / 29} + hours{0}};
  m.session_id = "0190a3f4-1111-7000-8000-000000000001";
  m.milestone_id = text();
  if (opts & 1)
    m.milestone_name = text();
  m.ended = opts & 2;
  m.start = t0;
  m.end = t0 + hours{3};
  m.total = hours{3};
  m.metadata = {{text(), text()}};
  m.tags = {text(), text()};
  std::size_t runs = 1 + (opts >> 2) % 4;
  for (std::size_t i = 0; i < runs; ++i) {
    reports::report_run r;
    r.task_id = (i > 0 && (opts & 0x40)) ? m.runs.back().task_id : text();
    r.run = (i > 0 && (opts & 0x40)) ? m.runs.back().run + 1 : 1;
    if (opts & 0x10)
      r.task_name = text();
    if (opts & 0x20)
      r.external_task_id = text();
    r.ordinal = i;
    r.status = static_cast<domain::run_status>((opts + i) % 5);
    r.start = t0 + minutes{20 * i};
    r.end = r.start + minutes{15};
    r.running = r.status == domain::run_status::in_progress;
    r.duration = minutes{15};
    r.offset_start = minutes{20 * i};
    r.offset_end = r.offset_start + minutes{15};
    r.active = {{minutes{0}, minutes{5}}, {minutes{8}, minutes{15}}};
    r.metadata = {{text(), text()}};
    r.completion_metadata = {{text(), text()}};
    r.pauses = 1;
    r.paused = minutes{3};
    r.pause_list = {{r.start + minutes{5}, r.start + minutes{8}, minutes{3}}};
    r.notes = {{r.start + minutes{1}, text()}};
    r.corrections = {{r.start + minutes{2}, text(), r.start, r.end,
                      domain::run_status::in_progress}};
    m.runs.push_back(std::move(r));
    m.changes.push_back({t0 + minutes{20 * i}, "task_started",
                         m.runs.back().task_id, 0, "", text(), text(),
                         (opts & 0x80) != 0});
  }
  m.not_started = {text()};
  m.estimates = {{text(), minutes{10}, minutes{15}, "completed"}};
  m.task_count = runs + 1;

  check_mermaid(reports::render_mermaid_gantt(m));
  check_html(reports::render_html(m, {}));
  // The MCP App's pictures (docs/app.md): the same checks.
  check_html(reports::render_svg_timeline(m, {true}));
  check_html(reports::render_svg_bars(
    text(), {{text(), minutes{5}, text()}, {text(), minutes{0}, text()}},
    {true}));
  check_markdown(reports::render_markdown(m, {}));
  auto json = reports::render_json(m);
  FUZZ_CHECK(is_json(json), json);
  (void)reports::render_csv(m);
  return 0;
}
