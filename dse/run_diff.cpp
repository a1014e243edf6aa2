#include "dse/run_diff.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "dse/diagnostics.hpp"
#include "dse/store.hpp"
#include "dse/yaml_reader.hpp"

namespace dsx {

namespace fs = std::filesystem;

double relative_change(double a, double b) {
  const bool a_missing = std::isnan(a);
  const bool b_missing = std::isnan(b);
  if (a_missing && b_missing) return 0;
  if (a_missing || b_missing) return std::numeric_limits<double>::infinity();
  if (a == b) return 0;  // equal infinities too
  if (a == 0) return std::copysign(std::numeric_limits<double>::infinity(), b);
  const double r = (b - a) / std::fabs(a);
  return std::isnan(r) ? std::numeric_limits<double>::infinity() : r;  // inf - inf
}

bool changed_beyond(double a, double b, double tolerance) { return std::fabs(relative_change(a, b)) > tolerance; }

void LargestChanges::offer(const PointKey& point, double a, double b, double relative) {
  if (capacity_ == 0) return;
  const double magnitude = std::fabs(relative);
  if (changes_.size() >= capacity_ && !(magnitude > std::fabs(changes_.back().relative))) return;
  // Strictly larger than an entry to pass it: among equal magnitudes the earlier offer stays first.
  const auto at = std::upper_bound(changes_.begin(), changes_.end(), magnitude,
                                   [](double m, const MetricChange& c) { return m > std::fabs(c.relative); });
  changes_.insert(at, MetricChange{point, a, b, relative});
  if (changes_.size() > capacity_) changes_.pop_back();
}

bool RunDiff::differs() const {
  if (!study_changes.empty() || !metrics_only_a.empty() || !metrics_only_b.empty()) return true;
  if (only_a != 0 || only_b != 0 || status_changed != 0) return true;
  for (const MetricDiff& m : metrics) {
    if (m.changed != 0) return true;
  }
  return !top_k.empty() || !pareto.empty() || !comparisons.empty() || !breakeven.empty() || !files_only_a.empty() ||
         !files_only_b.empty();
}

std::string describe_point(const std::vector<std::string>& axes, const PointKey& point) {
  std::string out;
  for (std::size_t i = 0; i < axes.size() && i < point.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += axes[i] + "=" + point[i];
  }
  return out;
}

namespace {

constexpr std::string_view kResolvedStudy = "study.resolved.yaml";
constexpr std::string_view kResultStore = "results.sqlite";
constexpr std::string_view kManifest = "manifest.json";

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

// RFC 4180 records (output/csv.hpp writes them).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  bool any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(record));
      record.clear();
      any = false;
    } else {
      field += c;
    }
  }
  if (any) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return records;
}

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int column(std::string_view name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  }
  std::string cell(const std::vector<std::string>& row, int col) const {
    return col >= 0 && static_cast<std::size_t>(col) < row.size() ? row[static_cast<std::size_t>(col)] : "";
  }
};

std::optional<CsvTable> read_csv(const fs::path& path) {
  const auto text = read_text(path);
  if (!text) return std::nullopt;
  auto records = parse_csv(*text);
  CsvTable t;
  if (records.empty()) return t;
  t.header = std::move(records.front());
  t.rows.assign(std::make_move_iterator(records.begin() + 1), std::make_move_iterator(records.end()));
  return t;
}

double parse_number(const std::string& s) {
  if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    return used == s.size() ? v : std::numeric_limits<double>::quiet_NaN();
  } catch (const std::exception&) {
    return s == "inf"    ? std::numeric_limits<double>::infinity()
           : s == "-inf" ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
}

// ---- the resolved studies ----

std::string flow(const YamlNode& n) {
  switch (n.kind) {
    case YamlNode::Kind::null:
      return "null";
    case YamlNode::Kind::scalar:
      return n.text;
    case YamlNode::Kind::sequence: {
      std::string out = "[";
      for (std::size_t i = 0; i < n.items.size(); ++i) out += (i > 0 ? ", " : "") + flow(n.items[i]);
      return out + "]";
    }
    case YamlNode::Kind::mapping: {
      std::string out = "{";
      for (std::size_t i = 0; i < n.entries.size(); ++i) {
        out += (i > 0 ? ", " : "") + n.entries[i].key.text + ": " + flow(n.entries[i].value);
      }
      return out + "}";
    }
  }
  return "";
}

