// Computed values a study's prose may cite, so that a hand-written sentence cannot say the opposite
// of the numbers below it. A section's text may hold references in double braces, replaced when the
// report is written by the same values the generated Answer and the CSVs carry:
//
//   {{decision.NAME.choice}}      the alternative a sensitivity analysis with `decide:` chooses
//   {{decision.NAME.next}}        the runner-up
//   {{decision.NAME.margin}}      how much worse the runner-up is, in percent of the choice
//   {{decision.NAME.value}}       the choice's metric value, with its unit
//   {{decision.NAME.next_value}}  the runner-up's
//   {{best.NAME}}                 the best design point of an objective (needs top_k); NAME is
//                                 the objective's name:, else its metric
//   {{best.NAME.value}}           its value
//   {{breakeven.NAME}}            the break-even analysis's statement for its first group
//   {{compare.NAME.dsx}}          dsx's value of a compare entry, with its unit
//   {{compare.NAME.difference}}   its signed difference from the expected value ("-24.3 %")
//   {{value.NAME}}                a values: entry (dse/analysis/cited_values.hpp, values.csv) in
//                                 the report's units; an infeasible point's status word
//
// Sections, figure captions and compare explanations may cite them.
// The loader checks every reference against the study's analyses (file:line:col of the text, the
// valid names and the closest match); output/analysis_report.hpp cited_values computes the
// decisions', bests' and break-evens', output/cited_value.hpp prints the values.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

struct ResolvedStudy;

struct TextReference {
  std::size_t offset = 0;  // of the opening braces in the text
  std::size_t length = 0;  // through the closing braces
  std::string key;         // what is between the braces, trimmed: "decision.cost.choice"
};

// Every {{...}} in `text`, in order. An opening "{{" without a closing "}}" is one reference whose
// key is empty and whose length runs to the end of the text.
std::vector<TextReference> find_text_references(std::string_view text);

// The keys the study's analyses define, sorted: what a section may cite.
std::vector<std::string> citable_keys(const ResolvedStudy& study);

// `text` with each reference replaced by lookup(key).
template <typename Lookup>
std::string expand_text_references(std::string_view text, const Lookup& lookup) {
  std::string out;
  std::size_t at = 0;
  for (const TextReference& r : find_text_references(text)) {
    out.append(text.substr(at, r.offset - at));
    out += lookup(r.key);
    at = r.offset + r.length;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace dsx
