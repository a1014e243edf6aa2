// Checks that a run folder's report.md prints the numbers its CSV files hold: each break-even
// (breakeven_NAME.csv), each Pareto front and front per group (pareto.csv) and each decision's
// choice, values, margin and flips (sensitivity_NAME.csv). Each check parses the report's text and
// tables and the CSV files independently and compares every number at the precision the report
// prints it; it returns one message per disagreement, none when the report and the CSVs agree.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "dse/analysis/blocks.hpp"
#include "dse/diagnostics.hpp"
#include "dse/study.hpp"
#include "output/format.hpp"
#include "output/readable_label.hpp"

namespace agreement {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A CSV file (RFC 4180, as output/csv.cpp writes it): the header and the rows, each by column name.
struct CsvFile {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t column(const std::string& name) const {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  }
  bool has(const std::string& name) const { return column(name) < header.size(); }
  const std::string& at(std::size_t row, const std::string& name) const {
    static const std::string kNone;
    const std::size_t c = column(name);
    return c < rows[row].size() ? rows[row][c] : kNone;
  }
};

inline CsvFile read_csv(const fs::path& p) {
  CsvFile out;
  const std::string text = read_text(p);
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      records.push_back(fields);
      fields.assign(1, std::string());
    } else {
      fields.back() += c;
    }
  }
  if (fields.size() > 1 || !fields[0].empty()) records.push_back(fields);
  if (records.empty()) return out;
  out.header = records.front();
  out.rows.assign(records.begin() + 1, records.end());
  return out;
}

// Non-breaking spaces (U+00A0) as plain ones, and markdown's backslash escapes dropped.
inline std::string plain(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0') {
      out += ' ';
      ++i;
    } else if (text[i] == '\\' && i + 1 < text.size() && std::string_view("*_[]|#<>`").find(text[i + 1]) != std::string_view::npos) {
      continue;
    } else {
      out += text[i];
    }
  }
  return out;
}

inline std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(' ');
  return a == std::string::npos ? std::string() : s.substr(a, s.find_last_not_of(' ') + 1 - a);
}

// A CSV's label as the report prints it: the run's resolved study read back and each label put
// through the report's own dsx::readable_value, so a hardware id reads by its catalog name. The
// checks below compare the report's text with these words, and map a printed name back to its id
// by the same function.
class Words {
 public:
  explicit Words(const fs::path& run) {
    dsx::Diagnostics diags;
    study_ = dsx::load_study((run / "study.resolved.yaml").string(), "", diags);
  }
  std::string operator()(const std::string& param, const std::string& label) const {
    return study_ ? dsx::readable_value(*study_, param, label) : dsx::readable_label(label);
  }
  // A sensitivity input ("b200.price") as the report's tables name it.
  std::string input(const std::string& name) const { return study_ ? dsx::readable_input(*study_, name) : name; }
  // Each model of the run's catalog that has a name other than its id: {id, name}.
  std::vector<std::pair<std::string, std::string>> named_models() const {
    std::vector<std::pair<std::string, std::string>> out;
    if (study_) {
      for (const dsx::CatalogModel& m : study_->catalog.models) {
        if (!m.name.empty() && m.name != m.id) out.emplace_back(m.id, m.name);
      }
    }
    return out;
  }
  // The parameter a decision (sensitivity NAME) chooses among; empty when none.
  std::string decided(const std::string& name) const {
    if (!study_) return {};
    for (const dsx::SensitivityRequest& r : dsx::analyses_of(*study_).sensitivities) {
      if (r.name == name) return r.decide;
    }
    return {};
  }

 private:
  std::optional<dsx::ResolvedStudy> study_;
};

// A number as a report prints it, in SI units: its value and half a unit of its last printed digit.
struct Printed {
  double value = 0;
  double half_step = 0;
  std::string unit;  // what follows the number: "ms", "k USD", "%", "" for none
};

// "0.0561 USD", "+5.83 %", "1,344 tokens/s", "11.4001": the value in SI units and its printed
// step; nothing when the text does not start with a number. The report prints three significant
// digits at least, so an integer's trailing zeros past the third digit ("79,400", "12,000") are not
// significant. `unscaled`: the CSV counts in the printed unit (tflops_per_gpu in TFLOP/s).
inline std::optional<Printed> parse_printed(const std::string& cell, bool unscaled = false) {
  const std::string text = trim(plain(cell));
  std::size_t i = 0;
  double sign = 1;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    sign = text[i] == '-' ? -1 : 1;
    ++i;
  }
  std::string digits;
  int decimals = -1;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits += c;
      if (decimals >= 0) ++decimals;
    } else if (c == '.' && decimals < 0) {
      digits += c;
      decimals = 0;
    } else if (c != ',') {
      break;
    }
  }
  if (digits.empty() || digits == ".") return std::nullopt;
  int exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t used = 0;
    exponent = std::stoi(text.substr(i + 1), &used);
    i += 1 + used;
  }
  const std::string unit = trim(text.substr(i));
  const double scale = unscaled ? 1.0 : dsx::printed_unit_factor(unit);
  int insignificant = 0;
  if (decimals < 0) {
    const std::size_t last = digits.find_last_not_of('0');
    const int zeros = static_cast<int>(last == std::string::npos ? 0 : digits.size() - 1 - last);
    insignificant = std::max(0, std::min(zeros, static_cast<int>(digits.size()) - 3));
  }
  const double step = std::pow(10.0, -std::max(decimals, 0) + exponent + insignificant);
  return Printed{sign * std::stod(digits) * std::pow(10.0, exponent) * scale, 0.5 * step * scale, unit};
}