bool same(const YamlNode& a, const YamlNode& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case YamlNode::Kind::null:
      return true;
    case YamlNode::Kind::scalar:
      return a.text == b.text;
    case YamlNode::Kind::sequence:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!same(a.items[i], b.items[i])) return false;
      }
      return true;
    case YamlNode::Kind::mapping:
      if (a.entries.size() != b.entries.size()) return false;
      for (const YamlEntry& e : a.entries) {
        const YamlNode* other = b.find(e.key.text);
        if (other == nullptr || !same(e.value, *other)) return false;
      }
      return true;
  }
  return false;
}

// The id of a list entry ("id", else "name"), "" when it has none.
std::string entry_id(const YamlNode& n) {
  if (!n.is_mapping()) return "";
  for (const char* key : {"id", "name"}) {
    if (const YamlNode* v = n.find(key); v != nullptr && v->is_scalar()) return v->text;
  }
  return "";
}

void diff_yaml(const std::string& path, const YamlNode* a, const YamlNode* b, std::vector<Change>& out) {
  if (a == nullptr && b == nullptr) return;
  if (a == nullptr || b == nullptr) {
    out.push_back({path, a != nullptr ? flow(*a) : "", b != nullptr ? flow(*b) : ""});
    return;
  }
  if (same(*a, *b)) return;
  const auto child = [&](std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  };
  if (a->is_mapping() && b->is_mapping()) {
    for (const YamlEntry& e : a->entries) diff_yaml(child(e.key.text), &e.value, b->find(e.key.text), out);
    for (const YamlEntry& e : b->entries) {
      if (a->find(e.key.text) == nullptr) diff_yaml(child(e.key.text), nullptr, &e.value, out);
    }
    return;
  }
  if (a->is_sequence() && b->is_sequence()) {
    const auto all = [](const YamlNode& s, auto pred) { return std::all_of(s.items.begin(), s.items.end(), pred); };
    const auto has_id = [](const YamlNode& n) { return !entry_id(n).empty(); };
    const auto scalar = [](const YamlNode& n) { return n.is_scalar(); };
    if (all(*a, has_id) && all(*b, has_id)) {
      std::map<std::string, const YamlNode*> ia, ib;
      for (const YamlNode& n : a->items) ia.emplace(entry_id(n), &n);
      for (const YamlNode& n : b->items) ib.emplace(entry_id(n), &n);
      if (ia.size() == a->items.size() && ib.size() == b->items.size()) {  // ids unique: match by them
        for (const auto& [id, n] : ia) {
          const auto other = ib.find(id);
          diff_yaml(path + "[" + id + "]", n, other == ib.end() ? nullptr : other->second, out);
        }
        for (const auto& [id, n] : ib) {
          if (ia.count(id) == 0) diff_yaml(path + "[" + id + "]", nullptr, n, out);
        }
        return;
      }
    }
    if (all(*a, scalar) && all(*b, scalar)) {
      std::vector<std::string> added, removed;
      std::set<std::string> sa, sb;
      for (const YamlNode& n : a->items) sa.insert(n.text);
      for (const YamlNode& n : b->items) sb.insert(n.text);
      for (const YamlNode& n : b->items) {
        if (sa.count(n.text) == 0) added.push_back(n.text);
      }
      for (const YamlNode& n : a->items) {
        if (sb.count(n.text) == 0) removed.push_back(n.text);
      }
      std::string note;
      if (!added.empty()) note += "added " + fmt::format("{}", fmt::join(added, ", "));
      if (!removed.empty()) note += (note.empty() ? "" : "; ") + fmt::format("removed {}", fmt::join(removed, ", "));
      if (note.empty()) note = "reordered";
      out.push_back({path + " (" + note + ")", flow(*a), flow(*b)});
      return;
    }
    if (a->items.size() == b->items.size()) {
      for (std::size_t i = 0; i < a->items.size(); ++i) {
        diff_yaml(path + "[" + std::to_string(i) + "]", &a->items[i], &b->items[i], out);
      }
      return;
    }
  }
  out.push_back({path, flow(*a), flow(*b)});
}

// ---- one run folder ----

