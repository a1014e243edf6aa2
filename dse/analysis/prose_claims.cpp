#include "dse/analysis/prose_claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <regex>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/analysis/sensitivity.hpp"

namespace dsx {

namespace {

// The offsets [begin, end) of the top-level `sections:` block: from its key to the next key at the
// start of a line.
std::pair<std::size_t, std::size_t> sections_block(std::string_view source) {
  std::size_t begin = source.rfind("sections:", 0) == 0 ? 0 : source.find("\nsections:");
  if (begin == std::string_view::npos) return {0, 0};
  if (source[begin] == '\n') ++begin;
  for (std::size_t p = source.find('\n', begin); p != std::string_view::npos; p = source.find('\n', p + 1)) {
    if (p + 1 < source.size() && std::isalpha(static_cast<unsigned char>(source[p + 1])) != 0) return {begin, p + 1};
  }
  return {begin, source.size()};
}

// Whether a sentence ends at text[i]: '!', '?', ';', a blank line, or '.' before a space or the end
// (not the point of "1.5").
bool ends_sentence(std::string_view text, std::size_t i) {
  const char c = text[i];
  if (c == '!' || c == '?' || c == ';') return true;
  if (c == '\n') return i + 1 < text.size() && text[i + 1] == '\n';
  return c == '.' && (i + 1 == text.size() || std::isspace(static_cast<unsigned char>(text[i + 1])) != 0);
}

// The sentence around [at, at + length).
std::string_view sentence_around(std::string_view text, std::size_t at, std::size_t length) {
  std::size_t begin = at;
  while (begin > 0 && !ends_sentence(text, begin - 1)) --begin;
  std::size_t end = at + length;
  while (end < text.size() && !ends_sentence(text, end)) ++end;
  return text.substr(begin, end - begin);
}

// Whether a sentence hedges its claim: a condition, a negation or a restriction.
bool hedged(std::string_view sentence) {
  static constexpr std::array<std::string_view, 17> kHedges = {
      "if", "unless", "when", "whenever", "while", "would", "could", "might", "should", "only",
      "not", "never", "no", "until", "once", "whether", "cannot"};
  std::string word;
  for (std::size_t i = 0; i <= sentence.size(); ++i) {
    const char c = i < sentence.size() ? sentence[i] : ' ';
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '\'') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    if (std::find(kHedges.begin(), kHedges.end(), word) != kHedges.end() || word.ends_with("n't")) return true;
    word.clear();
  }
  return false;
}

SourceLocation location_of(std::string_view file, std::string_view source, std::size_t offset) {
  const std::size_t line_start = source.rfind('\n', offset == 0 ? 0 : offset - 1);
  SourceLocation where;
  where.file = std::string(file);
  where.line = static_cast<int>(std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) + 1;
  where.column = static_cast<int>(offset - (line_start == std::string_view::npos || offset == 0 ? 0 : line_start + 1)) + 1;
  return where;
}

// The labels of a decision's alternatives: the values of its `decide:` axis, or those `among:` names.
std::vector<std::string> alternatives_of(const ResolvedStudy& study, const SensitivityRequest& request) {
  std::vector<std::string> labels;
  for (const Axis& axis : study.axes) {
    if (axis.param != request.decide) continue;
    for (const AxisValue& v : axis.values) {
      if (request.among.empty() || std::find(request.among.begin(), request.among.end(), v.label) != request.among.end()) {
        labels.push_back(v.label);
      }
    }
  }
  return labels;
}

// The decision's choice at its base point, as the report's Answer computes it, without the local
// and global analyses and with the shortest flip scan; "" when no alternative has a value.
std::string computed_choice(const ResolvedStudy& study, const SensitivityRequest& request) {
  SensitivityRequest choice_only = request;
  choice_only.flip.scan_steps = 1;
  choice_only.local = false;
  choice_only.morris.reset();
  choice_only.sobol.reset();
  try {
    const SensitivityAnalysis a = run_sensitivity(study, choice_only);
    return a.decision && a.decision->best != kNoAlternative ? a.alternatives[a.decision->best] : "";
  } catch (const std::invalid_argument&) {
    return "";
  }
}

}  // namespace

std::vector<ProseClaim> prose_choice_claims(std::string_view file, std::string_view source,
                                            const std::vector<std::string>& alternatives) {
  std::vector<ProseClaim> claims;
  const auto [begin, end] = sections_block(source);
  const std::string block(source.substr(begin, end - begin));
  static const std::regex kClaim(
      R"(([A-Za-z0-9_.-]+)\s+(wins\b|is\s+the\s+(?:best\s+choice|choice|winner|pick)\b))");
  for (auto it = std::sregex_iterator(block.begin(), block.end(), kClaim); it != std::sregex_iterator(); ++it) {
    const std::string id = (*it)[1];
    if (std::find(alternatives.begin(), alternatives.end(), id) == alternatives.end()) continue;
    const auto at = static_cast<std::size_t>(it->position(0));
    if (hedged(sentence_around(block, at, static_cast<std::size_t>(it->length(0))))) continue;
    std::string phrase;  // its words with one space between them
    for (const char c : it->str(0)) {
      const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
      if (!space) phrase += c;
      else if (phrase.back() != ' ') phrase += ' ';
    }
    claims.push_back({location_of(file, source, begin + at), id, phrase});
  }
  return claims;
}

std::vector<ProseContradiction> prose_contradictions(const ResolvedStudy& study, std::string_view source) {
  std::vector<const SensitivityRequest*> decisions;
  std::vector<std::vector<std::string>> alternatives;
  std::vector<std::string> all;
  for (const SensitivityRequest& r : analyses_of(study).sensitivities) {
    if (r.decide.empty()) continue;
    decisions.push_back(&r);
    alternatives.push_back(alternatives_of(study, r));
    all.insert(all.end(), alternatives.back().begin(), alternatives.back().end());
  }
  std::vector<ProseContradiction> out;
  if (decisions.empty()) return out;
  const std::vector<ProseClaim> claims = prose_choice_claims(study.file, source, all);
  std::vector<std::optional<std::string>> choices(decisions.size());  // computed when a claim needs one
  for (const ProseClaim& claim : claims) {
    std::vector<std::string> verdicts;  // of the decisions among whose alternatives the id is
    std::string cite;
    bool chosen = false;
    for (std::size_t d = 0; d < decisions.size(); ++d) {
      if (std::find(alternatives[d].begin(), alternatives[d].end(), claim.id) == alternatives[d].end()) continue;
      if (!choices[d]) choices[d] = computed_choice(study, *decisions[d]);
      if (choices[d]->empty()) continue;
      const SensitivityRequest& r = *decisions[d];
      verdicts.push_back(fmt::format("decision '{}' chooses {} for the {} {}", r.name, *choices[d],
                                     r.direction == Direction::minimize ? "lowest" : "highest", r.metric));
      if (cite.empty()) cite = fmt::format("{{{{decision.{}.choice}}}}", r.name);
      chosen = chosen || *choices[d] == claim.id;
    }
    if (chosen || verdicts.empty()) continue;
    std::string said;
    for (std::size_t v = 0; v < verdicts.size(); ++v) said += (v == 0 ? "" : v + 1 == verdicts.size() ? " and " : ", ") + verdicts[v];
    out.push_back({claim, fmt::format("the prose says '{}', but {}; cite {} instead of naming the choice", claim.phrase,
                                      said, cite)});
  }
  return out;
}

}  // namespace dsx
