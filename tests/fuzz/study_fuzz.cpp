// libFuzzer target for the study loader (dse/study.hpp load_study_text), against the small frozen
// catalog of the malformed-study corpus (tests/malformed/catalog). Any input must either load or be
// rejected with at least one diagnostic; formatting the diagnostics must not fail either.
// Seed corpus: tests/fuzz/corpus/study (the shipped studies and tests/malformed/*.yaml).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "dse/study.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  dsx::Diagnostics diags;
  const auto study = dsx::load_study_text("fuzz.yaml", text, DSX_FUZZ_CATALOG_DIR, diags);
  if (!study && !diags.has_errors()) std::abort();  // a rejection without a message
  (void)diags.format();
  return 0;
}