// Whether the printed text is `value` to the digits printed (a relative 1e-9 of slack for the
// conversion).
inline bool printed_equals(const std::string& text, double value, bool unscaled = false) {
  const auto p = parse_printed(text, unscaled);
  if (!p || !std::isfinite(value)) return false;
  return std::fabs(p->value - value) <= p->half_step * (1 + 1e-9) + 1e-9 * std::fabs(value);
}

inline bool printed_equals(const std::string& text, const std::string& csv_value, bool unscaled = false) {
  return !csv_value.empty() && printed_equals(text, std::stod(csv_value), unscaled);
}

// A metric the solvers count in TFLOP/s (tflops_per_gpu), not in FLOP/s.
inline bool counted_in_tflops(const std::string& metric) { return metric.find("tflops") != std::string::npos; }

// The text of the section that starts with `heading` ("\n## Pareto front\n"), to the next heading
// of the same or a higher level; empty when there is none.
inline std::string section(const std::string& report, const std::string& heading) {
  const std::size_t at = report.find(heading);
  if (at == std::string::npos) return {};
  const std::size_t level = heading.find(' ') - 1;  // the '#'s after the leading newline
  std::size_t end = at + heading.size();
  for (;;) {
    end = report.find("\n#", end);
    if (end == std::string::npos) break;
    std::size_t hashes = 0;
    while (end + 1 + hashes < report.size() && report[end + 1 + hashes] == '#') ++hashes;
    if (hashes <= level && report[end + 1 + hashes] == ' ') break;
    ++end;
  }
  return report.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The first markdown table after `from` in `text`: its header cells and its rows' cells.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

inline std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(trim(plain(cell)));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

inline std::optional<Table> table_after(const std::string& text, std::size_t from = 0) {
  const std::size_t at = text.find("\n| ", from);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream lines(text.substr(at + 1));
  std::string line;
  Table t;
  std::getline(lines, line);
  t.header = cells_of(line);
  std::getline(lines, line);  // |---|...
  while (std::getline(lines, line) && line.rfind("| ", 0) == 0) t.rows.push_back(cells_of(line));
  return t;
}

// The study's objectives (metric names) in the order study.resolved.yaml lists them.
inline std::vector<std::string> objectives_of(const fs::path& run) {
  std::vector<std::string> out;
  std::istringstream lines(read_text(run / "study.resolved.yaml"));
  bool inside = false;
  static const std::regex kEntry(R"(^\s*-\s*\{?\s*metric:\s*([A-Za-z0-9_]+))");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("objectives:", 0) == 0) {
      inside = true;
      continue;
    }
    if (inside && !line.empty() && line[0] != ' ' && line[0] != '-') break;
    std::smatch m;
    if (inside && std::regex_search(line, m, kEntry)) out.push_back(m[1].str());
  }
  return out;
}

inline std::vector<fs::path> files_like(const fs::path& run, const std::string& prefix, const std::string& exclude) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(run)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".csv" &&
        (exclude.empty() || name.find(exclude) == std::string::npos)) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The "### " section of an analysis: the one whose text links its CSV ("(breakeven_NAME.csv)");
// headings name analyses in words, so the file is what ties a section to its rows.
inline std::string section_linking(const std::string& report, const std::string& file) {
  const std::size_t link = report.find("(" + file + ")");
  if (link == std::string::npos) return {};
  const std::size_t at = report.rfind("\n### ", link);
  if (at == std::string::npos) return {};
  const std::string from = report.substr(at);
  return section(from, from.substr(0, from.find('\n', 1)));
}

