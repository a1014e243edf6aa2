#include "dse/analysis/prose_claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <stdexcept>
#include <unordered_set>

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

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '\''; }

// Whether a word hedges the sentence it is in: a condition, a negation or a restriction.
bool hedge(std::string_view word) {
  static constexpr std::array<std::string_view, 17> kHedges = {
      "if", "unless", "when", "whenever", "while", "would", "could", "might", "should", "only",
      "not", "never", "no", "until", "once", "whether", "cannot"};
  std::string lower(word);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(kHedges.begin(), kHedges.end(), lower) != kHedges.end() || lower.ends_with("n't");
}

struct Word {
  std::size_t at = 0;        // offset in the text
  std::string_view text;
  std::size_t sentence = 0;  // index of its sentence
  bool spaced = false;       // only white space between it and the word before
};

// The words of `text` (runs of letters, digits, '_', '-' and '\''), each with its sentence, in one
// pass; `hedged` gets one flag per sentence.
std::vector<Word> words_of(std::string_view text, std::vector<bool>& hedged) {
  std::vector<Word> words;
  hedged.assign(1, false);
  bool spaced = false;
  for (std::size_t i = 0; i < text.size();) {
    if (!word_char(text[i])) {
      if (ends_sentence(text, i)) hedged.push_back(false);
      spaced = spaced && std::isspace(static_cast<unsigned char>(text[i])) != 0;
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && word_char(text[end])) ++end;
    words.push_back({i, text.substr(i, end - i), hedged.size() - 1, spaced});
    if (hedge(words.back().text)) hedged.back() = true;
    spaced = true;
    i = end;
  }
  return words;
}

// How many words after words[i] make "wins", "is the choice", "is the best choice", "is the
// winner" or "is the pick", separated by white space only; 0 when they do not.
std::size_t claim_length(const std::vector<Word>& words, std::size_t i) {
  const auto is = [&](std::size_t k, std::string_view w) {
    return i + k < words.size() && words[i + k].spaced && words[i + k].text == w;
  };
  if (is(1, "wins")) return 1;
  if (!is(1, "is") || !is(2, "the")) return 0;
  if (is(3, "choice") || is(3, "winner") || is(3, "pick")) return 3;
  return is(3, "best") && is(4, "choice") ? 4 : 0;
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
  const std::unordered_set<std::string_view> ids(alternatives.begin(), alternatives.end());
  std::vector<bool> hedged;
  const std::vector<Word> words = words_of(source.substr(begin, end - begin), hedged);
  int line = 1;
  std::size_t counted = 0, line_start = 0;  // newlines counted up to `counted`
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::size_t n = claim_length(words, i);
    if (n == 0 || hedged[words[i].sentence]) continue;
    if (ids.count(words[i].text) == 0) continue;
    const std::size_t at = begin + words[i].at;
    for (; counted < at; ++counted) {
      if (source[counted] == '\n') {
        ++line;
        line_start = counted + 1;
      }
    }
    std::string phrase(words[i].text);
    for (std::size_t k = 1; k <= n; ++k) {
      phrase += ' ';
      phrase += words[i + k].text;
    }
    claims.push_back({SourceLocation{std::string(file), line, static_cast<int>(at - line_start) + 1},
                      std::string(words[i].text), phrase});
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
