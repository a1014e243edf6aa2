#include "output/report.hpp"

#include <fmt/format.h>
#include <md4c-html.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output/figure_notes.hpp"
#include "output/files.hpp"
#include "output/report_templates.hpp"
#include "output/sortable_tables.hpp"
#include "output/table_cells.hpp"

// A report as one self-contained HTML page (report.hpp markdown_page_html): Markdown through md4c,
// the figures' SVGs inlined, link destinations neutralised, the page's Content-Security-Policy.
namespace dsx {

namespace {

using json = nlohmann::ordered_json;

// ---- HTML ----

void append_html(const MD_CHAR* text, MD_SIZE size, void* out) {
  static_cast<std::string*>(out)->append(text, size);
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string html_unescape(std::string_view s) {
  std::string out(s);
  for (const auto& [from, to] : {std::pair<std::string_view, std::string_view>{"&quot;", "\""},
                                 {"&#39;", "'"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
    for (std::size_t p = out.find(from); p != std::string::npos; p = out.find(from, p + to.size())) {
      out.replace(p, from.size(), to);
    }
  }
  return out;
}

// Replaces each <img src="figures/NAME.svg" ...> of a rendered figure by the SVG itself.
std::string inline_figures(const std::string& html, const std::vector<RenderedFigure>& figures) {
  std::string out;
  std::size_t pos = 0;
  for (std::size_t p = html.find("<img", pos); p != std::string::npos; p = html.find("<img", pos)) {
    const std::size_t end = html.find('>', p);
    if (end == std::string::npos) break;
    const std::string_view tag(html.data() + p, end - p + 1);
    out.append(html, pos, p - pos);
    pos = end + 1;
    const auto src = tag.find("src=\"");
    const auto src_end = src == std::string_view::npos ? src : tag.find('"', src + 5);
    std::string url = src_end == std::string_view::npos ? "" : percent_decode(html_unescape(tag.substr(src + 5, src_end - src - 5)));
    const RenderedFigure* fig = nullptr;
    std::size_t number = 0;
    for (std::size_t i = 0; i < figures.size(); ++i) {
      if (url == "figures/" + figures[i].name + ".svg") {
        fig = &figures[i];
        number = i + 1;
      }
    }
    if (fig == nullptr || !fig->error.empty()) {
      out.append(tag);
      continue;
    }
    out += svg_for_inlining(read_file(fig->svg_path), fmt::format("fig{}-", number), fig->title);
  }
  out.append(html, pos, std::string::npos);
  return out;
}

// Whether a link or image destination may stay in report.html: a relative path, or an absolute URL
// of scheme http, https or mailto. `url` is the attribute's value as a browser reads it (entities
// decoded); like a browser (WHATWG URL Standard, "basic URL parser"), leading spaces and control
// characters are skipped and tabs and line breaks ignored before the scheme is read, which is
// ALPHA *(ALPHA / DIGIT / "+" / "-" / ".") ":" (RFC 3986 section 3.1).
bool safe_destination(std::string_view url) {
  std::string s;
  for (char c : url) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (s.empty() && static_cast<unsigned char>(c) <= 0x20) continue;
    s += c;
  }
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const std::size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || !alpha(s[0])) return true;
  std::string scheme;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = s[i];
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return true;  // a path
    scheme += c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return scheme == "http" || scheme == "https" || scheme == "mailto";
}

// md4c's HTML with every href and src whose destination is not safe_destination replaced by "#":
// study text may write [x](javascript:...) or ![x](data:...). With raw HTML off (MD_FLAG_NOHTML),
// every tag in the body is md4c's own and every attribute value is double-quoted with '"' escaped.
std::string neutralise_destinations(const std::string& html) {
  std::string out;
  out.reserve(html.size());
  std::size_t pos = 0;
  while (pos < html.size()) {
    const std::size_t tag = html.find('<', pos);
    if (tag == std::string::npos) break;
    const std::size_t end = html.find('>', tag);
    if (end == std::string::npos) break;
    out.append(html, pos, tag - pos);
    std::string_view t(html.data() + tag, end - tag + 1);
    std::size_t from = 0;
    for (;;) {
      std::size_t a = std::string_view::npos;
      std::size_t len = 0;
      for (std::string_view attr : {" href=\"", " src=\""}) {
        const std::size_t at = t.find(attr, from);
        if (at < a) {
          a = at;
          len = attr.size();
        }
      }
      if (a == std::string_view::npos) break;
      const std::size_t value = a + len;
      const std::size_t close = t.find('"', value);
      if (close == std::string_view::npos) break;
      out.append(t.substr(from, value - from));
      const std::string_view url = t.substr(value, close - value);
      out += safe_destination(html_unescape(url)) ? std::string(url) : std::string("#");
      from = close;
    }
    out.append(t.substr(from));
    pos = end + 1;
  }
  out.append(html, pos, std::string::npos);
  return out;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string report_content_security_policy() {
  return "default-src 'none'; script-src " + csp_script_hash_source(sortable_tables_script()) +
         "; style-src 'unsafe-inline'; img-src 'self' data:; font-src data:; base-uri 'none'; form-action 'none'";
}

std::string with_content_security_policy(std::string html) {
  const std::string meta =
      fmt::format("\n<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">", report_content_security_policy());
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t head = lower.find("<head");
  while (head != std::string::npos && head + 5 < lower.size() && lower[head + 5] != '>' &&
         std::isspace(static_cast<unsigned char>(lower[head + 5])) == 0) {
    head = lower.find("<head", head + 1);  // <header> is not <head>
  }
  const std::size_t close = head == std::string::npos ? std::string::npos : lower.find('>', head);
  if (close == std::string::npos) return meta.substr(1) + "\n" + html;
  html.insert(close + 1, meta);
  return html;
}

std::string markdown_page_html(const std::string& template_dir, std::string_view title, std::string_view markdown,
                               const std::vector<RenderedFigure>& figures, std::string_view name, std::string_view hash,
                               std::string_view dsx_version, std::string_view git_revision, bool trust_study_html) {
  std::string body;
  // Raw HTML in the Markdown (a study's section text) is shown as text, never as markup, unless the
  // person running dsx trusts the study's HTML.
  if (md_html(markdown.data(), static_cast<MD_SIZE>(markdown.size()), append_html, &body,
              MD_DIALECT_GITHUB | (trust_study_html ? 0 : MD_FLAG_NOHTML), 0) != 0) {
    throw std::runtime_error("md4c could not render the page");
  }
  json ctx;
  ctx["title"] = std::string(title);
  ctx["body"] = mark_table_columns(mark_figures_not_drawn(inline_figures(neutralise_destinations(body), figures)));
  ctx["study"] = {{"name", std::string(name)}};
  ctx["run"] = {{"dsx_version", dsx_version.empty() ? "unknown" : std::string(dsx_version)},
                {"git_revision", git_revision.empty() ? "unknown" : std::string(git_revision)},
                {"study_hash", hash.empty() ? "unknown" : std::string(hash)}};
  const std::string html =
      with_sortable_tables(render_templates(template_dir, "report.html.mustache", ctx, TemplateEscape::html),
                           std::string(figure_note_style()) + std::string(table_column_style()));
  return trust_study_html ? html : with_content_security_policy(html);
}

}  // namespace dsx
