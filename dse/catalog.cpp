#include "dse/catalog.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "dse/catalog_accuracy.hpp"
#include "dse/quantity.hpp"
#include "dse/yaml_reader.hpp"
#include "engine/model_builders.hpp"
#include "engine/registry.hpp"
#include "engine/torus.hpp"

namespace dsx {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr std::array<std::string_view, 26> kHardwareKeys = {
    "id",  "base",     "name",      "short_name", "source", "peak_flops",          "memory", "memory_bandwidth",
    "weight_memory", "host_link", "accelerator_link", "tdp", "idle_power_fraction", "price", "rental",
    "shared_memory_per_block", "shared_memory_per_sm", "registers_per_thread", "registers_per_sm",
    "max_threads_per_block", "compute_units", "cores", "sparse_speedup", "fp8_gemm_relative_efficiency",
    "release_year", "unchecked"};
constexpr std::array<std::string_view, 3> kRentalKeys = {"per_hour", "date", "source"};
constexpr std::array<std::string_view, 7> kModelKeys = {"id",     "base",         "name",  "short_name",
                                                        "source", "architecture", "params"};
constexpr std::array<std::string_view, 2> kWeightMemoryKeys = {"capacity", "read_bandwidth"};
constexpr std::array<std::string_view, 5> kBundleKeys = {"id", "base", "name", "source", "values"};
constexpr std::array<std::string_view, 6> kNodeKeys = {"id", "base", "name", "source", "values", "topology"};
constexpr std::array<std::string_view, 1> kTopologyKeys = {"torus"};

// A short name fits a bar label of one column's figure (output/figure_parts.hpp kMaxBarLabelCm) on one line.
constexpr std::size_t kMaxShortNameChars = 24;

constexpr QuantityBounds kPositive{.bounded = true, .min_value = 0, .max_value = kInfinity, .min_exclusive = true};
constexpr QuantityBounds kNonNegative{.bounded = true, .min_value = 0, .max_value = kInfinity};
constexpr QuantityBounds kFraction{.bounded = true, .min_value = 0, .max_value = 1};
constexpr std::string_view kUnknownReleaseYear = "unknown";

// A number field of a hardware entry: its key, dimension, bounds and where it lives in HardwareSpec.
// Every one of kHardwareFields is required, except tdp: some vendors publish no power (Google's
// TPUs, Apple's and Qualcomm's SoCs), and a left-out TDP stays 0 = unknown rather than a guess.
struct HardwareField {
  std::string_view key;
  Dimension dimension;
  QuantityBounds bounds;
  double HardwareSpec::*member;
};

constexpr std::array<HardwareField, 7> kHardwareFields = {{
    {"memory", Dimension::bytes, kPositive, &HardwareSpec::memory_bytes},
    {"memory_bandwidth", Dimension::bandwidth, kPositive, &HardwareSpec::memory_bandwidth_bytes_per_s},
    {"host_link", Dimension::bandwidth, kPositive, &HardwareSpec::host_link_bandwidth_bytes_per_s},
    {"accelerator_link", Dimension::bandwidth, kNonNegative, &HardwareSpec::accelerator_link_bandwidth_bytes_per_s},
    {"tdp", Dimension::power, kPositive, &HardwareSpec::tdp_w},
    {"idle_power_fraction", Dimension::dimensionless, kFraction, &HardwareSpec::idle_power_fraction},
    {"price", Dimension::money, kNonNegative, &HardwareSpec::price_usd},
}};

// Optional GPU kernel limits: absent (or 0) means unknown; a `base:` entry's values are kept.
constexpr QuantityBounds kNonNegativeCount{
    .bounded = true, .min_value = 0, .max_value = kInfinity, .integer = true};
constexpr std::array<HardwareField, 9> kOptionalHardwareFields = {{
    {"shared_memory_per_block", Dimension::bytes, kNonNegative, &HardwareSpec::shared_memory_per_block_bytes},
    {"shared_memory_per_sm", Dimension::bytes, kNonNegative, &HardwareSpec::shared_memory_per_sm_bytes},
    {"registers_per_thread", Dimension::count, kNonNegativeCount, &HardwareSpec::registers_per_thread},
    {"registers_per_sm", Dimension::count, kNonNegativeCount, &HardwareSpec::registers_per_sm},
    {"max_threads_per_block", Dimension::count, kNonNegativeCount, &HardwareSpec::max_threads_per_block},
    {"compute_units", Dimension::count, kNonNegativeCount, &HardwareSpec::compute_units},
    {"cores", Dimension::count, kNonNegativeCount, &HardwareSpec::cores},
    {"sparse_speedup", Dimension::dimensionless, kNonNegative, &HardwareSpec::sparse_speedup},
    {"fp8_gemm_relative_efficiency", Dimension::dimensionless, kNonNegative, &HardwareSpec::fp8_gemm_relative_efficiency},
}};

// Whether a field of kHardwareFields may be left out (it then means "unknown", 0).
bool optional_hardware_field(std::string_view key) { return key == "tdp"; }

// Plausible ranges of the hardware fields: a value outside its range is an error unless the entry
// lists the field under `unchecked:`. They catch a slipped unit or exponent (1e-300 B/s, a 1 PB HBM,
// a 1 MW TDP) while admitting everything from a Cortex-M microcontroller (hundreds of KiB of SRAM at
// a few GB/s, well under a watt, about 1 GFLOP/s) to a wafer-scale engine (tens of GB of SRAM at PB/s,
// over 100 PFLOP/s) and a many-terabyte CPU host. A zero that means "none" or "unknown" (an absent
// accelerator_link, an unknown price) is not checked.
struct PlausibleRange {
  std::string_view key;
  Dimension dimension;
  double min_value;
  double max_value;
  bool zero_allowed;  // 0 means "none" / "unknown"
};
constexpr std::array<PlausibleRange, 14> kPlausibleRanges = {{
    {"peak_flops", Dimension::flop_rate, 1e6, 1e18, true},    // 1 MFLOP/s .. 1 EFLOP/s per precision
    {"memory", Dimension::bytes, 1024.0, 70368744177664.0, false},  // 1 KiB .. 64 TiB
    {"memory_bandwidth", Dimension::bandwidth, 1e6, 1e17, false},    // 1 MB/s .. 100 PB/s
    {"weight_memory", Dimension::bytes, 1024.0, 70368744177664.0, false},     // capacity: as memory
    {"weight_memory_bandwidth", Dimension::bandwidth, 1e6, 1e17, false},      // read_bandwidth: as memory_bandwidth
    {"host_link", Dimension::bandwidth, 1e6, 1e14, false},           // 1 MB/s .. 100 TB/s
    {"accelerator_link", Dimension::bandwidth, 1e6, 1e14, true},     // 1 MB/s .. 100 TB/s, or 0 = none
    {"tdp", Dimension::power, 1e-3, 1e5, false},                     // 1 mW .. 100 kW (left out = unknown)
    {"price", Dimension::money, 0.01, 1e7, true},                    // 1 cent .. 10 M USD, or 0 = unknown
    {"rental", Dimension::money, 0.01, 1000, false},                 // 1 cent .. 1,000 USD per accelerator-hour
    {"release_year", Dimension::count, 1970, 2040, false},
    {"cores", Dimension::count, 1, 1e5, true},                       // 1 .. 100,000 CPU cores, or 0 = unknown
    {"sparse_speedup", Dimension::dimensionless, 1, 4, true},        // 1x .. 4x the dense rate, or 0 = none
    {"fp8_gemm_relative_efficiency", Dimension::dimensionless, 0.25, 2, true},  // or 0 = not measured
}};

const PlausibleRange& plausible_range(std::string_view key) {
  for (const PlausibleRange& r : kPlausibleRanges) {
    if (r.key == key) return r;
  }
  throw std::logic_error("no plausible range for hardware field '" + std::string(key) + "'");
}

bool plausible(const PlausibleRange& r, double value) {
  return (r.zero_allowed && value == 0) || (value >= r.min_value && value <= r.max_value);
}

std::string plausible_range_text(const PlausibleRange& r) {
  const auto label = [&](double v) {
    return r.dimension == Dimension::count ? number_text(v) : exact_quantity_label(v, r.dimension);
  };
  std::string text = "[";
  text += label(r.min_value);
  text += ", ";
  text += label(r.max_value);
  text += r.zero_allowed ? "] or 0" : "]";
  return text;
}

// Reports `value` (written at `node`) when it is outside the plausible range of field `key` and the
// entry does not list `key` under `unchecked:`.
void check_plausible(const YamlReader& r, const YamlNode& node, std::string_view key, const std::string& name,
                     double value, const std::vector<std::string>& unchecked) {
  const PlausibleRange& range = plausible_range(key);
  if (plausible(range, value)) return;
  if (std::find(unchecked.begin(), unchecked.end(), key) != unchecked.end()) return;
  r.error(node, name + " = " + node.text + " is outside the plausible range " + plausible_range_text(range) +
                    "; if it is deliberate, add '" + std::string(key) + "' to the entry's unchecked: list");
}

bool valid_id(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.' || c == '+';
    if (!ok) return false;
  }
  return true;
}

