#include "dse/yaml_reader.hpp"

#include <yaml-cpp/yaml.h>
#include <yaml.h>
#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <map>
#include <cctype>
#include <new>
#include <unordered_map>

namespace dsx {

namespace {

std::size_t char_count(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) == 0x80U ? 0 : 1;
  return n;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    begin = end + 1;
  }
  return lines;
}

// libyaml's check of the whole file. yaml-cpp alone accepts an unterminated double-quoted string
// (it swallows the rest of the file) and reports a tab in the indentation as "illegal map value".
bool syntax_check(const std::string& file, const std::string& text, const std::vector<std::string_view>& lines,
                  Diagnostics& diags) {
  yaml_parser_t parser;
  if (yaml_parser_initialize(&parser) == 0) throw std::bad_alloc();
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  bool ok = true;
  int documents = 0;
  // Nesting and alias expansion, counted in the event stream before yaml-cpp builds (and
  // TreeBuilder copies) a tree: a few hundred bytes of aliases of aliases ("billion laughs") would
  // otherwise expand to billions of nodes.
  struct Open {
    std::string anchor;
    std::uint64_t nodes = 1;
  };
  std::vector<Open> open;
  std::map<std::string, std::uint64_t, std::less<>> anchored_nodes;
  std::uint64_t alias_nodes = 0;
  const auto finish_node = [&](const char* anchor, std::uint64_t nodes) {
    if (anchor != nullptr) anchored_nodes[anchor] = nodes;
    if (!open.empty()) open.back().nodes = std::min<std::uint64_t>(open.back().nodes + nodes, kMaxAliasExpandedNodes + 1);
  };
  const auto where_event = [&](const yaml_event_t& e) {
    return SourceLocation{file, static_cast<int>(e.start_mark.line) + 1, static_cast<int>(e.start_mark.column) + 1};
  };
  // The last quoted string that ran over a line break: when the error follows on the line where
  // it closed, the real mistake is a missing closing quote where it opened.
  bool multiline_quote = false;
  yaml_mark_t quote_start{};
  yaml_mark_t quote_end{};
  for (;;) {
    yaml_event_t event;
    if (yaml_parser_parse(&parser, &event) == 0) {
      const std::string problem = parser.problem != nullptr ? parser.problem : "invalid YAML";
      const std::string context = parser.context != nullptr ? parser.context : "";
      const yaml_mark_t at = parser.problem_mark;
      const yaml_mark_t ctx = parser.context_mark;
      const auto char_at = [&](const yaml_mark_t& m) -> char {
        if (m.line >= lines.size()) return '\0';
        // libyaml columns count characters; find the byte of that character.
        std::string_view line = lines[m.line];
        std::size_t chars = 0;
        for (std::size_t i = 0; i < line.size(); ++i) {
          if ((static_cast<unsigned char>(line[i]) & 0xC0U) == 0x80U) continue;
          if (chars++ == m.column) return line[i];
        }
        return '\0';
      };
      const auto where = [&](const yaml_mark_t& m) {
        return SourceLocation{file, static_cast<int>(m.line) + 1, static_cast<int>(m.column) + 1};
      };
      if (parser.error == YAML_READER_ERROR) {
        // libyaml places reader errors by byte offset only.
        const bool cut_short = problem.find("trailing") != std::string::npos || problem.find("incomplete") != std::string::npos;
        std::size_t offset = std::min(parser.problem_offset, text.size());
        // A character cut short: point at its first byte.
        while (cut_short && offset > 0 && (static_cast<unsigned char>(text[offset - 1]) & 0xC0U) == 0x80U) --offset;
        if (cut_short && offset > 0 && (static_cast<unsigned char>(text[offset - 1]) & 0xC0U) == 0xC0U) --offset;
        const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
        const std::size_t begin = line_start == std::string::npos || offset == 0 ? 0 : line_start + 1;
        const auto line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(begin), '\n')) + 1;
        const auto column = static_cast<int>(char_count(std::string_view(text).substr(begin, offset - begin))) + 1;
        std::string message = problem;
        if (cut_short) {
          message = "not UTF-8: a character cut short (" + problem + "); save the file as UTF-8";
        } else if (problem.find("UTF-8") != std::string::npos) {
          message = fmt::format("not UTF-8: byte 0x{:02x} ({}); save the file as UTF-8",
                                static_cast<unsigned>(parser.problem_value) & 0xffU, problem);
        }
        diags.error(SourceLocation{file, line, column}, message);
      } else if (context == "while scanning a quoted scalar" && problem.find("end of stream") != std::string::npos) {
        const char quote = char_at(ctx) == '\'' ? '\'' : '"';
        diags.error(where(ctx), std::string("unterminated string: no closing ") + quote +
                                    " before the end of the file");
      } else if (multiline_quote && quote_end.line == at.line) {
        const char quote = char_at(quote_start) == '\'' ? '\'' : '"';
        diags.error(where(quote_start), std::string("unterminated string: the ") + quote +
                                            " opened here is closed only at line " + std::to_string(quote_end.line + 1) +
                                            ", column " + std::to_string(quote_end.column) +
                                            ", which breaks the lines in between");
      } else if (problem.find("tab") != std::string::npos ||
                 (char_at(at) == '\t' && problem.find("cannot start any token") != std::string::npos)) {
        diags.error(where(at), "tab character in the indentation: YAML indents with spaces only");
      } else {
        std::string message = "syntax error: " + problem;
        if (!context.empty()) {
          message += " (" + context;
          if (ctx.line != at.line || ctx.column != at.column) {
            message += " at line " + std::to_string(ctx.line + 1) + ", column " + std::to_string(ctx.column + 1);
          }
          message += ")";
        }
        diags.error(where(at), message);
      }
      ok = false;
      break;
    }
    const yaml_event_type_t type = event.type;
    if (type == YAML_SCALAR_EVENT && event.start_mark.line != event.end_mark.line &&
        (event.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
         event.data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE)) {
      multiline_quote = true;
      quote_start = event.start_mark;
      quote_end = event.end_mark;
    }
    if (type == YAML_SCALAR_EVENT) {
      finish_node(reinterpret_cast<const char*>(event.data.scalar.anchor), 1);
    } else if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
      const auto* anchor = type == YAML_SEQUENCE_START_EVENT ? event.data.sequence_start.anchor
                                                             : event.data.mapping_start.anchor;
      open.push_back(Open{anchor != nullptr ? reinterpret_cast<const char*>(anchor) : "", 1});
      if (open.size() > kMaxNestingDepth) {
        diags.error(where_event(event), "lists and mappings nested more than " + std::to_string(kMaxNestingDepth) +
                                            " deep; a study or catalog file needs a handful of levels");
        ok = false;
      }
    } else if ((type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) && !open.empty()) {
      const Open closed = open.back();
      open.pop_back();
      finish_node(closed.anchor.empty() ? nullptr : closed.anchor.c_str(), closed.nodes);
    } else if (type == YAML_ALIAS_EVENT) {
      const auto found = anchored_nodes.find(reinterpret_cast<const char*>(event.data.alias.anchor));
      const std::uint64_t nodes = found == anchored_nodes.end() ? 1 : found->second;
      alias_nodes = std::min(alias_nodes + nodes, kMaxAliasExpandedNodes + 1);
      finish_node(nullptr, nodes);
      if (alias_nodes > kMaxAliasExpandedNodes) {
        diags.error(where_event(event), "aliases (*name) here and before expand to more than " +
                                            std::to_string(kMaxAliasExpandedNodes) +
                                            " values; write the values out or use fewer aliases of aliases");
        ok = false;
      }
    }
    if (type == YAML_DOCUMENT_START_EVENT && ++documents == 2) {
      diags.error(SourceLocation{file, static_cast<int>(event.start_mark.line) + 1,
                                 static_cast<int>(event.start_mark.column) + 1},
                  "a second YAML document: a study or catalog file holds exactly one", 3);
      ok = false;
    }
    yaml_event_delete(&event);
    if (type == YAML_STREAM_END_EVENT || !ok) break;
  }
  yaml_parser_delete(&parser);
  return ok;
}