// Each row of every breakeven_NAME.csv: its statement is printed in the section that links the CSV (in its group's
// bullet when grouped), the Answer prints the first group's statements, and a crossing's along value
// and metric read in the statement and in its group's figure caption equal the CSV's.
inline std::vector<std::string> breakeven_disagreements(const fs::path& run) {
  std::vector<std::string> out;
  const std::string report = plain(read_text(run / "report.md"));
  const std::string answer = section(report, "\n## Answer\n");
  const Words words(run);
  for (const fs::path& file : files_like(run, "breakeven_", "_curves")) {
    const std::string name = file.stem().string().substr(std::string("breakeven_").size());
    const CsvFile csv = read_csv(file);
    const std::string text = section_linking(report, "breakeven_" + name + ".csv");
    if (text.empty()) {
      out.push_back(name + ": no section linking breakeven_" + name + ".csv in report.md");
      continue;
    }
    const std::vector<std::string> group_columns(csv.header.begin(),
                                                 csv.header.begin() + static_cast<long>(std::min(csv.column("kind"), csv.header.size())));
    // The groups in the order the CSV lists them; the figures follow the same order.
    std::vector<std::string> groups;
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      std::string label;
      for (const std::string& g : group_columns) label += (label.empty() ? "" : ", ") + g + " = " + words(g, csv.at(r, g));
      if (std::find(groups.begin(), groups.end(), label) == groups.end()) groups.push_back(label);
    }
    std::vector<std::string> captions;  // the "Crossings: ..." of each figure
    for (std::size_t p = text.find("\n*Figure "); p != std::string::npos; p = text.find("\n*Figure ", p + 1)) {
      captions.push_back(text.substr(p, text.find('\n', p + 1) - p));
    }
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      const std::string statement = plain(csv.at(r, "statement"));
      std::string label;
      for (const std::string& g : group_columns) label += (label.empty() ? "" : ", ") + g + " = " + words(g, csv.at(r, g));
      const std::size_t group = static_cast<std::size_t>(std::find(groups.begin(), groups.end(), label) - groups.begin());
      const std::string bullet_start = label.empty() ? "\n- " : "\n- **" + label + "**: ";
      const std::size_t bullet_at = text.find(bullet_start);
      const std::string bullet =
          bullet_at == std::string::npos ? std::string() : text.substr(bullet_at, text.find('\n', bullet_at + 1) - bullet_at);
      if (bullet.find(statement) == std::string::npos) {
        out.push_back(name + ": \"" + statement + "\" not in the report's bullet" + (label.empty() ? "" : " for " + label) +
                      ": " + bullet);
      }
      if (group == 0 && answer.find(statement) == std::string::npos) {
        out.push_back(name + ": \"" + statement + "\" not in the Answer");
      }
      if (csv.at(r, "kind") == "none") continue;
      // "(break-even at 11.4001; 0.0561 USD for both there)"
      static const std::regex kNumbers(R"(break-even at ([^;]+); ([^)]+?) for both there\))");
      std::smatch m;
      if (std::regex_search(bullet, m, kNumbers) && csv.at(r, "kind") == "root") {
        bool along_found = false, metric_found = false;
        for (auto it = std::sregex_iterator(bullet.begin(), bullet.end(), kNumbers); it != std::sregex_iterator(); ++it) {
          along_found |= printed_equals((*it)[1].str(), csv.at(r, "along_value"));
          metric_found |= printed_equals((*it)[2].str(), csv.at(r, "metric_first")) &&
                          printed_equals((*it)[2].str(), csv.at(r, "metric_second"));
        }
        if (!along_found) out.push_back(name + ": no break-even at " + csv.at(r, "along_value") + " printed in: " + bullet);
        if (!metric_found) out.push_back(name + ": no metric of " + csv.at(r, "metric_first") + " at a break-even in: " + bullet);
      }
      if (csv.at(r, "along_value").empty()) continue;
      // The group's figure caption: "Crossings: batch = 11.4; batch = 48.8."
      bool in_caption = false;
      if (group < captions.size()) {
        const std::string& caption = captions[group];
        const std::size_t c = caption.find("Crossings: ");
        if (c != std::string::npos) {
          std::string list = caption.substr(c + 11);
          if (!list.empty() && list.back() == '.') list.pop_back();
          std::istringstream items(list);
          for (std::string item; std::getline(items, item, ';');) {
            const std::size_t eq = item.find(" = ");
            if (eq != std::string::npos && printed_equals(item.substr(eq + 3), csv.at(r, "along_value"))) in_caption = true;
          }
        }
      }
      if (!in_caption) {
        out.push_back(name + ": the crossing at " + csv.at(r, "along_value") + " is not in its figure's caption" +
                      (group < captions.size() ? ": " + captions[group] : std::string(" (no figure)")));
      }
    }
    // Every "break-even at" the report prints is a row of the CSV.
    static const std::regex kAt(R"(break-even at ([0-9.,e+-]+))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kAt); it != std::sregex_iterator(); ++it) {
      bool known = false;
      for (std::size_t r = 0; r < csv.rows.size(); ++r) known |= printed_equals((*it)[1].str(), csv.at(r, "along_value"));
      if (!known) out.push_back(name + ": the report prints a break-even at " + (*it)[1].str() + " that the CSV lacks");
    }
  }
  return out;
}