std::string item_path(std::string_view path, std::size_t i) { return std::string(path) + "[" + std::to_string(i) + "]"; }

// The entry's id, checked for spelling and uniqueness within this list; nullopt after an error.
std::optional<std::string> read_id(const YamlReader& r, const YamlNode& entry, const std::string& path,
                                   std::vector<const YamlNode*>& seen, std::string_view kind) {
  const YamlNode* node = r.require(entry, "id", path);
  if (node == nullptr) return std::nullopt;
  auto id = r.string(*node, path + ".id");
  if (!id) return std::nullopt;
  if (!valid_id(*id)) {
    r.error(*node, path + ".id: '" + *id + "' is not a valid id: use letters, digits, '_', '-', '.' and '+'");
    return std::nullopt;
  }
  for (const YamlNode* earlier : seen) {
    if (earlier->text == *id) {
      r.error(*node, "duplicate " + std::string(kind) + " id '" + *id + "': already defined at line " +
                         std::to_string(earlier->line) + ", column " + std::to_string(earlier->column));
      return std::nullopt;
    }
  }
  seen.push_back(node);
  return id;
}

template <class Entry>
void add_or_replace(std::vector<Entry>& into, Entry entry) {
  for (Entry& existing : into) {
    if (existing.id == entry.id) {
      existing = std::move(entry);
      return;
    }
  }
  into.push_back(std::move(entry));
}

// Whether `text` is a date written YYYY-MM or YYYY-MM-DD (month 1-12, day 1-31).
bool valid_rental_date(std::string_view text) {
  if (text.size() != 7 && text.size() != 10) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? text[i] != '-' : (text[i] < '0' || text[i] > '9')) return false;
  }
  const auto number = [&](std::size_t at, std::size_t n) { return std::stoi(std::string(text.substr(at, n))); };
  const int month = number(5, 2);
  if (month < 1 || month > 12) return false;
  if (text.size() == 10) {
    const int day = number(8, 2);
    if (day < 1 || day > 31) return false;
  }
  return true;
}

