// Strict YAML reading for study and catalog files.
//
// yaml-cpp builds the tree; a libyaml pass over the same text runs first because yaml-cpp accepts
// some broken files (an unterminated double-quoted string swallows the rest of the file) and words
// others poorly (a tab in the indentation). The tree is copied into YamlNode, which keeps 1-based
// line/column positions (in characters) for every node and rejects what yaml-cpp lets through:
//  - a key given twice in one mapping (both positions are named);
//  - non-string keys and YAML tags ("!!str");
//  - more than one document in a file.
// All scalars stay text; the readers below decide what a value may look like:
//  - booleans are exactly `true` or `false` (yes/no/on/off/True are rejected);
//  - numbers and quantities follow dse/quantity.hpp (decimal only: no 0x10, no 1_000, no .inf);
//  - quoting never changes meaning ("10 us" and 10 us are the same value).
// Every problem goes to Diagnostics with the offending line and a caret.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dse/diagnostics.hpp"
#include "dse/quantity.hpp"

namespace dsx {

struct YamlEntry;

struct YamlNode {
  enum class Kind : std::uint8_t { null, scalar, sequence, mapping };
  enum class Style : std::uint8_t { plain, quoted, block };  // how a scalar was written

  Kind kind = Kind::null;
  Style style = Style::plain;
  std::string text;  // scalar value
  int line = 0;      // 1-based
  int column = 0;    // 1-based, in characters
  std::size_t span = 1;           // characters the node covers on its first line
  std::vector<YamlNode> items;    // sequence
  std::vector<YamlEntry> entries; // mapping, in file order; keys are scalars, unique

  bool is_null() const { return kind == Kind::null; }
  bool is_scalar() const { return kind == Kind::scalar; }
  bool is_sequence() const { return kind == Kind::sequence; }
  bool is_mapping() const { return kind == Kind::mapping; }
  const YamlNode* find(std::string_view key) const;  // mapping value, nullptr when absent
  // For messages: "nothing", "'abc'", "a list", "a mapping".
  std::string describe() const;
};

struct YamlEntry {
  YamlNode key;
  YamlNode value;
};

// Limits on what a study, catalog, measurement or profile file may be, so that every loader runs in
// time and memory linear in what the file says (README, "Limits").
inline constexpr std::uint64_t kMaxInputFileBytes = 256ull << 20;        // 256 MiB
inline constexpr std::uint64_t kMaxAliasExpandedNodes = 1'000'000;       // nodes that aliases add
inline constexpr std::size_t kMaxNestingDepth = 200;                     // lists and mappings within each other

// Reads `file` (a study, catalog, measurement or profile file: `what` names it in messages) whole,
// refusing a folder, a file over kMaxInputFileBytes and an endless one such as /dev/zero; problems
// go to `diags` at the file.
std::optional<std::string> read_input_file(const std::string& file, std::string_view what, Diagnostics& diags);

// Reads one file's text and checks values found in it, reporting to `diags` with `file` as the
// file name. Paths in messages ("axes.batch[1]") say where in the document a value sits.
class YamlReader {
 public:
  YamlReader(std::string file, Diagnostics& diags) : file_(std::move(file)), diags_(&diags) {}

  // Registers `text` with the diagnostics and parses it; nullopt after a syntax error. An empty
  // document gives a null node at line 1. After a duplicate key (or a tag, or a non-string key) the
  // tree is returned without that entry and the error stays in `diags`.
  std::optional<YamlNode> parse(const std::string& text);

  const std::string& file() const { return file_; }
  Diagnostics& diags() const { return *diags_; }

  // Position of `node`, `offset` characters into its scalar text.
  SourceLocation location(const YamlNode& node, std::size_t offset = 0) const;
  void error(const YamlNode& at, std::string message) const;
  void error(const YamlNode& at, std::string message, std::size_t offset, std::size_t span) const;
  // "unknown <what> '<at.text>'[ in <context>]; did you mean ...? valid <what>s: ..."
  void unknown(const YamlNode& at, std::string_view what, std::span<const std::string> choices,
               std::string_view context = "") const;

  // Shape checks: on a mismatch, report "<path>: expected a mapping, got a list" and return false.
  bool expect_mapping(const YamlNode& node, std::string_view path) const;
  bool expect_sequence(const YamlNode& node, std::string_view path) const;
  bool expect_scalar(const YamlNode& node, std::string_view path) const;

  // Reports every key of `map` that is not in `allowed`, with the closest allowed key.
  void check_keys(const YamlNode& map, std::span<const std::string_view> allowed, std::string_view path) const;
  // The value under `key`; when absent, reports "<path>: missing required key 'key'" at the
  // mapping and returns nullptr.
  const YamlNode* require(const YamlNode& map, std::string_view key, std::string_view path) const;

  // A scalar as text (non-empty unless allow_empty).
  std::optional<std::string> string(const YamlNode& node, std::string_view path, bool allow_empty = false) const;
  // Exactly `true` or `false`.
  std::optional<bool> boolean(const YamlNode& node, std::string_view path) const;
  // A quantity of `dimension` within `bounds`; `name` is used in messages.
  std::optional<Quantity> quantity(const YamlNode& node, Dimension dimension, std::string_view name,
                                   const QuantityBounds& bounds = {}) const;

 private:
  std::string file_;
  Diagnostics* diags_;
};

// Text safe to write as a YAML scalar: plain when that reads back unchanged, double-quoted with
// escapes otherwise.
std::string yaml_scalar(std::string_view text);

// Entry readers shared by the catalog files and a study's `catalog:` block (dse/catalog.cpp).
// `list` is the sequence under `hardware:` / `models:`; entries are added to `into`, or replace an
// entry of `into` with the same id (an entry with `base: <id>` copies that entry first). The ids of
// entries that had errors (and were not added) go to `broken_ids`, so their users can stay quiet.
struct Catalog;
void read_hardware_entries(const YamlReader& reader, const YamlNode& list, std::string_view path, Catalog& into,
                           std::vector<std::string>* broken_ids = nullptr);
void read_model_entries(const YamlReader& reader, const YamlNode& list, std::string_view path, Catalog& into,
                        std::vector<std::string>* broken_ids = nullptr);

}  // namespace dsx
