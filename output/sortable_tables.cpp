#include "output/sortable_tables.hpp"

#include <cctype>

#include <algorithm>
#include <cstdint>

#include "dse/sha256.hpp"

namespace dsx {

namespace {

// ES5, no library. A cell's key is its number times the factor of its unit's prefix or calendar
// unit, so that "15.0 µs" < "1.00 ms" < "10.0 min" < "3.00 h" and "9,000 USD" < "25.0 k USD"
// (non-breaking spaces read as spaces); a cell that is not a number and a
// unit has none, and its column sorts as text.
constexpr std::string_view kScript = R"js((function () {
  "use strict";
  var prefixes = { p: 1e-12, n: 1e-9, u: 1e-6, "\u00b5": 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
    Ki: 1024, Mi: 1048576, Gi: 1073741824, Ti: 1099511627776, Pi: 1125899906842624, Ei: 1152921504606846976 };
  var calendar = { min: 60, h: 3600, days: 86400, years: 31536000 };
  var prefixed = ["s", "B", "B/s", "FLOP", "FLOP/s", "W", "J", "Wh"];
  var number = /^([+-]?)(\d[\d,]*(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?\s*(%|\/?[A-Za-z\u00b5]+(?:[ \/][A-Za-z]+)*)?$/;
  var collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function factor(unit) {
    if (own(calendar, unit)) return calendar[unit];
    var word = /^([kMGT]) [A-Za-z]/.exec(unit);
    if (word) return prefixes[word[1]];
    for (var n = 2; n >= 1; n--) {
      var p = unit.slice(0, n);
      if (unit.length > n && own(prefixes, p) && prefixed.indexOf(unit.slice(n)) >= 0) return prefixes[p];
    }
    return 1;
  }
  function missing(text) { return text === "" || text === "n/a" || text === "-" || text === "\u2014"; }
  function key(text) {
    text = text.replace(/\u00a0/g, " ");
    var inf = /^([+-]?)inf\b/.exec(text);
    if (inf) return inf[1] === "-" ? -Infinity : Infinity;
    var m = number.exec(text);
    if (!m) return null;
    var v = parseFloat(m[2].replace(/,/g, "") + (m[3] ? "e" + m[3] : ""));
    return (m[1] === "-" ? -v : v) * factor(m[4] || "");
  }
  function sort(table, column, header) {
    var body = table.tBodies[0];
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var numeric = true, any = false;
    var cells = Array.prototype.map.call(body.rows, function (row, i) {
      var cell = row.cells[column];
      var c = { row: row, i: i, text: cell ? cell.textContent.trim() : "" };
      c.missing = missing(c.text);
      if (!c.missing) {
        c.key = key(c.text);
        if (c.key === null) numeric = false; else any = true;
      }
      return c;
    });
    numeric = numeric && any;
    cells.sort(function (a, b) {
      if (a.missing || b.missing) return a.missing === b.missing ? a.i - b.i : a.missing ? 1 : -1;
      var d = numeric ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : collator.compare(a.text, b.text);
      return (ascending ? d : -d) || a.i - b.i;
    });
    cells.forEach(function (c) { body.appendChild(c.row); });
    Array.prototype.forEach.call(header.parentNode.cells, function (h) {
      h.setAttribute("aria-sort", h === header ? (ascending ? "ascending" : "descending") : "none");
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function (table) {
    if (!table.tHead || table.tHead.rows.length !== 1 || table.tBodies.length !== 1 ||
        table.tBodies[0].rows.length < 2) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.setAttribute("aria-sort", "none");
      header.tabIndex = 0;
      header.addEventListener("click", function () { sort(table, column, header); });
      header.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(table, column, header); }
      });
    });
  });
})();
)js";

std::string base64(const std::string& bytes) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t chunk = 0;
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    for (std::size_t k = 0; k < 3; ++k) {
      chunk = (chunk << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    }
    for (std::size_t k = 0; k < 4; ++k) {
      out += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 63u] : '=';
    }
  }
  return out;
}

std::string hex_to_bytes(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

}  // namespace

std::string_view sortable_tables_script() { return kScript; }

std::string csp_script_hash_source(std::string_view script) {
  return "'sha256-" + base64(hex_to_bytes(sha256_hex(script))) + "'";
}

std::string_view sortable_tables_style() {
  return "th[aria-sort] { cursor: pointer; }\n"
         "th[aria-sort=\"ascending\"]::after { content: \" \\25B2\"; font-size: 0.7em; }\n"
         "th[aria-sort=\"descending\"]::after { content: \" \\25BC\"; font-size: 0.7em; }\n";
}

std::string with_sortable_tables(std::string html, std::string_view extra_style) {
  const std::string element = "<script>" + std::string(kScript) + "</script>\n";
  const std::size_t body = html.rfind("</body>");
  html.insert(body == std::string::npos ? html.size() : body, element);

  const std::string style = "<style>\n" + std::string(sortable_tables_style()) + std::string(extra_style) + "</style>\n";
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t head_end = lower.find("</head>");
  const std::size_t own = lower.find("<style");
  const std::size_t at = own != std::string::npos && own < head_end ? own : head_end;
  html.insert(at == std::string::npos ? 0 : at, style);
  return html;
}

}  // namespace dsx