class TreeBuilder {
 public:
  TreeBuilder(const YamlReader& reader, const std::string& text)
      : reader_(reader), text_(text), lines_(split_lines(text)) {}

  YamlNode convert(const YAML::Node& in) {
    YamlNode out;
    place(out, in.Mark());
    const std::string& tag = in.Tag();
    switch (in.Type()) {
      case YAML::NodeType::Scalar:
        out.kind = YamlNode::Kind::scalar;
        out.text = in.Scalar();
        out.style = style_at(in.Mark());
        out.span = scalar_span(out, in.Mark());
        break;
      case YAML::NodeType::Sequence:
        out.kind = YamlNode::Kind::sequence;
        for (const YAML::Node& item : in) out.items.push_back(convert(item));
        break;
      case YAML::NodeType::Map: {
        out.kind = YamlNode::Kind::mapping;
        std::unordered_map<std::string, std::size_t> entry_of_key;  // duplicates found in linear time
        for (auto it = in.begin(); it != in.end(); ++it) add_entry(out, entry_of_key, it->first, it->second);
        break;
      }
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        out.kind = YamlNode::Kind::null;
        break;
    }
    if (!tag.empty() && tag != "?" && tag != "!") {
      reader_.error(out, "YAML tags ('" + tag + "') are not accepted: write the value without one");
    }
    return out;
  }