struct Run {
  std::string dir;
  YamlNode study;
  RunIdentity identity;
  std::unique_ptr<ResultStore> store;
};

std::optional<Run> open_run(const std::string& dir, std::vector<std::string>& problems) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    problems.push_back(
        fmt::format("{}: not a run folder: {}", dir, fs::exists(dir, ec) ? "not a folder" : "no such folder"));
    return std::nullopt;
  }
  bool complete = true;
  for (const std::string_view file : {kResolvedStudy, kResultStore, kManifest}) {
    if (!fs::is_regular_file(fs::path(dir) / file, ec)) {
      problems.push_back(fmt::format("{}: not a run folder: {} is missing", dir, file));
      complete = false;
    }
  }
  if (!complete) return std::nullopt;
  Run run;
  run.dir = dir;
  run.identity.dir = dir;
  const std::string study_file = (fs::path(dir) / kResolvedStudy).string();
  Diagnostics diags;
  const auto text = read_input_file(study_file, "resolved study", diags);
  if (text) {
    YamlReader reader(study_file, diags);
    if (auto node = reader.parse(*text)) run.study = std::move(*node);
  }
  if (diags.has_errors()) {
    std::string formatted = diags.format();
    while (!formatted.empty() && formatted.back() == '\n') formatted.pop_back();
    problems.push_back(formatted);
    return std::nullopt;
  }
  if (!run.study.is_mapping()) {
    problems.push_back(fmt::format("{}: not a resolved study (expected a mapping)", study_file));
    return std::nullopt;
  }
  if (const YamlNode* s = run.study.find("study"); s != nullptr && s->is_scalar()) run.identity.study = s->text;
  const std::string manifest_file = (fs::path(dir) / kManifest).string();
  try {
    const auto manifest_text = read_text(manifest_file);
    if (!manifest_text) throw std::runtime_error("cannot read it");
    const nlohmann::json manifest = nlohmann::json::parse(*manifest_text);
    const auto field = [&](const char* key) {
      return manifest.contains(key) && manifest[key].is_string() ? manifest[key].get<std::string>() : std::string();
    };
    run.identity.study_hash = field("study_hash");
    run.identity.catalog_hash = field("catalog_hash");
    run.identity.dsx_version = field("dsx_version");
    run.identity.git_revision = field("git_revision");
    run.identity.physics_fingerprint = field("physics_fingerprint");
  } catch (const std::exception& e) {
    problems.push_back(fmt::format("{}: not a dsx manifest: {}", manifest_file, e.what()));
    return std::nullopt;
  }
  try {
    run.store = std::make_unique<ResultStore>((fs::path(dir) / kResultStore).string(), StoreMode::read_only);
    if (!run.store->has_results()) {
      problems.push_back(fmt::format("{}: holds no results table", run.store->path()));
      return std::nullopt;
    }
  } catch (const std::exception& e) {
    problems.push_back(e.what());
    return std::nullopt;
  }
  return run;
}

std::string fixed_label(const Run& run, const std::string& name) {
  const YamlNode* fixed = run.study.find("fixed");
  const YamlNode* v = fixed != nullptr && fixed->is_mapping() ? fixed->find(name) : nullptr;
  return v != nullptr && v->is_scalar() ? v->text : "";
}

// One run's rows as keys of RunDiff::key_axes, in key order.
class KeyedRows {
 public:
  KeyedRows(const Run& run, const std::vector<std::string>& key_axes) : key_(key_axes.size()) {
    const auto& axes = run.store->axis_names();
    std::vector<std::string> order_by;
    for (std::size_t k = 0; k < key_axes.size(); ++k) {
      const auto it = std::find(axes.begin(), axes.end(), key_axes[k]);
      if (it == axes.end()) {
        column_.push_back(-1);
        key_[k] = fixed_label(run, key_axes[k]);  // constant in every row
      } else {
        column_.push_back(static_cast<int>(it - axes.begin()));
        order_by.push_back(key_axes[k]);
      }
    }
    cursor_ = std::make_unique<ResultStore::RowCursor>(*run.store, order_by);
    advance();
  }
  bool has() const { return has_; }
  const PointKey& key() const { return key_; }
  const ResultStore::RowCursor& row() const { return *cursor_; }
  void advance() {
    has_ = cursor_->next();
    if (!has_) return;
    for (std::size_t k = 0; k < column_.size(); ++k) {
      if (column_[k] >= 0) key_[k] = cursor_->label(static_cast<std::size_t>(column_[k]));
    }
  }