// The required quantity `key` of mapping `node`, > 0, checked against the plausible range of `range_key`;
// nullopt after an error other than an implausible value.
std::optional<double> required_positive(const YamlReader& r, const YamlNode& node, std::string_view key,
                                        const std::string& path, Dimension dimension, std::string_view range_key,
                                        const std::vector<std::string>& unchecked) {
  const YamlNode* n = r.require(node, key, path);
  if (n == nullptr) return std::nullopt;
  const std::string name = path + "." + std::string(key);
  const auto q = r.quantity(*n, dimension, name, kPositive);
  if (!q) return std::nullopt;
  check_plausible(r, *n, range_key, name, q->value, unchecked);
  return q->value;
}

// `rental: {per_hour: 4.2 USD, date: 2025-06, source: "..."}`: all three required, so a price never
// appears without when and where it was stated.
void read_rental(const YamlReader& r, const YamlNode& node, const std::string& path, HardwareSpec& hw,
                 const std::vector<std::string>& unchecked) {
  if (!r.expect_mapping(node, path)) return;
  r.check_keys(node, kRentalKeys, path);
  if (const auto v = required_positive(r, node, "per_hour", path, Dimension::money, "rental", unchecked)) {
    hw.rental_usd_per_hour = *v;
  }
  if (const YamlNode* n = r.require(node, "date", path)) {
    if (auto date = r.string(*n, path + ".date")) {
      if (valid_rental_date(*date)) {
        hw.rental_date = *date;
      } else {
        r.error(*n, path + ".date: '" + *date + "' is not a date: write YYYY-MM-DD or YYYY-MM (2025-06-15, 2025-06)");
      }
    }
  }
  if (const YamlNode* n = r.require(node, "source", path)) {
    if (auto s = r.string(*n, path + ".source")) hw.rental_source = *s;
  }
}

// An entry's `short_name`, what figures print for it (a chip, a model): not empty, shorter than its
// name, at most kMaxShortNameChars, and no other entry's name or short name among `others`, since a
// figure could not tell the two apart. Read after the name.
template <class Entry>
void read_short_name(const YamlReader& r, const YamlNode& n, const std::string& path, Entry& entry,
                     const std::vector<Entry>& others) {
  const auto s = r.string(n, path + ".short_name");
  if (!s) return;
  if (s->empty() || s->find_first_not_of(' ') == std::string::npos) {
    r.error(n, path + ".short_name: empty; leave it out and figures print the name");
  } else if (s->size() >= entry.name.size()) {
    r.error(n, fmt::format("{}.short_name: '{}' is not shorter than the name '{}'; leave it out and figures print the name",
                           path, *s, entry.name));
  } else if (s->size() > kMaxShortNameChars) {
    r.error(n, fmt::format("{}.short_name: '{}' has {} characters; a figure's label takes at most {}", path, *s, s->size(),
                           kMaxShortNameChars));
  } else {
    const auto other = std::find_if(others.begin(), others.end(), [&](const Entry& o) {
      return o.id != entry.id && (o.short_name == *s || o.name == *s);
    });
    if (other != others.end()) {
      r.error(n, fmt::format("{}.short_name: '{}' is already what figures call '{}'", path, *s, other->id));
    } else {
      entry.short_name = *s;
    }
  }
}

// `weight_memory: {capacity: 2 MiB, read_bandwidth: 1.536 GB/s}`: the read-only tier that holds weights
// which do not fit in `memory` (engine/hardware.hpp). Both required, each > 0.
void read_weight_memory(const YamlReader& r, const YamlNode& node, const std::string& path, HardwareSpec& hw,
                        const std::vector<std::string>& unchecked) {
  if (!r.expect_mapping(node, path)) return;
  r.check_keys(node, kWeightMemoryKeys, path);
  if (const auto v = required_positive(r, node, "capacity", path, Dimension::bytes, "weight_memory", unchecked)) {
    hw.weight_memory_bytes = *v;
  }
  if (const auto v = required_positive(r, node, "read_bandwidth", path, Dimension::bandwidth, "weight_memory_bandwidth",
                                       unchecked)) {
    hw.weight_memory_bandwidth_bytes_per_s = *v;
  }
}

// `release_year: 2022` or `release_year: unknown` (kept as 0): an entry written in full says which, so
// a missing year is a decision the entry states, not an omission.
void read_release_year(const YamlReader& r, const YamlNode& n, const std::string& name, HardwareSpec& hw,
                       const std::vector<std::string>& unchecked) {
  if (n.is_scalar() && n.text == kUnknownReleaseYear) {
    hw.release_year = 0;
    return;
  }
  if (!n.is_scalar() || !parse_number(n.text)) {
    const std::array<std::string, 1> word = {std::string(kUnknownReleaseYear)};
    const std::string near = n.is_scalar() ? closest_match(n.text, word) : "";
    r.error(n, name + ": expected the year the part first shipped (an integer in [1970, 2040]) or '" +
                   std::string(kUnknownReleaseYear) + "', got " + n.describe() +
                   (near.empty() ? "" : "; did you mean '" + near + "'?"));
    return;
  }
  if (auto q = r.quantity(n, Dimension::count, name, kNonNegativeCount)) {
    const std::size_t errors_before_year = r.diags().error_count();
    check_plausible(r, n, "release_year", name, q->value, unchecked);
    if (r.diags().error_count() == errors_before_year) hw.release_year = static_cast<int>(q->value);
  }
}