  // True when the mark points at an explicit null (~, null) rather than at an empty value.
  bool explicit_null(const YAML::Mark& m) const {
    if (m.pos < 0 || static_cast<std::size_t>(m.pos) >= text_.size()) return false;
    const std::string_view rest = std::string_view(text_).substr(static_cast<std::size_t>(m.pos));
    for (std::string_view word : {"~", "null", "Null", "NULL"}) {
      if (rest.starts_with(word)) {
        const std::size_t n = word.size();
        if (rest.size() == n || std::string_view(" \t\r\n,]}#").find(rest[n]) != std::string_view::npos) return true;
      }
    }
    return false;
  }

 private:
  void add_entry(YamlNode& map, std::unordered_map<std::string, std::size_t>& entry_of_key, const YAML::Node& key_in,
                 const YAML::Node& value_in) {
    YamlEntry entry{convert(key_in), convert(value_in)};
    if (!entry.key.is_scalar()) {
      reader_.error(entry.key, "a mapping key must be a plain name, got " + entry.key.describe());
      return;
    }
    if (entry.value.is_null() && !explicit_null(value_in.Mark())) {
      // An empty value: point just after the key's colon, not at whatever follows.
      entry.value.line = entry.key.line;
      entry.value.column = entry.key.column + static_cast<int>(entry.key.span) + 1;
      entry.value.span = 1;
    }
    const auto [at, added] = entry_of_key.emplace(entry.key.text, map.entries.size());
    if (!added) {
      const YamlEntry& earlier = map.entries[at->second];
      reader_.error(entry.key, "duplicate key '" + entry.key.text + "': already given at line " +
                                   std::to_string(earlier.key.line) + ", column " + std::to_string(earlier.key.column));
      return;
    }
    map.entries.push_back(std::move(entry));
  }

  // Characters in line[0, byte): counted on from the last position asked for when it lies on the
  // same line and not after this one (the nodes of a long one-line list come in order), so that a
  // list of a million values on one line is placed in linear time.
  std::size_t chars_before(int line_index, std::string_view line, std::size_t byte) const {
    if (line_index != counted_line_ || byte < counted_byte_) {
      counted_line_ = line_index;
      counted_byte_ = 0;
      counted_chars_ = 0;
    }
    counted_chars_ += char_count(line.substr(counted_byte_, byte - counted_byte_));
    counted_byte_ = byte;
    return counted_chars_;
  }

  std::string_view line_at(const YAML::Mark& m) const {
    if (m.line < 0 || static_cast<std::size_t>(m.line) >= lines_.size()) return {};
    return lines_[static_cast<std::size_t>(m.line)];
  }

  // The rest of the mark's line from the mark on.
  std::string_view rest_at(const YAML::Mark& m) const {
    const std::string_view line = line_at(m);
    const std::size_t col = std::min(static_cast<std::size_t>(std::max(m.column, 0)), line.size());
    return line.substr(col);
  }

  void place(YamlNode& out, const YAML::Mark& m) const {
    if (m.line < 0) {
      out.line = 1;
      out.column = 1;
      return;
    }
    const std::string_view line = line_at(m);
    const std::size_t col = std::min(static_cast<std::size_t>(std::max(m.column, 0)), line.size());
    out.line = m.line + 1;
    out.column = static_cast<int>(chars_before(m.line, line, col)) + 1;
  }

  YamlNode::Style style_at(const YAML::Mark& m) const {
    const std::string_view rest = rest_at(m);
    if (rest.empty()) return YamlNode::Style::plain;
    if (rest[0] == '"' || rest[0] == '\'') return YamlNode::Style::quoted;
    if (rest[0] == '|' || rest[0] == '>') return YamlNode::Style::block;
    return YamlNode::Style::plain;
  }

