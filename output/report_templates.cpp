#include "output/report_templates.hpp"

#include <fmt/format.h>

#include <kainjow/mustache.hpp>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "dse/diagnostics.hpp"
#include "output/files.hpp"
#include "output/report.hpp"

namespace dsx {

namespace {

using json = nlohmann::ordered_json;
namespace mustache = kainjow::mustache;


struct TemplateText {
  std::string path;
  std::string text;
};

struct TemplateSet {
  TemplateText main;
  std::map<std::string, TemplateText> partials;  // by name (file stem)
};

SourceLocation location_of(const TemplateText& t, std::size_t offset) {
  offset = std::min(offset, t.text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (t.text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {t.path, line, static_cast<int>(offset - line_start) + 1};
}

TemplateSet load_templates(const std::string& template_dir, const std::string& main_name) {
  namespace fs = std::filesystem;
  if (template_dir.empty()) throw std::runtime_error("no report template folder given");
  TemplateSet set;
  set.main.path = (fs::path(template_dir) / main_name).string();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(set.main.path, ec))) {
    throw std::runtime_error(fmt::format("{}: error: report template not found", set.main.path));
  }
  set.main.text = read_file_within(template_dir, main_name);
  const fs::path partial_dir = fs::path(template_dir) / "partials";
  const fs::file_type partials = fs::symlink_status(partial_dir, ec).type();
  if (partials == fs::file_type::symlink) {
    throw std::runtime_error(fmt::format("{}: error: a symbolic link; dsx reads partials only from inside {}, never "
                                         "through a link",
                                         partial_dir.string(), template_dir));
  }
  if (partials == fs::file_type::directory) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(partial_dir)) {
      if (entry.path().extension() == ".mustache") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      // A link among the partials is refused, not skipped: the report would silently lack it.
      set.partials[f.stem().string()] =
          TemplateText{f.string(), read_file_within(template_dir, "partials/" + f.filename().string())};
    }
  }
  return set;
}

// One Mustache tag as kainjow reads it.
struct Tag {
  char kind;  // 'v' value, '&' unescaped value, '#' section, '^' inverted, '/' end, '>' partial, '!' comment
  std::string name;
  std::size_t offset;
};

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// The tags of a template kainjow has already parsed without error (same delimiter rules).
std::vector<Tag> scan_tags(const std::string& text) {
  std::vector<Tag> tags;
  std::string open = "{{", close = "}}";
  std::size_t pos = 0;
  for (;;) {
    const std::size_t p = text.find(open, pos);
    if (p == std::string::npos) break;
    const bool braces = open == "{{" && close == "}}";
    const bool triple = braces && p + 2 < text.size() && text[p + 2] == '{';
    const std::size_t start = p + open.size() + (triple ? 1 : 0);
    const std::string end_delim = triple ? "}}}" : close;
    const std::size_t e = text.find(end_delim, start);
    if (e == std::string::npos) break;
    const std::string contents = trim(std::string_view(text).substr(start, e - start));
    pos = e + end_delim.size();
    if (!triple && !contents.empty() && contents.front() == '=') {
      const std::string inner = trim(std::string_view(contents).substr(1, contents.size() - 2));
      const auto space = inner.find(' ');
      if (space != std::string::npos) {
        open = inner.substr(0, space);
        close = trim(std::string_view(inner).substr(space + 1));
      }
      continue;
    }
    if (triple) {
      tags.push_back({'&', contents, p});
    } else if (!contents.empty() && std::string_view("#^/>&!").find(contents.front()) != std::string_view::npos) {
      tags.push_back({contents.front(), trim(std::string_view(contents).substr(1)), p});
    } else {
      tags.push_back({'v', contents, p});
    }
  }
  return tags;
}

// A template context level for the strict check: an object whose keys are known, a level that
// adds nothing (boolean or inverted section), or one whose keys cannot be known (an empty list).
struct Frame {
  const json* object = nullptr;
  bool unknown = false;
};

class StrictChecker {
 public:
  StrictChecker(const TemplateSet& set, Diagnostics& diags) : set_(set), diags_(diags) {}

