#include "output/table_cells.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace dsx {

namespace {

constexpr std::string_view kNbsp = "\xC2\xA0";

bool digit(char c) { return c >= '0' && c <= '9'; }

// A word that starts a number: "12", "+0.5", "-3.1", "[0.120,", "(1.5".
bool number_word(std::string_view w) {
  while (!w.empty() && (w.front() == '[' || w.front() == '(')) w.remove_prefix(1);
  if (!w.empty() && (w.front() == '+' || w.front() == '-')) w.remove_prefix(1);
  if (!w.empty() && w.front() == '.') w.remove_prefix(1);
  return !w.empty() && digit(w.front());
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// The columns whose cells are prose: their header's text.
bool prose_header(std::string_view text) { return text == "source" || text == "explanation"; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string keep_value_whole(std::string_view cell) {
  const std::vector<std::string_view> w = words(cell);
  if (w.size() < 2 || cell.size() > 48 || !number_word(w.front())) return std::string(cell);
  std::size_t numbers = 0;
  for (std::string_view x : w) {
    numbers += number_word(x) ? 1 : 0;
    // A word of prose (longer than a unit or a connective) makes the cell text.
    if (!number_word(x) && x.size() > 6) return std::string(cell);
  }
  if (numbers > 2) return std::string(cell);
  std::string out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (i > 0) out += kNbsp;
    out += w[i];
  }
  // Keep the cell's own padding.
  const std::size_t lead = cell.find_first_not_of(' ');
  const std::size_t tail = cell.size() - 1 - cell.find_last_not_of(' ');
  return std::string(lead, ' ') + out + std::string(tail, ' ');
}

std::string keep_table_values_whole(std::string_view markdown) {
  std::string out;
  out.reserve(markdown.size() + markdown.size() / 16);
  std::size_t pos = 0;
  while (pos < markdown.size()) {
    std::size_t end = markdown.find('\n', pos);
    if (end == std::string_view::npos) end = markdown.size();
    const std::string_view line = markdown.substr(pos, end - pos);
    if (line.size() < 2 || line.front() != '|' || line.back() != '|') {
      out += line;
    } else {
      // Cells between unescaped '|' (a '\|' belongs to the cell).
      std::size_t start = 1;
      out += '|';
      for (std::size_t i = 1; i < line.size(); ++i) {
        if (line[i] != '|' || line[i - 1] == '\\') continue;
        out += keep_value_whole(line.substr(start, i - start));
        out += '|';
        start = i + 1;
      }
    }
    if (end < markdown.size()) out += '\n';
    pos = end + 1;
  }
  return out;
}

std::string mark_table_columns(const std::string& html) {
  std::string out;
  out.reserve(html.size() + 256);
  std::size_t pos = 0;
  while (true) {
    const std::size_t table = html.find("<table>", pos);
    const std::size_t close = table == std::string::npos ? std::string::npos : html.find("</table>", table);
    if (close == std::string::npos) break;
    out.append(html, pos, table - pos);
    const std::string_view t(html.data() + table, close - table);
    // The header's cells.
    std::vector<bool> prose;
    const std::size_t head_end = t.find("</thead>");
    for (std::size_t p = t.find("<th"); p != std::string_view::npos && p < head_end; p = t.find("<th", p + 3)) {
      if (t.compare(p, 7, "<thead>") == 0) continue;
      const std::size_t gt = t.find('>', p);
      const std::size_t end = t.find("</th>", gt);
      if (gt == std::string_view::npos || end == std::string_view::npos) break;
      prose.push_back(prose_header(trim(t.substr(gt + 1, end - gt - 1))));
    }
    const bool has_prose = std::find(prose.begin(), prose.end(), true) != prose.end();
    const bool wide = has_prose || prose.size() >= 7;
    out += wide ? "<table class=\"wide\">" : "<table>";
    std::size_t column = 0;
    for (std::size_t p = 7; p < t.size();) {
      const std::size_t tag = t.find('<', p);
      if (tag == std::string_view::npos) {
        out.append(t.substr(p));
        break;
      }
      out.append(t.substr(p, tag - p));
      const bool row = t.compare(tag, 4, "<tr>") == 0;
      const bool cell = (t.compare(tag, 3, "<td") == 0 || t.compare(tag, 3, "<th") == 0) && tag + 3 < t.size() &&
                        (t[tag + 3] == '>' || t[tag + 3] == ' ');
      if (row) column = 0;
      if (cell) {
        out.append(t.substr(tag, 3));
        if (column < prose.size() && prose[column]) out += " class=\"prose\"";
        ++column;
        p = tag + 3;
      } else {
        out += '<';
        p = tag + 1;
      }
    }
    out += "</table>";
    pos = close + 8;
  }
  out.append(html, pos, std::string::npos);
  return out;
}

std::string_view table_column_style() {
  return "td.prose, th.prose { min-width: 13rem; overflow-wrap: normal; word-break: normal; hyphens: none; }\n"
         "table.wide { display: table; width: max-content; max-width: min(calc(100vw - 3rem), 84rem);\n"
         "             position: relative; left: 50%; transform: translateX(-50%); }\n"
         "@media print { table.wide { max-width: 100%; left: 0; transform: none; } }\n";
}

}  // namespace dsx
