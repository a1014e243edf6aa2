// A study's hand-written prose against its computed decisions, for `dsx validate`: where a section
// says outright that an alternative of a decision is the choice and the decision, computed at its
// base point, chooses another, the report would contradict itself, and dsx validate warns (the
// study still validates).
//
// Deliberately conservative, so that a warning is always worth reading:
// - only the phrasings "<id> wins" and "<id> is the choice" (also "the best choice", "the winner",
//   "the pick"), with <id> written exactly as a value of a decision's `decide:` axis;
// - only in the `sections:` block of the study file;
// - not when the sentence is conditional or negated (if, unless, when, would, could, only, not,
//   never, ...), so "b200 wins only at batch 1" and "if its price falls, b200 wins" pass;
// - not when <id> is the choice of any decision that has it among its alternatives.
// Text that cites the computed choice ({{decision.NAME.choice}}) names no id and is never checked.
// Finding the claims is one pass over the text, so a hostile study costs no more than its length.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dse/diagnostics.hpp"
#include "dse/study.hpp"

namespace dsx {

struct ProseClaim {
  SourceLocation where;  // of the id in the study file
  std::string id;        // the alternative the prose declares the choice
  std::string phrase;    // as written: "b200 wins"
};

// The unconditional claims "<id> wins" / "<id> is the choice" in the `sections:` block of
// `source` (the study file's text), for each id in `alternatives`.
std::vector<ProseClaim> prose_choice_claims(std::string_view file, std::string_view source,
                                            const std::vector<std::string>& alternatives);

struct ProseContradiction {
  ProseClaim claim;
  std::string message;  // names the decision, its choice, and how to cite it instead
};

// The claims of `study`'s prose that its decisions contradict. Evaluates the alternatives of each
// decision at its base point, and only when the prose makes a claim; a decision that cannot be
// computed (no alternative has a value) contradicts nothing.
std::vector<ProseContradiction> prose_contradictions(const ResolvedStudy& study, std::string_view source);

}  // namespace dsx