// Returns whether the entry was added; `id_out` receives its id when it has a valid one.
bool read_hardware_entry(const YamlReader& r, const YamlNode& entry, const std::string& path, Catalog& into,
                         std::vector<const YamlNode*>& seen, std::string& id_out) {
  if (!r.expect_mapping(entry, path)) return false;
  r.check_keys(entry, kHardwareKeys, path);
  const std::size_t errors_before = r.diags().error_count();
  const auto id = read_id(r, entry, path, seen, "hardware");
  if (id) id_out = *id;

  HardwareSpec hw;
  bool from_base = false;
  std::string base_id;
  if (const YamlNode* base_node = entry.find("base")) {
    if (const auto base = r.string(*base_node, path + ".base")) {
      if (const HardwareSpec* b = into.find_hardware(*base)) {
        hw = *b;
        from_base = true;
        base_id = b->id;
        // A rental price is one offering's price for one part: an entry derived from another (a
        // 32GB board from a 16GB one, a study's what-if) states its own or has none.
        hw.rental_usd_per_hour = 0;
        hw.rental_date.clear();
        hw.rental_source.clear();
      } else {
        r.unknown(*base_node, "hardware id", into.hardware_ids());
      }
    }
  }
  if (id) hw.id = *id;
  // Fields whose plausible range is not checked: the entry says the value is deliberate.
  std::vector<std::string> unchecked;
  if (const YamlNode* n = entry.find("unchecked")) {
    if (r.expect_sequence(*n, path + ".unchecked")) {
      std::vector<std::string> keys;
      for (const PlausibleRange& range : kPlausibleRanges) keys.emplace_back(range.key);
      for (const YamlNode& item : n->items) {
        const auto key = r.string(item, path + ".unchecked");
        if (!key) continue;
        if (std::find(keys.begin(), keys.end(), *key) == keys.end()) {
          r.unknown(item, "field with a plausible range", keys);
          continue;
        }
        unchecked.push_back(*key);
      }
    }
  }
  // `base:` copies every field but the source: an entry that changes numbers says where they come from.
  if (const YamlNode* n = r.require(entry, "source", path)) {
    if (auto s = r.string(*n, path + ".source")) hw.source = *s;
  }
  const auto field = [&](std::string_view key) -> const YamlNode* {
    if (const YamlNode* n = entry.find(key)) return n;
    if (!from_base && entry.find("base") == nullptr && !optional_hardware_field(key)) r.require(entry, key, path);
    return nullptr;
  };
  if (const YamlNode* n = field("name")) {
    if (auto s = r.string(*n, path + ".name")) hw.name = *s;
    // A short name stands for the name it shortens: an entry that renames a base states its own or has none.
    if (from_base) hw.short_name.clear();
  }
  if (const YamlNode* n = entry.find("short_name")) read_short_name(r, *n, path, hw, into.hardware);
  if (const YamlNode* peaks = field("peak_flops")) {
    if (r.expect_mapping(*peaks, path + ".peak_flops")) {
      std::vector<std::string> names;
      for (Precision p : kAllPrecisions) names.emplace_back(precision_name(p));
      if (!from_base) hw.peak_flops_per_s.fill(0);
      const std::size_t errors_before_peaks = r.diags().error_count();
      for (const YamlEntry& e : peaks->entries) {
        const auto precision = parse_precision(e.key.text);
        if (!precision) {
          r.unknown(e.key, "precision", names);
          continue;
        }
        const std::string name = path + ".peak_flops." + e.key.text;
        if (auto q = r.quantity(e.value, Dimension::flop_rate, name, kNonNegative)) {
          hw.peak_flops_per_s[index_of(*precision)] = q->value;
          check_plausible(r, e.value, "peak_flops", name, q->value, unchecked);
        }
      }
      bool any = false;
      for (double v : hw.peak_flops_per_s) any = any || v > 0;
      if (!any && r.diags().error_count() == errors_before_peaks) {
        r.error(*peaks, path + ".peak_flops: give a non-zero peak for at least one precision");
      }
    }
  }
  for (const HardwareField& f : kHardwareFields) {
    if (const YamlNode* n = field(f.key)) {
      const std::string name = path + "." + std::string(f.key);
      if (auto q = r.quantity(*n, f.dimension, name, f.bounds)) {
        hw.*f.member = q->value;
        if (f.key != "idle_power_fraction") check_plausible(r, *n, f.key, name, q->value, unchecked);
      }
    }
  }
  if (const YamlNode* n = field("release_year")) read_release_year(r, *n, path + ".release_year", hw, unchecked);
  for (const HardwareField& f : kOptionalHardwareFields) {
    if (const YamlNode* n = entry.find(f.key)) {
      const std::string name = path + "." + std::string(f.key);
      if (auto q = r.quantity(*n, f.dimension, name, f.bounds)) {
        hw.*f.member = q->value;
        if (f.key == "cores" || f.key == "sparse_speedup" || f.key == "fp8_gemm_relative_efficiency") {
          check_plausible(r, *n, f.key, name, q->value, unchecked);
        }
      }
    }
  }
  if (const YamlNode* n = entry.find("rental")) read_rental(r, *n, path + ".rental", hw, unchecked);
  if (const YamlNode* n = entry.find("weight_memory")) read_weight_memory(r, *n, path + ".weight_memory", hw, unchecked);
  if (!id || r.diags().error_count() != errors_before) return false;
  std::erase_if(into.hardware_bases, [&](const auto& entry) { return entry.first == *id; });
  if (from_base && base_id != *id) into.hardware_bases.emplace_back(*id, base_id);
  add_or_replace(into.hardware, std::move(hw));
  return true;
}