  std::size_t scalar_span(const YamlNode& node, const YAML::Mark& m) const {
    const std::string_view rest = rest_at(m);
    if (rest.empty()) return 1;
    if (node.style == YamlNode::Style::block) return 1;
    if (node.style == YamlNode::Style::quoted) {
      const char q = rest[0];
      for (std::size_t i = 1; i < rest.size(); ++i) {
        if (q == '"' && rest[i] == '\\') {
          ++i;
          continue;
        }
        if (rest[i] == q) {
          if (q == '\'' && i + 1 < rest.size() && rest[i + 1] == '\'') {
            ++i;
            continue;
          }
          return char_count(rest.substr(0, i + 1));
        }
      }
      return char_count(rest);
    }
    const std::string_view first_line = std::string_view(node.text).substr(0, node.text.find('\n'));
    return std::max<std::size_t>(1, char_count(rest.substr(0, first_line.size())));
  }

  const YamlReader& reader_;
  const std::string& text_;
  std::vector<std::string_view> lines_;
  mutable int counted_line_ = -1;
  mutable std::size_t counted_byte_ = 0;
  mutable std::size_t counted_chars_ = 0;
};

std::string prefix(std::string_view path) { return path.empty() ? "" : std::string(path) + ": "; }

}  // namespace

std::optional<std::string> read_input_file(const std::string& file, std::string_view what, Diagnostics& diags) {
  const auto fail = [&](const std::string& problem) -> std::optional<std::string> {
    diags.error(SourceLocation{file}, "cannot read the " + std::string(what) + ": " + problem);
    return std::nullopt;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return fail("it is a folder, not a file");
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputFileBytes) {
      return fail("it is larger than " + std::to_string(kMaxInputFileBytes >> 20) +
                  " MiB; sweep long ranges with {from:, to:, count:} instead of listing the values");
    }
  }
  if (in.bad()) return fail(std::strerror(errno));
  return text;
}

const YamlNode* YamlNode::find(std::string_view key) const {
  for (const YamlEntry& e : entries) {
    if (e.key.text == key) return &e.value;
  }
  return nullptr;
}

std::string YamlNode::describe() const {
  switch (kind) {
    case Kind::null: return "nothing";
    case Kind::scalar: return "'" + text + "'";
    case Kind::sequence: return "a list";
    case Kind::mapping: return "a mapping";
  }
  return "";
}

std::optional<YamlNode> YamlReader::parse(const std::string& text) {
  diags_->add_source(file_, text);
  const std::vector<std::string_view> lines = split_lines(text);
  if (!syntax_check(file_, text, lines, *diags_)) return std::nullopt;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    diags_->error(SourceLocation{file_, e.mark.line + 1, e.mark.column + 1}, "syntax error: " + e.msg);
    return std::nullopt;
  }
  // Duplicate keys, tags and non-string keys are reported while building; the tree (without the
  // offending entries) is still returned so the rest of the file gets checked too.
  TreeBuilder builder(*this, text);
  YamlNode tree = builder.convert(root);
  if (tree.is_null()) {
    tree.line = 1;
    tree.column = 1;
  }
  return tree;
}

SourceLocation YamlReader::location(const YamlNode& node, std::size_t offset) const {
  int column = node.column;
  if (node.is_scalar() && node.style != YamlNode::Style::block) {
    column += static_cast<int>(offset) + (node.style == YamlNode::Style::quoted ? 1 : 0);
  }
  return SourceLocation{file_, node.line, column};
}

void YamlReader::error(const YamlNode& at, std::string message) const {
  diags_->error(location(at), std::move(message), at.span);
}

void YamlReader::error(const YamlNode& at, std::string message, std::size_t offset, std::size_t span) const {
  if (at.is_scalar() && at.style == YamlNode::Style::block) {
    error(at, std::move(message));
    return;
  }
  diags_->error(location(at, offset), std::move(message), span);
}

void YamlReader::unknown(const YamlNode& at, std::string_view what, std::span<const std::string> choices,
                         std::string_view context) const {
  if (context.empty()) {
    diags_->unknown(location(at, 0), what, at.text, choices);
    return;
  }
  // Diagnostics::unknown's wording, with the context after the name.
  std::string message = "unknown " + std::string(what) + " '" + at.text + "' in " + std::string(context);
  const std::string near = closest_match(at.text, choices);
  message += near.empty() ? "; " : "; did you mean '" + near + "'? ";
  message += "valid " + std::string(what) + "s: ";
  for (std::size_t i = 0; i < choices.size(); ++i) message += (i > 0 ? ", " : "") + choices[i];
  diags_->error(location(at), message, at.span);
}

