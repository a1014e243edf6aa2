// The shipped catalog (studies/catalog), loaded once per test binary for the tests that read its
// entries; a load error fails the test that first asks for it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "dse/catalog.hpp"

namespace dsx {

inline const std::string kShippedCatalogDir = std::string(DSX_SOURCE_DIR) + "/studies/catalog";

inline const Catalog& shipped_catalog() {
  static const Catalog c = [] {
    Diagnostics diags;
    Catalog loaded = load_catalog(kShippedCatalogDir, diags);
    EXPECT_FALSE(diags.has_errors()) << diags.format();
    return loaded;
  }();
  return c;
}

}  // namespace dsx