// Returns whether the entry was added; `id_out` receives its id when it has a valid one.
bool read_model_entry(const YamlReader& r, const YamlNode& entry, const std::string& path, Catalog& into,
                      std::vector<const YamlNode*>& seen, std::string& id_out) {
  if (!r.expect_mapping(entry, path)) return false;
  r.check_keys(entry, kModelKeys, path);
  const std::size_t errors_before = r.diags().error_count();
  const auto id = read_id(r, entry, path, seen, "model");
  if (id) id_out = *id;

  CatalogModel model;
  const CatalogModel* base = nullptr;
  if (const YamlNode* base_node = entry.find("base")) {
    if (const auto name = r.string(*base_node, path + ".base")) {
      base = into.find_model(*name);
      if (base == nullptr) r.unknown(*base_node, "model id", into.model_ids());
    }
  }
  const bool has_base = entry.find("base") != nullptr;
  if (base != nullptr) {
    model.name = base->name;
    model.short_name = base->short_name;
    model.architecture = base->architecture;
  }
  if (id) model.id = *id;
  if (const YamlNode* n = r.require(entry, "source", path)) {
    if (auto s = r.string(*n, path + ".source")) model.source = *s;
  }
  if (const YamlNode* n = entry.find("name")) {
    if (auto s = r.string(*n, path + ".name")) model.name = *s;
    model.short_name.clear();  // an entry that renames its base states its own short name or has none
  } else if (!has_base) {
    r.require(entry, "name", path);
  }
  if (const YamlNode* n = entry.find("short_name")) read_short_name(r, *n, path, model, into.models);

  const Architecture* arch = nullptr;
  if (const YamlNode* n = entry.find("architecture")) {
    if (auto s = r.string(*n, path + ".architecture")) {
      arch = find_architecture(*s);
      if (arch == nullptr) {
        std::vector<std::string> names;
        for (const Architecture& a : all_architectures()) names.emplace_back(a.name);
        r.unknown(*n, "architecture", names);
      } else {
        model.architecture = *s;
      }
    }
  } else if (!has_base) {
    r.require(entry, "architecture", path);
  } else if (base != nullptr) {
    arch = find_architecture(base->architecture);
  }
  if (arch == nullptr) return false;

  // Values in the architecture's parameter order: the entry's, else the base entry's (same
  // architecture only), else the default.
  const auto specs = arch->params;
  std::vector<double> values(specs.size(), 0.0);
  std::vector<std::string> labels(specs.size());
  std::vector<bool> given(specs.size(), false);
  if (base != nullptr && base->architecture == model.architecture) {
    for (std::size_t i = 0; i < specs.size(); ++i) {
      for (const auto& [name, label] : base->params) {
        if (name != specs[i].name) continue;
        const QuantityParse q = parse_quantity(label, specs[i].dimension, name);
        if (!q.quantity) throw std::logic_error("catalog model '" + base->id + "' holds an unreadable label");
        values[i] = q.quantity->value;
        labels[i] = label;
        given[i] = true;
      }
    }
  }
  const YamlNode* params = entry.find("params");
  if (params != nullptr && params->is_null()) params = nullptr;  // `params:` with nothing under it
  if (params != nullptr && r.expect_mapping(*params, path + ".params")) {
    std::vector<std::string> names;
    for (const ArchParamSpec& s : specs) names.emplace_back(s.name);
    for (const YamlEntry& e : params->entries) {
      const auto it = std::find(names.begin(), names.end(), e.key.text);
      if (it == names.end()) {
        r.unknown(e.key, std::string(arch->name) + " parameter", names);
        continue;
      }
      const auto i = static_cast<std::size_t>(it - names.begin());
      const QuantityBounds bounds{.integer = specs[i].integer};
      // A value written but refused is reported once, not again as a missing parameter.
      given[i] = true;
      if (auto q = r.quantity(e.value, specs[i].dimension, path + ".params." + e.key.text, bounds)) {
        values[i] = q->value;
        labels[i] = e.value.text;
      }
    }
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (given[i]) continue;
    if (specs[i].has_default) {
      values[i] = specs[i].default_value;
      labels[i] = exact_quantity_label(specs[i].default_value, specs[i].dimension);
    } else {
      const YamlNode& at = params != nullptr ? *params : entry;
      r.error(at, path + ": architecture '" + std::string(arch->name) + "' needs parameter '" +
                      std::string(specs[i].name) + "' (" + std::string(specs[i].description) + ")");
    }
  }
  if (!id || r.diags().error_count() != errors_before) return false;
  for (std::size_t i = 0; i < specs.size(); ++i) model.params.emplace_back(std::string(specs[i].name), labels[i]);
  try {
    ModelGraph graph = arch->build(values);
    graph.id = model.id;
    graph.name = model.name;
    graph.source = model.source;
    model.prepared = prepare_model(std::move(graph));
  } catch (const std::invalid_argument& e) {
    r.error(params != nullptr ? *params : entry,
            path + ": " + e.what());
    return false;
  }
  add_or_replace(into.models, std::move(model));
  return true;
}

// The parameters named `name` across every solver, in registry order.
std::vector<const ParamSpec*> params_named(std::string_view name) {
  std::vector<const ParamSpec*> out;
  for (const Solver* solver : all_solvers()) {
    for (const ParamSpec& p : solver->params()) {
      if (p.name == name) out.push_back(&p);
    }
  }
  return out;
}