// The "## Pareto front" table lists pareto.csv's rows (all of them, or the first N when it says
// so), each with the objectives' values of its CSV row; "### Fronts per group" counts each group's
// kept front as pareto.csv does and names a knee that is one of its rows, with its values.
inline std::vector<std::string> pareto_disagreements(const fs::path& run) {
  std::vector<std::string> out;
  if (!fs::exists(run / "pareto.csv")) return out;
  const std::string report = plain(read_text(run / "report.md"));
  const std::string text = section(report, "\n## Pareto front\n");
  const CsvFile csv = read_csv(run / "pareto.csv");
  if (text.empty()) return {"no \"## Pareto front\" section in report.md"};
  const std::vector<std::string> objectives = objectives_of(run);
  const Words words(run);
  const std::optional<Table> table = csv.rows.empty() ? std::nullopt : table_after(text.substr(0, text.find("\n### ")));
  if (!csv.rows.empty() && (!table || table->header.size() <= objectives.size())) {
    return {"pareto.csv has " + std::to_string(csv.rows.size()) + " rows, the report no front table"};
  }
  if (csv.rows.empty()) return out;
  const std::size_t axes = table->header.size() - objectives.size();
  for (std::size_t a = 0; a < axes; ++a) {
    if (!csv.has(table->header[a])) out.push_back("the front table's column " + table->header[a] + " is not in pareto.csv");
  }
  for (const std::string& o : objectives) {
    if (!csv.has(o)) out.push_back("objective " + o + " is not a column of pareto.csv");
  }
  if (!out.empty()) return out;
  const auto key_of_row = [&](std::size_t r) {
    std::string key;
    for (std::size_t a = 0; a < axes; ++a) key += (a == 0 ? "" : ", ") + table->header[a] + " = " + words(table->header[a], csv.at(r, table->header[a]));
    return key;
  };
  std::map<std::string, std::size_t> by_key;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) by_key[key_of_row(r)] = r;
  const bool truncated = text.find("; pareto.csv holds them all.") != std::string::npos;
  std::set<std::size_t> listed;
  for (const std::vector<std::string>& cells : table->rows) {
    if (cells.size() != table->header.size()) {
      out.push_back("a front row has " + std::to_string(cells.size()) + " cells, the header " + std::to_string(table->header.size()));
      continue;
    }
    std::string key;
    for (std::size_t a = 0; a < axes; ++a) key += (a == 0 ? "" : ", ") + table->header[a] + " = " + cells[a];
    const auto it = by_key.find(key);
    if (it == by_key.end()) {
      out.push_back("the front table lists " + key + ", which pareto.csv does not");
      continue;
    }
    listed.insert(it->second);
    for (std::size_t o = 0; o < objectives.size(); ++o) {
      if (!printed_equals(cells[axes + o], csv.at(it->second, objectives[o]), counted_in_tflops(objectives[o]))) {
        out.push_back(key + ": the report prints " + objectives[o] + " = " + cells[axes + o] + ", pareto.csv holds " +
                      csv.at(it->second, objectives[o]));
      }
    }
  }
  if (!truncated && listed.size() != csv.rows.size()) {
    out.push_back("the front table lists " + std::to_string(listed.size()) + " of pareto.csv's " + std::to_string(csv.rows.size()) + " rows");
  }
  // "N design points are Pareto-optimal": pareto.csv's count.
  std::istringstream count_text(text.substr(text.find('\n', 2) + 1));
  std::string first_word;
  count_text >> first_word;
  if (const auto n = parse_printed(first_word); n && text.find("Pareto-optimal") != std::string::npos &&
                                                 std::lround(n->value) != static_cast<long>(csv.rows.size())) {
    out.push_back("the report counts " + first_word + " Pareto-optimal points, pareto.csv " + std::to_string(csv.rows.size()));
  }
  // The fronts per group.
  const std::string groups_text = section(text, "\n### Fronts per group\n");
  if (groups_text.empty()) return out;
  const std::optional<Table> groups = table_after(groups_text);
  if (!groups) return {"\"### Fronts per group\" has no table"};
  const std::size_t kept = static_cast<std::size_t>(std::find(groups->header.begin(), groups->header.end(), "front kept") - groups->header.begin());
  const std::size_t knee = static_cast<std::size_t>(std::find(groups->header.begin(), groups->header.end(), "knee") - groups->header.begin());
  std::size_t kept_total = 0;
  for (const std::vector<std::string>& cells : groups->rows) {
    if (cells.size() != groups->header.size() || kept >= cells.size()) continue;
    // "model = ResNet-50" or "a = x, b = y": the pareto.csv rows of that group.
    std::size_t in_group = 0;
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      bool member = true;
      // Split at ", name = " only: a value (a model's catalog name) may hold commas itself.
      static const std::regex kAssignment("(?:^|, )([a-z_][a-z0-9_]*) = ");
      const std::string& key = cells[0];
      std::vector<std::smatch> found(std::sregex_iterator(key.begin(), key.end(), kAssignment), std::sregex_iterator());
      for (std::size_t k = 0; k < found.size(); ++k) {
        const std::string param = found[k][1].str();
        const std::size_t from = static_cast<std::size_t>(found[k].position(0) + found[k].length(0));
        const std::size_t to = k + 1 < found.size() ? static_cast<std::size_t>(found[k + 1].position(0)) : key.size();
        member &= csv.has(param) && words(param, csv.at(r, param)) == trim(key.substr(from, to - from));
      }
      in_group += member ? 1 : 0;
    }
    kept_total += in_group;
    if (cells[kept] != std::to_string(in_group)) {
      out.push_back(cells[0] + ": the report keeps " + cells[kept] + " front points, pareto.csv holds " + std::to_string(in_group));
    }
    if (knee < cells.size() && cells[knee] != "n/a" && cells[knee] != "none" && !cells[knee].empty()) {
      // "hardware = mi300x, model = resnet50, batch = 16 (0.0183 USD, 1.54 ms)"
      const std::string& k = cells[knee];
      const std::size_t open = k.rfind(" (");
      const auto it = by_key.find(k.substr(0, open));
      if (it == by_key.end()) {
        out.push_back(cells[0] + ": the knee " + k + " is not a row of pareto.csv");
        continue;
      }
      std::vector<std::string> values;
      std::istringstream list(k.substr(open + 2, k.size() - open - 3));
      for (std::string v; std::getline(list, v, ',');) {
        if (!values.empty() && !v.empty() && v[0] != ' ') {
          values.back() += "," + v;  // a thousands separator
        } else {
          values.push_back(v);
        }
      }
      for (std::size_t o = 0; o < objectives.size() && o < values.size(); ++o) {
        if (!printed_equals(values[o], csv.at(it->second, objectives[o]), counted_in_tflops(objectives[o]))) {
          out.push_back(cells[0] + ": the knee's " + objectives[o] + " reads " + values[o] + ", pareto.csv holds " +
                        csv.at(it->second, objectives[o]));
        }
      }
    }
  }
  if (kept_total != csv.rows.size()) {
    out.push_back("the groups keep " + std::to_string(kept_total) + " front points, pareto.csv holds " + std::to_string(csv.rows.size()));
  }
  return out;
}