 private:
  std::unique_ptr<ResultStore::RowCursor> cursor_;
  std::vector<int> column_;
  PointKey key_;
  bool has_ = false;
};

std::string status_text(const std::string& status, const std::string& detail) {
  return detail.empty() ? status : status + " (" + detail + ")";
}

void diff_rows(const Run& a, const Run& b, const RunDiffOptions& options, RunDiff& diff) {
  const auto& axes_a = a.store->axis_names();
  const auto& axes_b = b.store->axis_names();
  diff.key_axes = axes_a;
  for (const std::string& name : axes_b) {
    if (std::find(axes_a.begin(), axes_a.end(), name) == axes_a.end()) diff.key_axes.push_back(name);
  }
  KeyedRows ra(a, diff.key_axes);
  KeyedRows rb(b, diff.key_axes);
  // The solver's metrics, then the study's derived ones.
  const auto& ma = ra.row().metric_names();
  const auto& mb = rb.row().metric_names();
  std::vector<std::pair<std::size_t, std::size_t>> common;  // column in A, column in B
  for (std::size_t i = 0; i < ma.size(); ++i) {
    const auto it = std::find(mb.begin(), mb.end(), ma[i]);
    if (it == mb.end()) {
      diff.metrics_only_a.push_back(ma[i]);
    } else {
      common.emplace_back(i, static_cast<std::size_t>(it - mb.begin()));
    }
  }
  for (const std::string& name : mb) {
    if (std::find(ma.begin(), ma.end(), name) == ma.end()) diff.metrics_only_b.push_back(name);
  }
  std::sort(diff.metrics_only_a.begin(), diff.metrics_only_a.end());
  std::sort(diff.metrics_only_b.begin(), diff.metrics_only_b.end());
  std::vector<LargestChanges> largest(common.size(), LargestChanges(options.top));
  for (const auto& [ia, ib] : common) diff.metrics.push_back(MetricDiff{ma[ia], 0, 0, {}});
  std::map<std::string, std::uint64_t> transitions;

  while (ra.has() || rb.has()) {
    const bool take_a = ra.has() && (!rb.has() || ra.key() < rb.key());
    const bool take_b = rb.has() && (!ra.has() || rb.key() < ra.key());
    if (take_a) {
      ++diff.rows_a;
      if (diff.only_a++ < options.top) diff.only_a_examples.push_back(ra.key());
      ra.advance();
      continue;
    }
    if (take_b) {
      ++diff.rows_b;
      if (diff.only_b++ < options.top) diff.only_b_examples.push_back(rb.key());
      rb.advance();
      continue;
    }
    ++diff.rows_a;
    ++diff.rows_b;
    ++diff.matched;
    const auto& x = ra.row();
    const auto& y = rb.row();
    if (x.status() != y.status() || x.detail() != y.detail()) {
      ++transitions[status_text(x.status(), x.detail()) + " -> " + status_text(y.status(), y.detail())];
      if (diff.status_changed++ < options.top) {
        diff.status_examples.push_back({ra.key(), x.status(), x.detail(), y.status(), y.detail()});
      }
    } else if (x.status() == "ok") {
      for (std::size_t m = 0; m < common.size(); ++m) {
        const double va = x.metric(common[m].first);
        const double vb = y.metric(common[m].second);
        const double r = relative_change(va, vb);
        ++diff.metrics[m].compared;
        if (std::fabs(r) > options.tolerance) {
          ++diff.metrics[m].changed;
          largest[m].offer(ra.key(), va, vb, r);
        }
      }
    }
    ra.advance();
    rb.advance();
  }
  for (std::size_t m = 0; m < common.size(); ++m) diff.metrics[m].largest = largest[m].changes();
  diff.status_transitions.assign(transitions.begin(), transitions.end());
}

// ---- decisions ----