std::vector<std::string> all_param_names() {
  std::vector<std::string> names;
  for (const Solver* solver : all_solvers()) {
    for (const ParamSpec& p : solver->params()) {
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.emplace_back(p.name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Checks one bundle value against the solvers' parameters of that name: a number must have the
// first such parameter's dimension (bounds are the study's solver's, checked when a study uses
// it); a catalog id must name an entry of `into`; a precision or choice must be one of its names.
bool check_bundle_value(const YamlReader& r, const YamlEntry& e, const std::string& path, const Catalog& into) {
  const std::vector<const ParamSpec*> specs = params_named(e.key.text);
  if (specs.empty()) {
    // Every solver's parameters would be a long list; the closest name is the useful part.
    const std::string near = closest_match(e.key.text, all_param_names());
    r.error(e.key, path + ": no solver has a parameter '" + e.key.text + "'" +
                       (near.empty() ? "" : "; did you mean '" + near + "'?") +
                       " (studies/README.md lists each solver's parameters)");
    return false;
  }
  if (!e.value.is_scalar() || e.value.text.empty()) {
    r.error(e.value, path + ": expected one value, got " + e.value.describe());
    return false;
  }
  const ParamSpec& p = *specs.front();
  switch (p.kind) {
    case ParamKind::number: return r.quantity(e.value, p.dimension, path).has_value();
    case ParamKind::hardware:
      if (p.has_default && e.value.text == kNoCatalogEntry) return true;
      if (into.find_hardware(e.value.text) != nullptr) return true;
      r.unknown(e.value, "hardware id", into.hardware_ids());
      return false;
    case ParamKind::model:
      if (p.has_default && e.value.text == kNoCatalogEntry) return true;
      if (into.find_model(e.value.text) != nullptr) return true;
      r.unknown(e.value, "model id", into.model_ids());
      return false;
    case ParamKind::precision: {
      if (parse_precision(e.value.text)) return true;
      std::vector<std::string> names;
      for (Precision pr : kAllPrecisions) names.emplace_back(precision_name(pr));
      r.unknown(e.value, "precision", names);
      return false;
    }
    case ParamKind::choice: {
      std::vector<std::string> names;
      for (const ParamSpec* spec : specs) {
        for (std::string_view c : spec->choices) {
          if (c == e.value.text) return true;
          names.emplace_back(c);
        }
      }
      r.unknown(e.value, std::string(p.name) + " choice", names);
      return false;
    }
  }
  return false;
}

// A node's `topology: {torus: [a, b, c]}`: one to kMaxTorusDimensions whole numbers of chips >= 1.
void read_topology(const YamlReader& r, const YamlNode& topology, const std::string& path, CatalogBundle& bundle) {
  if (!r.expect_mapping(topology, path)) return;
  r.check_keys(topology, kTopologyKeys, path);
  const YamlNode* torus = r.require(topology, "torus", path);
  if (torus == nullptr) return;
  const std::string at = path + ".torus";
  if (!torus->is_sequence() || torus->items.empty() || torus->items.size() > kMaxTorusDimensions) {
    r.error(*torus, at + ": expected a list of 1 to " + std::to_string(kMaxTorusDimensions) +
                        " dimensions (chips along each), e.g. [16, 16] or [4, 4, 4], got " + torus->describe());
    return;
  }
  std::vector<double> dims;
  for (const YamlNode& item : torus->items) {
    const std::optional<double> chips = item.is_scalar() ? parse_number(item.text) : std::nullopt;
    if (!chips || *chips < 1 || *chips > 1024 || *chips != std::floor(*chips)) {
      r.error(item, at + ": '" + item.text + "' is not a whole number of chips from 1 to 1024");
      return;
    }
    dims.push_back(*chips);
  }
  bundle.torus = std::move(dims);
}

// The torus's chips must be the node's gpus_per_node.
void check_torus_size(const YamlReader& r, const YamlNode& at, const std::string& path, const CatalogBundle& bundle,
                      bool own_topology) {
  double chips = 1;
  std::string shape;
  for (double d : bundle.torus) {
    chips *= d;
    shape += (shape.empty() ? "" : " x ") + fmt::format("{}", d);
  }
  const auto it = std::find_if(bundle.values.begin(), bundle.values.end(),
                               [](const auto& v) { return v.first == "gpus_per_node"; });
  if (it == bundle.values.end()) {
    r.error(at, path + ": a node with a topology gives gpus_per_node (" + shape + " = " + fmt::format("{}", chips) +
                    " chips)");
    return;
  }
  const std::optional<double> gpus = parse_number(it->second);
  if (gpus && *gpus == chips) return;
  if (own_topology) {
    r.error(at, path + ".topology: the torus " + shape + " has " + fmt::format("{}", chips) +
                    " chips but gpus_per_node is " + it->second + "; the product of the dimensions must equal it");
  } else {
    r.error(at, path + ": the torus " + shape + " of its base has " + fmt::format("{}", chips) +
                    " chips but gpus_per_node is " + it->second + "; give the entry its own topology: {torus: [...]}");
  }
}

// Returns whether the entry was added; `id_out` receives its id when it has a valid one.
bool read_bundle_entry(const YamlReader& r, const YamlNode& entry, const std::string& path, const BundleKind& kind,
                       Catalog& into, std::vector<const YamlNode*>& seen, std::string& id_out) {
  if (!r.expect_mapping(entry, path)) return false;
  const bool node = kind.name == "node";
  if (node) {
    r.check_keys(entry, kNodeKeys, path);
  } else {
    r.check_keys(entry, kBundleKeys, path);
  }
  const std::size_t errors_before = r.diags().error_count();
  const auto id = read_id(r, entry, path, seen, kind.name);
  if (id) id_out = *id;

  CatalogBundle bundle;
  bundle.kind = std::string(kind.name);
  const YamlNode* base_node = entry.find("base");
  if (base_node != nullptr) {
    if (const auto base = r.string(*base_node, path + ".base")) {
      if (const CatalogBundle* b = into.find_bundle(kind.name, *base)) {
        bundle = *b;
      } else {
        r.unknown(*base_node, std::string(kind.name) + " id", into.bundle_ids(kind.name));
      }
    }
  }
  if (id) bundle.id = *id;
  if (const YamlNode* n = r.require(entry, "source", path)) {
    if (auto text = r.string(*n, path + ".source")) bundle.source = *text;
  }
  if (const YamlNode* n = entry.find("name")) {
    if (auto text = r.string(*n, path + ".name")) bundle.name = *text;
  } else if (base_node == nullptr) {
    r.require(entry, "name", path);
  }
  const YamlNode* values = base_node == nullptr ? r.require(entry, "values", path) : entry.find("values");
  if (values != nullptr && r.expect_mapping(*values, path + ".values")) {
    if (values->entries.empty() && base_node == nullptr) {
      r.error(*values, path + ".values: give at least one solver parameter and its value");
    }
    for (const YamlEntry& e : values->entries) {
      if (!check_bundle_value(r, e, path + ".values." + e.key.text, into)) continue;
      const auto it = std::find_if(bundle.values.begin(), bundle.values.end(),
                                   [&](const auto& v) { return v.first == e.key.text; });
      if (it != bundle.values.end()) {
        it->second = e.value.text;
      } else {
        bundle.values.emplace_back(e.key.text, e.value.text);
      }
    }
  }
  const YamlNode* topology = node ? entry.find("topology") : nullptr;
  if (topology != nullptr) read_topology(r, *topology, path + ".topology", bundle);
  if (node && !bundle.torus.empty() && r.diags().error_count() == errors_before) {
    check_torus_size(r, topology != nullptr ? *topology : (values != nullptr ? *values : entry), path, bundle,
                     topology != nullptr);
  }
  if (!id || r.diags().error_count() != errors_before) return false;
  for (CatalogBundle& existing : into.bundles) {
    if (existing.kind == bundle.kind && existing.id == bundle.id) {
      existing = std::move(bundle);
      return true;
    }
  }
  into.bundles.push_back(std::move(bundle));
  return true;
}

void load_list_text(const std::string& file, const std::string& text, std::string_view key, Catalog& into,
                    Diagnostics& diags,
                    void (*read)(const YamlReader&, const YamlNode&, std::string_view, Catalog&,
                                 std::vector<std::string>*)) {
  YamlReader r(file, diags);
  const auto root = r.parse(text);
  if (!root) return;
  if (!r.expect_mapping(*root, "")) return;
  const std::array<std::string_view, 1> keys = {key};
  r.check_keys(*root, keys, "");
  if (const YamlNode* list = r.require(*root, key, "")) read(r, *list, key, into, nullptr);
}

std::string join_path(const std::string& dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  return dir.back() == '/' ? dir + std::string(name) : dir + "/" + std::string(name);
}

// FNV-1a, 64 bit (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/).
std::uint64_t fnv1a(std::string_view data, std::uint64_t hash = 14695981039346656037ULL) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace

std::vector<std::string> implausible_hardware_fields(const HardwareSpec& h) {
  std::vector<std::string> out;
  const auto check = [&](std::string_view key, double value) {
    if (!plausible(plausible_range(key), value) && std::find(out.begin(), out.end(), key) == out.end()) {
      out.emplace_back(key);
    }
  };
  for (double v : h.peak_flops_per_s) check("peak_flops", v);
  for (const HardwareField& f : kHardwareFields) {
    // A left-out optional field (tdp) is 0 = unknown, not a value to check.
    if (optional_hardware_field(f.key) && h.*f.member == 0) continue;
    if (f.key != "idle_power_fraction") check(f.key, h.*f.member);
  }
  if (h.release_year != 0) check("release_year", h.release_year);
  check("cores", h.cores);
  check("sparse_speedup", h.sparse_speedup);
  check("fp8_gemm_relative_efficiency", h.fp8_gemm_relative_efficiency);
  if (h.rental_known()) check("rental", h.rental_usd_per_hour);
  if (h.has_weight_memory()) {
    check("weight_memory", h.weight_memory_bytes);
    check("weight_memory_bandwidth", h.weight_memory_bandwidth_bytes_per_s);
  }
  return out;
}

std::string hardware_plausible_ranges_text() {
  std::string out;
  for (const PlausibleRange& r : kPlausibleRanges) {
    out += (out.empty() ? "" : "; ") + std::string(r.key) + " " + plausible_range_text(r);
  }
  return out;
}

void read_hardware_entries(const YamlReader& r, const YamlNode& list, std::string_view path, Catalog& into,
                           std::vector<std::string>* broken_ids) {
  if (!r.expect_sequence(list, path)) return;
  std::vector<const YamlNode*> seen;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    std::string id;
    const bool added = read_hardware_entry(r, list.items[i], item_path(path, i), into, seen, id);
    if (!added && !id.empty() && broken_ids != nullptr) broken_ids->push_back(id);
  }
}

void read_model_entries(const YamlReader& r, const YamlNode& list, std::string_view path, Catalog& into,
                        std::vector<std::string>* broken_ids) {
  if (!r.expect_sequence(list, path)) return;
  std::vector<const YamlNode*> seen;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    std::string id;
    const bool added = read_model_entry(r, list.items[i], item_path(path, i), into, seen, id);
    if (!added && !id.empty() && broken_ids != nullptr) broken_ids->push_back(id);
  }
}

void read_bundle_entries(const YamlReader& r, const YamlNode& list, std::string_view path, const BundleKind& kind,
                         Catalog& into, std::vector<std::string>* broken_ids) {
  if (!r.expect_sequence(list, path)) return;
  std::vector<const YamlNode*> seen;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    std::string id;
    const bool added = read_bundle_entry(r, list.items[i], item_path(path, i), kind, into, seen, id);
    if (!added && !id.empty() && broken_ids != nullptr) broken_ids->push_back(id);
  }
}

const BundleKind* find_bundle_kind(std::string_view name) {
  for (const BundleKind& k : kBundleKinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const CatalogBundle* Catalog::find_bundle(std::string_view kind, std::string_view id) const {
  for (const CatalogBundle& b : bundles) {
    if (b.kind == kind && b.id == id) return &b;
  }
  return nullptr;
}

std::vector<std::string> Catalog::bundle_ids(std::string_view kind) const {
  std::vector<std::string> out;
  for (const CatalogBundle& b : bundles) {
    if (b.kind == kind) out.push_back(b.id);
  }
  return out;
}

std::string_view Catalog::hardware_base(std::string_view id) const {
  for (const auto& [entry, base] : hardware_bases) {
    if (entry == id) return base;
  }
  return {};
}

const HardwareSpec* Catalog::find_hardware(std::string_view id) const {
  for (const HardwareSpec& h : hardware) {
    if (h.id == id) return &h;
  }
  return nullptr;
}

const CatalogModel* Catalog::find_model(std::string_view id) const {
  for (const CatalogModel& m : models) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

std::vector<std::string> Catalog::hardware_ids() const {
  std::vector<std::string> out;
  for (const HardwareSpec& h : hardware) out.push_back(h.id);
  return out;
}

std::vector<std::string> Catalog::model_ids() const {
  std::vector<std::string> out;
  for (const CatalogModel& m : models) out.push_back(m.id);
  return out;
}

void load_hardware_text(const std::string& file, const std::string& text, Catalog& into, Diagnostics& diags) {
  load_list_text(file, text, "hardware", into, diags, &read_hardware_entries);
}

void load_models_text(const std::string& file, const std::string& text, Catalog& into, Diagnostics& diags) {
  load_list_text(file, text, "models", into, diags, &read_model_entries);
}

void load_bundles_text(const std::string& file, const std::string& text, const BundleKind& kind, Catalog& into,
                       Diagnostics& diags) {
  YamlReader r(file, diags);
  const auto root = r.parse(text);
  if (!root) return;
  if (!r.expect_mapping(*root, "")) return;
  const std::array<std::string_view, 1> keys = {kind.list_key};
  r.check_keys(*root, keys, "");
  if (const YamlNode* list = r.require(*root, kind.list_key, "")) {
    read_bundle_entries(r, *list, kind.list_key, kind, into, nullptr);
  }
}

Catalog load_catalog(const std::string& dir, Diagnostics& diags) {
  Catalog catalog;
  const std::string hardware_file = join_path(dir, "hardware.yaml");
  const std::string models_file = join_path(dir, "models.yaml");
  if (const auto text = read_input_file(hardware_file, "hardware catalog", diags)) {
    load_hardware_text(hardware_file, *text, catalog, diags);
  }
  if (const auto text = read_input_file(models_file, "model catalog", diags)) {
    load_models_text(models_file, *text, catalog, diags);
  }
  for (const BundleKind& kind : kBundleKinds) {
    const std::string file = join_path(dir, kind.file);
    if (!std::filesystem::exists(file)) continue;
    if (const auto text = read_input_file(file, std::string(kind.name) + " catalog", diags)) {
      load_bundles_text(file, *text, kind, catalog, diags);
    }
  }
  const std::string accuracy_file = join_path(dir, kAccuracyFile);
  if (std::filesystem::exists(accuracy_file)) {
    if (const auto text = read_input_file(accuracy_file, "compression accuracy catalog", diags)) {
      load_accuracy_text(accuracy_file, *text, catalog, diags);
    }
  }
  attach_published_accuracy(catalog);
  return catalog;
}

std::string catalog_hash(const Catalog& catalog) {
  // Fields are separated by 0x1F and entries by 0x1E so no two catalogs share a serialisation.
  std::string canonical;
  const auto field = [&](std::string_view s) {
    canonical += s;
    canonical += '\x1F';
  };
  for (const HardwareSpec& h : catalog.hardware) {
    field("hardware");
    field(h.id);
    field(h.name);
    field(h.source);
    for (double v : h.peak_flops_per_s) field(number_text(v));
    for (const HardwareField& f : kHardwareFields) field(number_text(h.*f.member));
    for (const HardwareField& f : kOptionalHardwareFields) field(number_text(h.*f.member));
    field(std::to_string(h.release_year));
    if (h.rental_known()) {
      field(number_text(h.rental_usd_per_hour));
      field(h.rental_date);
      field(h.rental_source);
    }
    if (h.has_weight_memory()) {
      field(number_text(h.weight_memory_bytes));
      field(number_text(h.weight_memory_bandwidth_bytes_per_s));
    }
    canonical += '\x1E';
  }
  for (const CatalogModel& m : catalog.models) {
    field("model");
    field(m.id);
    field(m.name);
    field(m.source);
    field(m.architecture);
    for (const auto& [k, v] : m.params) {
      field(k);
      field(v);
    }
    canonical += '\x1E';
  }
  for (const CatalogBundle& b : catalog.bundles) {
    field(b.kind);
    field(b.id);
    field(b.name);
    field(b.source);
    for (const auto& [k, v] : b.values) {
      field(k);
      field(v);
    }
    canonical += '\x1E';
  }
  for (const CatalogAccuracy& a : catalog.accuracy) {
    field(accuracy_entry_text(a));
    canonical += '\x1E';
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const std::uint64_t h = fnv1a(canonical);
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = kHex[(h >> (4 * i)) & 0xFU];
  return out;
}

}  // namespace dsx
