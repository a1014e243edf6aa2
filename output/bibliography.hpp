// The documents dsx's formulas and reference numbers come from, as a reader can find them.
//
// Headers, solver descriptions, catalog sources and the shipped studies name these documents by a
// short handle (seeds/000 .. seeds/004 for the founding documents, "shared/reference mlsysim-models"
// and "mlsysim-catalog" for the restatements of mlsysim's models and catalog). A report must not
// send its reader to a path they cannot open: cite_references replaces each handle in a report's
// Markdown by a numbered citation, [n] in order of first mention, and appends a "References"
// section with the full entry of each document cited.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace dsx {

struct Reference {
  std::span<const std::string_view> handles;  // how the text names it, longest first
  std::string_view entry;                    // the full citation, Markdown
};

std::span<const Reference> all_references();

// `markdown` with every handle replaced by [n] and, when any was, a "## References" section
// appended; unchanged otherwise.
std::string cite_references(const std::string& markdown);

}  // namespace dsx
