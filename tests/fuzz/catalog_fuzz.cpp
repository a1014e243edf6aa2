// libFuzzer target for the catalog loaders (dse/catalog.hpp load_hardware_text and
// load_models_text). The first input byte picks the loader (even: hardware, odd: models); the rest
// is the YAML text. An entry that is rejected must come with at least one diagnostic.
// Seed corpus: tests/fuzz/corpus/catalog (the shipped and frozen catalog files, prefixed).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "dse/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool models = (data[0] & 1U) != 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  dsx::Diagnostics diags;
  dsx::Catalog catalog;
  if (models) {
    dsx::load_models_text("models.yaml", text, catalog, diags);
  } else {
    dsx::load_hardware_text("hardware.yaml", text, catalog, diags);
  }
  (void)diags.format();
  if (!diags.has_errors()) (void)dsx::catalog_hash(catalog);
  return 0;
}
