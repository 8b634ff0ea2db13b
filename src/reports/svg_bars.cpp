// A horizontal bar chart of durations as SVG: time_stats in the MCP App
// (docs/app.md), drawn like the timeline (svg_timeline.cpp): a label line
// above each bar, focusable bars with a title and an accessible name, all
// user text escaped, colours from the page's CSS.

#include "reports/report.hpp"
#include "reports/report_text.hpp"

#include <algorithm>

namespace ttm::reports {

namespace {

constexpr int width = 480;
constexpr int x0 = 8;
constexpr int chart_width = width - 2 * x0;
constexpr int top = 26;
constexpr int row_height = 32;
constexpr int bar_offset = 15;
constexpr int bar_height = 12;
constexpr std::size_t label_max = 64;
/// More rows than a view can show usefully: the rest are counted.
constexpr std::size_t max_bars = 40;

} // namespace

std::string render_svg_bars(const std::string& title,
                            const std::vector<svg_bar>& bars,
                            const svg_options& o) {
  using text::esc;
  using text::px;
  std::size_t shown = std::min(bars.size(), max_bars);
  long long longest = 1;
  for (std::size_t k = 0; k < shown; ++k)
    longest = std::max<long long>(longest, bars[k].value.count());
  int rows_bottom = top + static_cast<int>(shown) * row_height;
  int height = rows_bottom + (shown < bars.size() || bars.empty() ? 20 : 4);
  auto wide = std::to_string(width);
  auto high = std::to_string(height);
  std::string s = "<svg class=\"bars\"";
  if (o.standalone)
    s += " xmlns=\"http://www.w3.org/2000/svg\"";
  s += " width=\"" + wide + "\" height=\"" + high + "\" viewBox=\"0 0 "
       + wide + " " + high + "\" role=\"group\" aria-label=\"" + esc(title)
       + "\">\n";
  s += "<text class=\"heading\" x=\"" + std::to_string(x0)
       + "\" y=\"14\">" + esc(title) + "</text>\n";
  for (std::size_t k = 0; k < shown; ++k) {
    const auto& b = bars[k];
    int y = top + static_cast<int>(k) * row_height;
    auto value = text::compact_duration(b.value);
    s += "<text class=\"label\" x=\"" + std::to_string(x0) + "\" y=\""
         + std::to_string(y + 11) + "\">"
         + esc(text::shorten(b.label.empty() ? "(none)" : b.label,
                             label_max))
         + " \xC2\xB7 " + value + "</text>";
    double w = std::max(2.0, static_cast<double>(b.value.count()) / longest
                               * chart_width);
    auto summary = esc((b.label.empty() ? "(none)" : b.label) + ": " + value
                       + (b.detail.empty() ? "" : ", " + b.detail));
    s += "<rect class=\"bar stat\" tabindex=\"0\" aria-label=\"" + summary
         + "\" x=\"" + std::to_string(x0) + "\" y=\""
         + std::to_string(y + bar_offset) + "\" width=\"" + px(w)
         + "\" height=\"" + std::to_string(bar_height)
         + "\" rx=\"3\"><title>" + summary + "</title></rect>\n";
  }
  if (bars.empty())
    s += "<text class=\"caption\" x=\"" + std::to_string(x0) + "\" y=\""
         + std::to_string(rows_bottom + 12) + "\">No sessions in this range."
           "</text>\n";
  if (shown < bars.size())
    s += "<text class=\"caption\" x=\"" + std::to_string(x0) + "\" y=\""
         + std::to_string(rows_bottom + 12) + "\">and "
         + std::to_string(bars.size() - shown) + " more</text>\n";
  s += "</svg>\n";
  return s;
}

} // namespace ttm::reports