void diff_top_k(const CsvTable& a, const CsvTable& b, double tolerance, std::vector<Change>& out) {
  struct Best {
    std::string point;
    std::string value_text;
    double value;
  };
  const auto best = [](const CsvTable& t) {
    std::map<std::string, Best> m;
    const int objective = t.column("objective"), direction = t.column("direction"), rank = t.column("rank"),
              index = t.column("point_index"), value = t.column("value");
    for (const auto& row : t.rows) {
      if (t.cell(row, rank) != "1") continue;
      std::string point;
      for (int c = index + 1; c < value && c >= 1; ++c) {
        point += (point.empty() ? "" : ", ") + t.header[static_cast<std::size_t>(c)] + "=" + t.cell(row, c);
      }
      const std::string name = t.cell(row, objective) + " (" + t.cell(row, direction) + ")";
      m.emplace(name, Best{point, t.cell(row, value), parse_number(t.cell(row, value))});
    }
    return m;
  };
  const auto ma = best(a), mb = best(b);
  std::set<std::string> names;
  for (const auto& [k, v] : ma) names.insert(k);
  for (const auto& [k, v] : mb) names.insert(k);
  for (const std::string& name : names) {
    const auto x = ma.find(name), y = mb.find(name);
    const auto show = [](const Best& v) { return v.point + ": " + v.value_text; };
    if (x == ma.end() || y == mb.end()) {
      out.push_back({name, x == ma.end() ? "" : show(x->second), y == mb.end() ? "" : show(y->second)});
    } else if (x->second.point != y->second.point || changed_beyond(x->second.value, y->second.value, tolerance)) {
      out.push_back({name, show(x->second), show(y->second)});
    }
  }
}

void diff_pareto(const CsvTable& a, const CsvTable& b, const std::vector<std::string>& key_axes,
                 std::vector<Change>& out) {
  const auto members = [&](const CsvTable& t) {
    std::vector<int> cols;
    for (const std::string& name : key_axes) cols.push_back(t.column(name));
    std::set<PointKey> s;
    for (const auto& row : t.rows) {
      PointKey k;
      for (int c : cols) k.push_back(t.cell(row, c));
      s.insert(std::move(k));
    }
    return s;
  };
  const auto sa = members(a), sb = members(b);
  for (const PointKey& k : sa) {
    if (sb.count(k) == 0) out.push_back({describe_point(key_axes, k), "on the front", "off the front"});
  }
  for (const PointKey& k : sb) {
    if (sa.count(k) == 0) out.push_back({describe_point(key_axes, k), "off the front", "on the front"});
  }
}

void diff_comparisons(const CsvTable& a, const CsvTable& b, std::vector<Change>& out) {
  const auto verdicts = [](const CsvTable& t) {
    std::map<std::string, std::string> m;
    const int name = t.column("name"), verdict = t.column("verdict"), value = t.column("dsx");
    for (const auto& row : t.rows) {
      m.emplace(t.cell(row, name), t.cell(row, verdict) + " (dsx " + t.cell(row, value) + ")");
    }
    return m;
  };
  const auto ma = verdicts(a), mb = verdicts(b);
  const auto verdict_of = [](const std::string& s) { return s.substr(0, s.find(" (")); };
  std::set<std::string> names;
  for (const auto& [k, v] : ma) names.insert(k);
  for (const auto& [k, v] : mb) names.insert(k);
  for (const std::string& n : names) {
    const auto x = ma.find(n), y = mb.find(n);
    const std::string va = x == ma.end() ? "" : x->second, vb = y == mb.end() ? "" : y->second;
    if (x == ma.end() || y == mb.end() || verdict_of(va) != verdict_of(vb)) out.push_back({n, va, vb});
  }
}