// Each sensitivity_NAME.csv with a decision: the Decision paragraph names its `choice` row and
// prints every alternative's value; the flip table prints each input's smallest rise and fall (or the
// limit scanned); the Answer names the choice, its value, the runner-up, the margin between their
// CSV values and the nearest flip.
inline std::vector<std::string> decision_disagreements(const fs::path& run) {
  std::vector<std::string> out;
  const std::string report = plain(read_text(run / "report.md"));
  const std::string answer = section(report, "\n## Answer\n");
  const Words words(run);
  for (const fs::path& file : files_like(run, "sensitivity_", "")) {
    const std::string name = file.stem().string().substr(std::string("sensitivity_").size());
    const CsvFile csv = read_csv(file);
    // An alternative's id (the CSV's) as the report names it, and a printed name back to its id.
    const std::string decided = words.decided(name);
    std::map<std::string, std::string> id_of;
    const auto shown = [&](const std::string& id) {
      const std::string w = words(decided, id);
      id_of[w] = id;
      return w;
    };
    std::string choice;
    std::map<std::string, std::string> values;  // alternative -> its metric at the base point
    std::vector<std::string> order;
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      const std::string& kind = csv.at(r, "analysis");
      if (kind != "choice" && kind != "alternative") continue;
      if (kind == "choice") choice = csv.at(r, "input");
      values[csv.at(r, "input")] = csv.at(r, "nominal");
      order.push_back(csv.at(r, "input"));
    }
    bool has_flips = false;
    for (std::size_t r = 0; r < csv.rows.size(); ++r) has_flips |= csv.at(r, "analysis") == "flip";
    if (!has_flips) continue;
    for (const std::string& a : order) shown(a);
    if (choice.empty()) {
      out.push_back(name + ": sensitivity_" + name + ".csv has flips but no choice row");
      continue;
    }
    const std::string text = section_linking(report, "sensitivity_" + name + ".csv");
    const std::size_t intro_at = text.find("\nDecision: among ");
    if (intro_at == std::string::npos) {
      out.push_back(name + ": no Decision paragraph in the section linking sensitivity_" + name + ".csv");
      continue;
    }
    const std::string intro = text.substr(intro_at + 1, text.find('\n', intro_at + 1) - intro_at - 1);
    const std::size_t is_choice = intro.find(" is the choice: ");
    if (is_choice == std::string::npos || intro.rfind(" " + shown(choice), is_choice) != is_choice - shown(choice).size() - 1) {
      out.push_back(name + ": the Decision does not name " + shown(choice) + " as the choice: " + intro);
    }
    if (is_choice != std::string::npos) {
      const std::string list = intro.substr(is_choice + 16, intro.find(". ", is_choice) - is_choice - 16);
      std::size_t start = 0;
      std::size_t matched = 0;
      while (start < list.size()) {
        const std::size_t end = std::min(list.find(", ", start), list.size());
        const std::string item = list.substr(start, end - start);
        std::string alt;  // the longest alternative name the item starts with ("1 kB 136 µs")
        for (const auto& [a, v] : values) {
          if (item.rfind(shown(a) + " ", 0) == 0 && shown(a).size() > (alt.empty() ? 0 : shown(alt).size())) alt = a;
        }
        if (!alt.empty() && !values[alt].empty()) {
          ++matched;
          if (!printed_equals(item.substr(shown(alt).size() + 1), values[alt])) {
            out.push_back(name + ": the Decision prints " + item + ", the CSV holds " + values[alt]);
          }
        }
        start = end + 2;
      }
      std::size_t finite = 0;
      for (const auto& [alt, v] : values) finite += v.empty() ? 0 : 1;
      if (matched < finite) out.push_back(name + ": the Decision lists " + std::to_string(matched) + " of the CSV's " + std::to_string(finite) + " alternatives");
    }
    // The flip table: | input | base value | smallest rise ... | smallest fall ... |
    const std::optional<Table> flips = table_after(text, intro_at);
    std::size_t flip_rows = 0;
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      if (csv.at(r, "analysis") != "flip") continue;
      ++flip_rows;
      const std::string& input = csv.at(r, "input");
      const std::vector<std::string>* row = nullptr;
      if (flips) {
        for (const auto& cells : flips->rows) {
          if (!cells.empty() && cells[0] == words.input(input) && cells.size() >= 4) row = &cells;
        }
      }
      if (row == nullptr) {
        out.push_back(name + ": no flip table row for " + input);
        continue;
      }
      for (const auto& [column, limit, cell] : {std::tuple{"flip_up", "flip_limit_up", (*row)[2]}, std::tuple{"flip_down", "flip_limit_down", (*row)[3]}}) {
        const std::string& change = csv.at(r, column);
        const std::string& bound = csv.at(r, limit);
        bool ok;
        if (!change.empty()) {
          ok = printed_equals(cell, change);
        } else if (!bound.empty() && std::stod(bound) == 0) {
          ok = cell == "cannot change this way";
        } else {
          ok = cell.rfind("none up to ", 0) == 0 && printed_equals(cell.substr(11), bound);
        }
        if (!ok) out.push_back(name + ": " + input + " " + column + " prints " + cell + ", the CSV holds " + (change.empty() ? "no flip up to " + bound : change));
      }
    }
    // The flip sentences: "- b200 stops having ... if the price of b200 rises 5.83 % (h100_sxm takes
    // over)." One per flip the CSV found, with its change and its new choice.
    {
      static const std::regex kSentence(R"(\n- .* (rises|falls) ([0-9.,]+ %) \((.+?) takes over\)\.)");
      std::vector<std::tuple<bool, std::string, std::string>> printed;  // rises?, change, new choice
      const std::string bullets = text.substr(intro_at, flips ? text.find("\n| ", intro_at) - intro_at : std::string::npos);
      for (auto it = std::sregex_iterator(bullets.begin(), bullets.end(), kSentence); it != std::sregex_iterator(); ++it) {
        printed.emplace_back((*it)[1].str() == "rises", (*it)[2].str(), (*it)[3].str());
      }
      std::size_t found = 0;
      for (std::size_t r = 0; r < csv.rows.size(); ++r) {
        if (csv.at(r, "analysis") != "flip") continue;
        for (const auto& [column, taker] : {std::pair{"flip_up", "flip_up_new_best"}, std::pair{"flip_down", "flip_down_new_best"}}) {
          const std::string& change = csv.at(r, column);
          if (change.empty()) continue;
          ++found;
          const bool up = std::stod(change) > 0;
          const bool matched = std::any_of(printed.begin(), printed.end(), [&](const auto& p) {
            return std::get<0>(p) == up && printed_equals(std::get<1>(p), std::fabs(std::stod(change))) &&
                   std::get<2>(p) == shown(csv.at(r, taker));
          });
          if (!matched) out.push_back(name + ": no sentence says " + csv.at(r, "input") + " " + column + " " + change + " hands it to " + csv.at(r, taker));
        }
      }
      if (printed.size() != found) {
        out.push_back(name + ": " + std::to_string(printed.size()) + " flip sentences, the CSV has " + std::to_string(found) + " flips");
      }
    }
    // The Answer: "- **NAME**: CHOICE is the choice for the ..., VALUE; next is NEXT at VALUE (M % higher)."
    // Its label is the section's heading, lower-cased at its first letter unless the study wrote it.
    std::string label = text.substr(text.find("### ") + 4);
    label = label.substr(0, label.find('\n'));
    std::size_t line_at = answer.find("\n- **" + label + "**: ");
    if (line_at == std::string::npos && !label.empty()) {
      label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
      line_at = answer.find("\n- **" + label + "**: ");
    }
    if (line_at == std::string::npos) {
      out.push_back(name + ": the Answer has no line labelled as its section, " + label);
      continue;
    }
    const std::string line = answer.substr(line_at + 1, answer.find('\n', line_at + 1) - line_at - 1);
    const std::string lead = "- **" + label + "**: " + shown(choice) + " is the choice for the ";
    if (line.rfind(lead, 0) != 0) out.push_back(name + ": the Answer does not name " + choice + ": " + line);
    // The choice's value ends the text before "; next is", after its last ", " (a thousands
    // separator has no space after it).
    static const std::regex kNext(R"(^; next is (.+?) at ([^(]+) \(([0-9.,]+ %) (higher|lower)\))");
    const std::size_t next_at = line.find("; next is ");
    std::smatch m;
    const std::string after = next_at == std::string::npos ? std::string() : line.substr(next_at);
    if (next_at == std::string::npos || !std::regex_search(after, m, kNext)) {
      out.push_back(name + ": the Answer states no runner-up and margin: " + line);
      continue;
    }
    const std::string before = line.substr(0, next_at);
    const std::string choice_value = before.substr(before.rfind(", ") + 2);
    const std::string next = id_of.count(m[1].str()) != 0 ? id_of[m[1].str()] : m[1].str();
    if (!printed_equals(choice_value, values[choice])) out.push_back(name + ": the Answer prints the choice at " + choice_value + ", the CSV " + values[choice]);
    if (values.count(next) == 0 || !printed_equals(m[2].str(), values[next])) {
      out.push_back(name + ": the Answer prints " + next + " at " + m[2].str() + ", the CSV " + (values.count(next) ? values[next] : "has no such alternative"));
      continue;
    }
    const double best = std::stod(values[choice]);
    const bool higher = m[4].str() == "higher";
    std::string runner_up;
    double runner_value = 0;
    for (const std::string& alt : order) {
      if (alt == choice || values[alt].empty()) continue;
      const double v = std::stod(values[alt]);
      if (runner_up.empty() || (higher ? v < runner_value : v > runner_value)) {
        runner_up = alt;
        runner_value = v;
      }
    }
    if (next != runner_up) out.push_back(name + ": the Answer's next is " + next + ", the CSV's runner-up " + runner_up);
    if (!printed_equals(m[3].str(), std::fabs(runner_value - best) / std::fabs(best))) {
      out.push_back(name + ": the Answer's margin " + m[3].str() + " is not |" + values[runner_up] + " - " + values[choice] + "| / " + values[choice]);
    }
    // The nearest flip: the smallest |change| of the CSV's flips.
    double nearest = 0;
    std::string taker;
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      if (csv.at(r, "analysis") != "flip") continue;
      for (const auto& [column, best_column] : {std::pair{"flip_up", "flip_up_new_best"}, std::pair{"flip_down", "flip_down_new_best"}}) {
        if (csv.at(r, column).empty()) continue;
        const double v = std::stod(csv.at(r, column));
        if (taker.empty() || std::fabs(v) < std::fabs(nearest)) {
          nearest = v;
          taker = csv.at(r, best_column).empty() ? "?" : csv.at(r, best_column);
        }
      }
    }
    static const std::regex kFlip(R"(The nearest flip: if .* (rises|falls) ([0-9.,]+ %), (.+?) takes over\.)");
    std::smatch f;
    if (taker.empty()) {
      if (flip_rows > 0 && line.find("No single input scanned changes it") == std::string::npos) {
        out.push_back(name + ": the CSV has no flip, the Answer says: " + line);
      }
    } else if (!std::regex_search(line, f, kFlip)) {
      out.push_back(name + ": the CSV's nearest flip is " + std::to_string(nearest) + " to " + taker + ", the Answer says: " + line);
    } else if (!printed_equals(f[2].str(), std::fabs(nearest)) || (f[1].str() == "rises") != (nearest > 0) ||
               f[3].str() != (taker == "?" ? taker : shown(taker))) {
      out.push_back(name + ": the Answer's nearest flip (" + f[1].str() + " " + f[2].str() + ", " + f[3].str() +
                    ") is not the CSV's " + std::to_string(nearest) + " to " + taker);
    }
  }
  return out;
}