bool YamlReader::expect_mapping(const YamlNode& node, std::string_view path) const {
  if (node.is_mapping()) return true;
  error(node, prefix(path) + "expected a mapping (key: value), got " + node.describe());
  return false;
}

bool YamlReader::expect_sequence(const YamlNode& node, std::string_view path) const {
  if (node.is_sequence()) return true;
  error(node, prefix(path) + "expected a list, got " + node.describe());
  return false;
}

bool YamlReader::expect_scalar(const YamlNode& node, std::string_view path) const {
  if (node.is_scalar()) return true;
  error(node, prefix(path) + "expected a single value, got " + node.describe());
  return false;
}

void YamlReader::check_keys(const YamlNode& map, std::span<const std::string_view> allowed,
                            std::string_view path) const {
  if (!map.is_mapping()) return;
  const std::vector<std::string> choices(allowed.begin(), allowed.end());
  for (const YamlEntry& e : map.entries) {
    if (std::find(allowed.begin(), allowed.end(), e.key.text) == allowed.end()) {
      unknown(e.key, "key", choices, path);
    }
  }
}

const YamlNode* YamlReader::require(const YamlNode& map, std::string_view key, std::string_view path) const {
  if (!map.is_mapping()) return nullptr;
  if (const YamlNode* v = map.find(key)) return v;
  diags_->error(location(map), prefix(path) + "missing required key '" + std::string(key) + "'", 1);
  return nullptr;
}

std::optional<std::string> YamlReader::string(const YamlNode& node, std::string_view path, bool allow_empty) const {
  if (node.is_null() || (node.is_scalar() && node.text.empty() && !allow_empty)) {
    error(node, prefix(path) + "expected a non-empty string, got nothing");
    return std::nullopt;
  }
  if (!node.is_scalar()) {
    error(node, prefix(path) + "expected a string, got " + node.describe());
    return std::nullopt;
  }
  return node.text;
}

std::optional<bool> YamlReader::boolean(const YamlNode& node, std::string_view path) const {
  if (node.is_scalar() && node.text == "true") return true;
  if (node.is_scalar() && node.text == "false") return false;
  error(node, prefix(path) + "expected true or false, got " + node.describe());
  return std::nullopt;
}

std::optional<Quantity> YamlReader::quantity(const YamlNode& node, Dimension dimension, std::string_view name,
                                             const QuantityBounds& bounds) const {
  if (!node.is_scalar()) {
    error(node, std::string(name) + ": expected " + dimension_phrase(dimension) + " such as '" +
                    std::string(unit_example(dimension)) + "', got " + node.describe());
    return std::nullopt;
  }
  const QuantityParse parsed = parse_quantity(node.text, dimension, name);
  if (!parsed.quantity) {
    const QuantityError& e = parsed.error;
    if (e.unknown_unit) {
      diags_->unknown(location(node, e.offset), e.message, e.got, e.choices);
    } else {
      error(node, e.message, e.offset, e.length);
    }
    return std::nullopt;
  }
  const std::string problem = check_bounds(parsed.quantity->value, bounds, dimension, name, node.text);
  if (!problem.empty()) {
    error(node, problem);
    return std::nullopt;
  }
  // Counts become 64-bit integers: one past their range would wrap to a small number or 0.
  if (dimension == Dimension::count && parsed.quantity->value >= 18446744073709551616.0) {
    error(node, std::string(name) + ": " + node.text + " is past the largest count dsx can hold (2^64 - 1)");
    return std::nullopt;
  }
  return parsed.quantity;
}

std::string yaml_scalar(std::string_view text) {
  const auto plain_char = [](unsigned char c) {
    return std::isalnum(c) != 0 || c >= 0x80 || std::string_view("_-./ %+()").find(static_cast<char>(c)) !=
                                                     std::string_view::npos;
  };
  bool plain = !text.empty() && text.front() != ' ' && text.back() != ' ';
  if (plain) {
    const auto first = static_cast<unsigned char>(text.front());
    plain = std::isalnum(first) != 0 || first >= 0x80 || first == '_' || first == '.' || first == '/' ||
            ((first == '-' || first == '+') && text.size() > 1 && text[1] != ' ');
  }
  for (char c : text) plain = plain && plain_char(static_cast<unsigned char>(c));
  for (std::string_view word : {"~", "null", "Null", "NULL"}) plain = plain && text != word;
  if (plain) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(static_cast<unsigned char>(c) >> 4U) & 0xFU];
          out += kHex[static_cast<unsigned char>(c) & 0xFU];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace dsx