  void check(const TemplateText& t, std::vector<Frame> frames, int depth) {
    diags_.add_source(t.path, t.text);
    for (const Tag& tag : scan_tags(t.text)) {
      // Problems point at the name inside the tag; a partial used twice reports each problem once.
      const std::size_t name_at = std::min(t.text.find(tag.name, tag.offset), t.text.size());
      auto report = [&](std::string_view what, const std::vector<std::string>& choices) {
        if (reported_.insert({t.path, name_at}).second) {
          diags_.unknown(location_of(t, name_at), what, tag.name, choices);
        }
      };
      switch (tag.kind) {
        case '!': break;
        case '/':
          if (frames.size() > 1) frames.pop_back();
          break;
        case '>': {
          const auto it = set_.partials.find(tag.name);
          if (it == set_.partials.end()) {
            std::vector<std::string> names;
            for (const auto& [name, text] : set_.partials) names.push_back(name);
            report("partial", names);
          } else if (depth < 8) {
            check(it->second, frames, depth + 1);
          }
          break;
        }
        default: {
          const std::optional<const json*> value = resolve(frames, tag.name);
          if (!value) report("template value", visible_names(frames, tag.name));
          if (tag.kind == '#') {
            frames.push_back(value ? section_frame(*value) : Frame{nullptr, true});
          } else if (tag.kind == '^') {
            frames.push_back(Frame{});
          }
          break;
        }
      }
    }
  }

 private:
  // nullopt: not found; a null pointer: found below a level whose keys are unknown.
  static std::optional<const json*> resolve(const std::vector<Frame>& frames, const std::string& name) {
    if (name == ".") return static_cast<const json*>(nullptr);
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', start)) {
      parts.push_back(name.substr(start, dot - start));
      start = dot + 1;
    }
    parts.push_back(name.substr(start));
    for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
      if (f->unknown) return static_cast<const json*>(nullptr);
      if (f->object == nullptr) continue;
      const json* v = f->object;
      for (const std::string& part : parts) {
        if (!v->is_object() || !v->contains(part)) {
          v = nullptr;
          break;
        }
        v = &(*v)[part];
      }
      if (v != nullptr) return v;
    }
    return std::nullopt;
  }

  Frame section_frame(const json* value) {
    if (value == nullptr) return Frame{nullptr, true};
    if (value->is_object()) return Frame{value, false};
    if (value->is_array()) {
      if (value->empty() || !value->front().is_object()) return Frame{nullptr, true};
      json& merged = merged_.emplace_back(json::object());
      for (const json& item : *value) {
        for (const auto& [k, v] : item.items()) merged[k] = v;
      }
      return Frame{&merged, false};
    }
    return Frame{};
  }

  // Names a tag could have meant: the keys of the object its dotted prefix names, or else the names
  // with as many dots, visible from here.
  static std::vector<std::string> visible_names(const std::vector<Frame>& frames, const std::string& name) {
    if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0) {
      const std::string prefix = name.substr(0, dot);
      const std::optional<const json*> parent = resolve(frames, prefix);
      if (parent && *parent != nullptr && (*parent)->is_object()) {
        std::vector<std::string> keys;
        for (const auto& [k, v] : (*parent)->items()) keys.push_back(prefix + "." + k);
        std::sort(keys.begin(), keys.end());
        return keys;
      }
    }
    const auto dots = std::count(name.begin(), name.end(), '.');
    std::set<std::string> names;
    for (const Frame& f : frames) {
      if (f.object == nullptr) continue;
      for (const auto& [k, v] : f.object->items()) {
        if (dots == 0) names.insert(k);
        if (dots == 1 && v.is_object()) {
          for (const auto& [k2, v2] : v.items()) names.insert(k + "." + k2);
        }
      }
    }
    return {names.begin(), names.end()};
  }

  const TemplateSet& set_;
  Diagnostics& diags_;
  std::deque<json> merged_;
  std::set<std::pair<std::string, std::size_t>> reported_;
};