void diff_breakeven(const std::string& file, const CsvTable& a, const CsvTable& b, double tolerance,
                    std::vector<Change>& out) {
  struct Crossing {
    std::string kind;
    std::string text;
    double along_value;
  };
  const auto crossings = [](const CsvTable& t) {
    std::map<std::string, Crossing> m;
    const int kind = t.column("kind"), first = t.column("first"), second = t.column("second"),
              along = t.column("along"), along_value = t.column("along_value");
    for (const auto& row : t.rows) {
      std::string group;
      for (int c = 0; c < kind; ++c) {
        group += (group.empty() ? "" : ", ") + t.header[static_cast<std::size_t>(c)] + "=" + t.cell(row, c);
      }
      std::string key = (group.empty() ? "" : group + ": ") + t.cell(row, first) + " vs " + t.cell(row, second);
      // A group may cross more than once: number repeated keys in file order.
      for (int n = 2; m.count(key) != 0; ++n) key = key.substr(0, key.rfind(" #")) + " #" + std::to_string(n);
      const std::string value = t.cell(row, along_value);
      const std::string text = t.cell(row, kind) + (value.empty() ? "" : " at " + t.cell(row, along) + " = " + value);
      m.emplace(key, Crossing{t.cell(row, kind), text, parse_number(value)});
    }
    return m;
  };
  const auto ma = crossings(a), mb = crossings(b);
  std::set<std::string> keys;
  for (const auto& [k, v] : ma) keys.insert(k);
  for (const auto& [k, v] : mb) keys.insert(k);
  const std::string name =
      file.substr(std::string("breakeven_").size(), file.size() - std::string("breakeven_.csv").size());
  for (const std::string& k : keys) {
    const auto x = ma.find(k), y = mb.find(k);
    if (x == ma.end() || y == mb.end() || x->second.kind != y->second.kind ||
        changed_beyond(x->second.along_value, y->second.along_value, tolerance)) {
      out.push_back({name + ": " + k, x == ma.end() ? "" : x->second.text, y == mb.end() ? "" : y->second.text});
    }
  }
}

std::set<std::string> analysis_files(const std::string& dir) {
  std::set<std::string> files;
  std::error_code ec;
  for (const char* f : {"top_k.csv", "pareto.csv", "comparisons.csv"}) {
    if (fs::is_regular_file(fs::path(dir) / f, ec)) files.insert(f);
  }
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("breakeven_", 0) == 0 && name.size() > 14 && name.ends_with(".csv") &&
        !name.ends_with("_curves.csv") && it->is_regular_file(ec)) {
      files.insert(name);
    }
  }
  return files;
}

void diff_decisions(const Run& a, const Run& b, const RunDiffOptions& options, RunDiff& diff,
                    std::vector<std::string>& problems) {
  const auto fa = analysis_files(a.dir), fb = analysis_files(b.dir);
  for (const std::string& f : fa) {
    if (fb.count(f) == 0) diff.files_only_a.push_back(f);
  }
  for (const std::string& f : fb) {
    if (fa.count(f) == 0) diff.files_only_b.push_back(f);
  }
  for (const std::string& f : fa) {
    if (fb.count(f) == 0) continue;
    const auto ta = read_csv(fs::path(a.dir) / f), tb = read_csv(fs::path(b.dir) / f);
    if (!ta || !tb) {
      problems.push_back(fmt::format("cannot read {}", (fs::path(!ta ? a.dir : b.dir) / f).string()));
      continue;
    }
    diff.decisions_compared.push_back(f);
    if (f == "top_k.csv") {
      diff_top_k(*ta, *tb, options.tolerance, diff.top_k);
    } else if (f == "pareto.csv") {
      diff_pareto(*ta, *tb, diff.key_axes, diff.pareto);
    } else if (f == "comparisons.csv") {
      diff_comparisons(*ta, *tb, diff.comparisons);
    } else {
      diff_breakeven(f, *ta, *tb, options.tolerance, diff.breakeven);
    }
  }
}

}  // namespace

std::optional<RunDiff> diff_runs(const std::string& dir_a, const std::string& dir_b, const RunDiffOptions& options,
                                 std::vector<std::string>& problems) {
  auto a = open_run(dir_a, problems);
  auto b = open_run(dir_b, problems);
  if (!a || !b) return std::nullopt;
  RunDiff diff;
  diff.a = a->identity;
  diff.b = b->identity;
  diff.tolerance = options.tolerance;
  diff_yaml("", &a->study, &b->study, diff.study_changes);
  std::sort(diff.study_changes.begin(), diff.study_changes.end(),
            [](const Change& x, const Change& y) { return x.what < y.what; });
  diff_rows(*a, *b, options, diff);
  diff_decisions(*a, *b, options, diff, problems);
  if (!problems.empty()) return std::nullopt;
  return diff;
}

// ---- renderings ----

std::string shorten_diff_value(const std::string& s, std::size_t at) {
  return s.size() <= at ? s : s.substr(0, at) + "...";
}