// report.html prints the same break-even statements and the same decisions' runner-up and margin
// as report.md (both are rendered from one context; this catches a template that diverges).
inline std::vector<std::string> html_disagreements(const fs::path& run) {
  std::vector<std::string> out;
  if (!fs::exists(run / "report.html")) return out;
  const std::string html = plain(read_text(run / "report.html"));
  const auto escaped = [](const std::string& text) {
    std::string e;
    for (char c : text) {
      if (c == '&') e += "&amp;";
      else if (c == '<') e += "&lt;";
      else if (c == '>') e += "&gt;";
      else e += c;
    }
    return e;
  };
  const auto holds = [&](const std::string& text) {
    return html.find(text) != std::string::npos || html.find(escaped(text)) != std::string::npos;
  };
  for (const fs::path& file : files_like(run, "breakeven_", "_curves")) {
    const CsvFile csv = read_csv(file);
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      const std::string statement = plain(csv.at(r, "statement"));
      if (!holds(statement)) out.push_back(file.filename().string() + ": report.html lacks \"" + statement + "\"");
    }
  }
  const std::string answer = section(plain(read_text(run / "report.md")), "\n## Answer\n");
  static const std::regex kNext(R"(next is [^(]+ \([0-9.,]+ % (higher|lower)\))");
  for (auto it = std::sregex_iterator(answer.begin(), answer.end(), kNext); it != std::sregex_iterator(); ++it) {
    if (!holds(it->str())) out.push_back("report.html lacks the Answer's \"" + it->str() + "\"");
  }
  return out;
}