// kainjow's parse error ("Unclosed section \"rows\" at 12") as file:line:col.
void check_syntax(const TemplateText& t, Diagnostics& diags) {
  const mustache::mustache tmpl{t.text};
  if (tmpl.is_valid()) return;
  std::string message = tmpl.error_message();
  std::size_t offset = 0;
  if (const auto at = message.rfind(" at "); at != std::string::npos) {
    offset = static_cast<std::size_t>(std::stoull(message.substr(at + 4)));
    message.resize(at);
  }
  if (!message.empty()) message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
  diags.add_source(t.path, t.text);
  const std::size_t close = t.text.find("}}", offset);
  diags.error(location_of(t, offset), message, close == std::string::npos ? 2 : close + 2 - offset);
}

// Every template of `set` parsed; problems added to `diags`.
void check_set_syntax(const TemplateSet& set, Diagnostics& diags) {
  check_syntax(set.main, diags);
  for (const auto& [name, t] : set.partials) check_syntax(t, diags);
}

mustache::data to_data(const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      mustache::data d{mustache::data::type::object};
      for (const auto& [k, v] : j.items()) d.set(k, to_data(v));
      return d;
    }
    case json::value_t::array: {
      mustache::data d{mustache::data::type::list};
      for (const json& v : j) d.push_back(to_data(v));
      return d;
    }
    case json::value_t::string: return mustache::data{j.get<std::string>()};
    case json::value_t::boolean: return mustache::data{j.get<bool>()};
    case json::value_t::null: return mustache::data{false};
    default: return mustache::data{j.dump()};
  }
}

// Partials come from the template folder, never from the data, so a value and a partial may share
// a name ("figures").
class PartialContext : public mustache::basic_context<std::string> {
 public:
  PartialContext(const mustache::data* root, const std::map<std::string, mustache::data>& partials)
      : inner_(root), partials_(partials) {}
  void push(const mustache::data* d) override { inner_.push(d); }
  void pop() override { inner_.pop(); }
  const mustache::data* get(const std::string& name) const override { return inner_.get(name); }
  const mustache::data* get_partial(const std::string& name) const override {
    const auto it = partials_.find(name);
    return it == partials_.end() ? nullptr : &it->second;
  }

 private:
  mustache::context<std::string> inner_;
  const std::map<std::string, mustache::data>& partials_;
};

}  // namespace

std::string render_templates(const std::string& template_dir, const std::string& main_name, const json& context,
                             TemplateEscape escape) {
  const TemplateSet set = load_templates(template_dir, main_name);
  Diagnostics diags;
  check_set_syntax(set, diags);
  if (!diags.has_errors()) {
    StrictChecker checker(set, diags);
    checker.check(set.main, {Frame{&context, false}}, 0);
  }
  if (diags.has_errors()) throw std::runtime_error(diags.format());

  std::map<std::string, mustache::data> partials;
  for (const auto& [name, t] : set.partials) partials.emplace(name, mustache::data{t.text});
  const mustache::data data = to_data(context);
  mustache::mustache tmpl{set.main.text};
  tmpl.set_custom_escape([escape](const std::string& s) {
    return escape == TemplateEscape::markdown ? markdown_escape(s) : html_escape(s);
  });
  PartialContext ctx(&data, partials);
  std::string out = tmpl.render(ctx);
  if (!tmpl.is_valid()) {
    throw std::runtime_error(fmt::format("{}: error: {}", set.main.path, tmpl.error_message()));
  }
  return out;
}

void check_report_templates(const std::string& template_dir) {
  Diagnostics diags;
  std::vector<std::string> missing;
  bool partials_checked = false;
  for (const char* main_name : {"report.md.mustache", "report.html.mustache"}) {
    try {
      const TemplateSet set = load_templates(template_dir, main_name);
      if (partials_checked) {
        check_syntax(set.main, diags);
      } else {
        check_set_syntax(set, diags);
        partials_checked = true;
      }
    } catch (const std::runtime_error& e) {
      missing.emplace_back(e.what());
    }
  }
  std::string problems;
  for (const std::string& m : missing) problems += m + "\n";
  if (diags.has_errors()) problems += diags.format();
  if (!problems.empty()) throw std::runtime_error(problems);
}

}  // namespace dsx