std::string format_diff_number(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

std::string format_relative_change(double relative) {
  if (std::isinf(relative)) return relative > 0 ? "+inf" : "-inf";
  if (std::isnan(relative)) return "";
  return fmt::format("{:+.4g} %", relative * 100);
}

std::vector<DecisionSection> decision_sections(const RunDiff& d) {
  return {{"rank 1 per objective (top_k.csv)", &d.top_k},
          {"Pareto front (pareto.csv)", &d.pareto},
          {"comparisons (comparisons.csv)", &d.comparisons},
          {"break-even crossings (breakeven_*.csv)", &d.breakeven}};
}

std::vector<Change> identity_rows(const RunDiff& d) {
  return {{"study", d.a.study, d.b.study},
          {"study_hash", d.a.study_hash, d.b.study_hash},
          {"catalog_hash", d.a.catalog_hash, d.b.catalog_hash},
          {"dsx_version", d.a.dsx_version, d.b.dsx_version},
          {"git_revision", d.a.git_revision, d.b.git_revision},
          {"physics_fingerprint", d.a.physics_fingerprint, d.b.physics_fingerprint}};
}

namespace {

std::string quoted_or_none(const std::string& s) { return s.empty() ? "(none)" : s; }

}  // namespace

std::string run_diff_text(const RunDiff& d) {
  std::string out = fmt::format("A: {}\nB: {}\n\nidentity\n", d.a.dir, d.b.dir);
  for (const Change& c : identity_rows(d)) {
    out +=
        c.a == c.b ? fmt::format("  {:<13} {}\n", c.what, c.a) : fmt::format("  {:<13} {} -> {}\n", c.what, c.a, c.b);
  }
  out += fmt::format("\nresolved study: {}\n",
                     d.study_changes.empty() ? "no differences" : fmt::format("{} changed", d.study_changes.size()));
  for (const Change& c : d.study_changes) {
    out += fmt::format("  {}: {} -> {}\n", c.what, shorten_diff_value(quoted_or_none(c.a)),
                       shorten_diff_value(quoted_or_none(c.b)));
  }
  out += fmt::format(
      "\nrows (matched by {}): {} in A, {} in B; {} in both, {} only in A, {} only in B; {} changed "
      "status\n",
      fmt::join(d.key_axes, ", "), d.rows_a, d.rows_b, d.matched, d.only_a, d.only_b, d.status_changed);
  const auto examples = [&](const char* what, const std::vector<PointKey>& keys, std::uint64_t total) {
    if (keys.empty()) return;
    out += fmt::format("  only in {}{}:\n", what, total > keys.size() ? fmt::format(" (first {})", keys.size()) : "");
    for (const PointKey& k : keys) out += "    " + describe_point(d.key_axes, k) + "\n";
  };
  examples("A", d.only_a_examples, d.only_a);
  examples("B", d.only_b_examples, d.only_b);
  for (const auto& [what, n] : d.status_transitions) out += fmt::format("  {} rows: {}\n", n, what);
  for (const StatusChange& s : d.status_examples) {
    out += fmt::format("    {}: {} -> {}\n", describe_point(d.key_axes, s.point), status_text(s.a_status, s.a_detail),
                       status_text(s.b_status, s.b_detail));
  }
  if (!d.metrics_only_a.empty()) out += fmt::format("  metrics only in A: {}\n", fmt::join(d.metrics_only_a, ", "));
  if (!d.metrics_only_b.empty()) out += fmt::format("  metrics only in B: {}\n", fmt::join(d.metrics_only_b, ", "));

  std::size_t changed_metrics = 0;
  for (const MetricDiff& m : d.metrics) changed_metrics += m.changed != 0 ? 1 : 0;
  out += fmt::format("\nmetrics (rows ok in both; relative change (B - A) / |A|, tolerance {}): {} of {} changed\n",
                     d.tolerance, changed_metrics, d.metrics.size());
  for (const MetricDiff& m : d.metrics) {
    if (m.changed == 0) continue;
    out += fmt::format("  {}: {} of {} rows changed; largest:\n", m.name, m.changed, m.compared);
    for (const MetricChange& c : m.largest) {
      out += fmt::format("    {}: {} -> {} ({})\n", describe_point(d.key_axes, c.point), format_diff_number(c.a),
                         format_diff_number(c.b), format_relative_change(c.relative));
    }
  }
  out += "\ndecisions";
  out += d.decisions_compared.empty() ? " (no analysis file in both runs)\n"
                                      : fmt::format(" ({})\n", fmt::join(d.decisions_compared, ", "));
  for (const DecisionSection& s : decision_sections(d)) {
    if (s.changes->empty()) continue;
    out += fmt::format("  {}: {} changed\n", s.title, s.changes->size());
    for (const Change& c : *s.changes) {
      out += fmt::format("    {}: {} -> {}\n", c.what, quoted_or_none(c.a), quoted_or_none(c.b));
    }
  }
  if (!d.files_only_a.empty()) out += fmt::format("  only in A: {}\n", fmt::join(d.files_only_a, ", "));
  if (!d.files_only_b.empty()) out += fmt::format("  only in B: {}\n", fmt::join(d.files_only_b, ", "));
  out += d.differs() ? "\nthe runs differ\n" : "\nno differences\n";
  return out;
}

std::string run_diff_json(const RunDiff& d) {
  using J = nlohmann::ordered_json;
  const auto number = [](double v) { return std::isfinite(v) ? J(v) : J(nullptr); };
  const auto key = [&](const PointKey& k) {
    J o = J::object();
    for (std::size_t i = 0; i < d.key_axes.size() && i < k.size(); ++i) o[d.key_axes[i]] = k[i];
    return o;
  };
  const auto changes = [](const std::vector<Change>& v) {
    J a = J::array();
    for (const Change& c : v) a.push_back({{"what", c.what}, {"a", c.a}, {"b", c.b}});
    return a;
  };
  J out;
  out["differ"] = d.differs();
  out["tolerance"] = d.tolerance;
  out["runs"]["a"]["dir"] = d.a.dir;
  out["runs"]["b"]["dir"] = d.b.dir;
  for (const Change& c : identity_rows(d)) {
    out["runs"]["a"][c.what] = c.a;
    out["runs"]["b"][c.what] = c.b;
  }
  out["study_changes"] = changes(d.study_changes);
  J rows;
  rows["key_axes"] = d.key_axes;
  rows["a"] = d.rows_a;
  rows["b"] = d.rows_b;
  rows["matched"] = d.matched;
  rows["only_a"] = d.only_a;
  rows["only_b"] = d.only_b;
  rows["status_changed"] = d.status_changed;
  rows["only_a_examples"] = J::array();
  for (const PointKey& k : d.only_a_examples) rows["only_a_examples"].push_back(key(k));
  rows["only_b_examples"] = J::array();
  for (const PointKey& k : d.only_b_examples) rows["only_b_examples"].push_back(key(k));
  rows["status_transitions"] = J::object();
  for (const auto& [what, n] : d.status_transitions) rows["status_transitions"][what] = n;
  rows["status_examples"] = J::array();
  for (const StatusChange& s : d.status_examples) {
    rows["status_examples"].push_back({{"point", key(s.point)},
                                       {"a", {{"status", s.a_status}, {"detail", s.a_detail}}},
                                       {"b", {{"status", s.b_status}, {"detail", s.b_detail}}}});
  }
  out["rows"] = rows;
  out["metrics_only_a"] = d.metrics_only_a;
  out["metrics_only_b"] = d.metrics_only_b;
  out["metrics"] = J::array();
  for (const MetricDiff& m : d.metrics) {
    J jm = {{"metric", m.name}, {"compared", m.compared}, {"changed", m.changed}, {"largest", J::array()}};
    for (const MetricChange& c : m.largest) {
      jm["largest"].push_back(
          {{"point", key(c.point)}, {"a", number(c.a)}, {"b", number(c.b)}, {"relative_change", number(c.relative)}});
    }
    out["metrics"].push_back(jm);
  }
  J dec;
  dec["files_compared"] = d.decisions_compared;
  dec["files_only_a"] = d.files_only_a;
  dec["files_only_b"] = d.files_only_b;
  dec["top_k"] = changes(d.top_k);
  dec["pareto"] = changes(d.pareto);
  dec["comparisons"] = changes(d.comparisons);
  dec["breakeven"] = changes(d.breakeven);
  out["decisions"] = dec;
  return out.dump(2) + "\n";
}

}  // namespace dsx