// A Markdown table row's cells as the reader sees their text: a backslash escape as its character,
// code spans without their backticks, strong emphasis without its asterisks, a link as its text,
// non-breaking spaces as plain ones.
inline std::vector<std::string> markdown_row_text(const std::string& line) {
  static const std::regex kLink(R"((^|[^\\])\[([^\]]*)\]\([^)]*\))");
  const std::string text = std::regex_replace(line, kLink, "$1$2");
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && std::ispunct(static_cast<unsigned char>(text[i + 1])) != 0) {
      cell += text[++i];
    } else if (c == '|') {
      cells.push_back(trim(plain(cell)));
      cell.clear();
    } else if (c == '`') {
      continue;
    } else if (c == '*' && i + 1 < text.size() && text[i + 1] == '*') {
      ++i;
    } else {
      cell += c;
    }
  }
  return cells;
}

// Just the inline markup of one cell (markdown_row_text's rules), for a test of them.
inline std::string markdown_cell_text(const std::string& cell) {
  const std::vector<std::string> cells = markdown_row_text("| " + cell + " |");
  return cells.empty() ? std::string() : cells.front();
}

// An HTML cell's text: its tags dropped, its character references decoded, its non-breaking
// spaces plain.
inline std::string html_cell_text(const std::string& html) {
  std::string text;
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '<') {
      const std::size_t close = html.find('>', i);
      if (close == std::string::npos) break;
      i = close;
      continue;
    }
    if (html[i] == '&') {
      const std::size_t semi = html.find(';', i);
      const std::string name = semi == std::string::npos ? "" : html.substr(i + 1, semi - i - 1);
      static const std::map<std::string, std::string> kNamed = {
          {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"#39", "'"}, {"apos", "'"}, {"nbsp", " "}};
      if (const auto it = kNamed.find(name); it != kNamed.end()) {
        text += it->second;
        i = semi;
        continue;
      }
      if (name.size() > 1 && name[0] == '#') {
        const unsigned long code = name[1] == 'x' || name[1] == 'X' ? std::stoul(name.substr(2), nullptr, 16) : std::stoul(name.substr(1));
        // UTF-8 of the code point.
        if (code < 0x80) {
          text += static_cast<char>(code);
        } else if (code < 0x800) {
          text += static_cast<char>(0xC0 | (code >> 6));
          text += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          text += static_cast<char>(0xE0 | (code >> 12));
          text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          text += static_cast<char>(0x80 | (code & 0x3F));
        }
        i = semi;
        continue;
      }
    }
    text += html[i];
  }
  std::string out;
  for (char c : plain(text)) {
    if (c == '\n') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return trim(out);
}

// Every table of report.md, in order: its rows (the header first), each row's cells as text.
using CellTable = std::vector<std::vector<std::string>>;
inline std::vector<CellTable> markdown_tables(const std::string& md) {
  std::vector<CellTable> out;
  std::istringstream lines(md);
  std::string line;
  bool inside = false;
  for (std::string prior; std::getline(lines, line); prior = line) {
    const bool row = line.rfind("| ", 0) == 0 || line.rfind("|-", 0) == 0 || line.rfind("|:", 0) == 0;
    if (!row) {
      inside = false;
      continue;
    }
    if (line.rfind("|-", 0) == 0 || line.rfind("|:", 0) == 0) {
      // The separator: the line before it is the header of a new table.
      out.emplace_back();
      out.back().push_back(markdown_row_text(prior));
      inside = true;
      continue;
    }
    if (!inside) continue;
    out.back().push_back(markdown_row_text(line));
  }
  return out;
}

// Every <table> of report.html, in order, read the same way.
inline std::vector<CellTable> html_tables(const std::string& html) {
  std::vector<CellTable> out;
  for (std::size_t t = html.find("<table"); t != std::string::npos; t = html.find("<table", t + 1)) {
    const std::size_t end = html.find("</table>", t);
    const std::string table = html.substr(t, end == std::string::npos ? std::string::npos : end - t);
    CellTable rows;
    for (std::size_t r = table.find("<tr"); r != std::string::npos; r = table.find("<tr", r + 1)) {
      const std::size_t row_end = table.find("</tr>", r);
      const std::string row = table.substr(r, row_end == std::string::npos ? std::string::npos : row_end - r);
      std::vector<std::string> cells;
      for (std::size_t c = row.find("<t", 3); c != std::string::npos; c = row.find("<t", c + 1)) {
        if (row.compare(c, 3, "<td") != 0 && row.compare(c, 3, "<th") != 0) continue;
        const std::size_t open_end = row.find('>', c);
        const std::string closing = row.compare(c, 3, "<td") == 0 ? "</td>" : "</th>";
        const std::size_t close = row.find(closing, open_end);
        cells.push_back(html_cell_text(row.substr(open_end + 1, close - open_end - 1)));
        c = close;
      }
      rows.push_back(cells);
    }
    out.push_back(rows);
  }
  return out;
}

// Each table of report.html holds, cell by cell, the text of the same table of report.md (both are
// rendered from one context; a template or a table pass that changes a value is caught here).
inline std::vector<std::string> html_table_disagreements(const fs::path& run) {
  std::vector<std::string> out;
  if (!fs::exists(run / "report.html")) return out;
  const std::vector<CellTable> md = markdown_tables(read_text(run / "report.md"));
  const std::vector<CellTable> html = html_tables(read_text(run / "report.html"));
  if (md.size() != html.size()) {
    out.push_back("report.md has " + std::to_string(md.size()) + " tables, report.html " + std::to_string(html.size()));
  }
  for (std::size_t t = 0; t < std::min(md.size(), html.size()); ++t) {
    const std::string where = "table " + std::to_string(t + 1) + " (" + (md[t].empty() || md[t][0].empty() ? "" : md[t][0][0]) + ")";
    if (md[t].size() != html[t].size()) {
      out.push_back(where + ": " + std::to_string(md[t].size()) + " rows in report.md, " + std::to_string(html[t].size()) + " in report.html");
      continue;
    }
    for (std::size_t r = 0; r < md[t].size(); ++r) {
      if (md[t][r].size() != html[t][r].size()) {
        out.push_back(where + " row " + std::to_string(r) + ": " + std::to_string(md[t][r].size()) + " cells in report.md, " +
                      std::to_string(html[t][r].size()) + " in report.html");
        continue;
      }
      for (std::size_t c = 0; c < md[t][r].size(); ++c) {
        if (md[t][r][c] != html[t][r][c]) {
          out.push_back(where + " row " + std::to_string(r) + " cell " + std::to_string(c + 1) + ": report.md \"" + md[t][r][c] +
                        "\", report.html \"" + html[t][r][c] + "\"");
        }
      }
    }
  }
  return out;
}

inline std::vector<std::string> all_disagreements(const fs::path& run) {
  std::vector<std::string> out = breakeven_disagreements(run);
  for (auto& v : {pareto_disagreements(run), decision_disagreements(run), html_disagreements(run), html_table_disagreements(run)}) {
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace agreement
