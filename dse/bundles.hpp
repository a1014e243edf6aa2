// Bundles in a study: a catalog entry of regions.yaml, fabrics.yaml or nodes.yaml (dse/catalog.hpp)
// named like a parameter (`region: quebec`, `node: [dgx_h100, dgx_b200]`) sets several solver
// parameters at once. These helpers turn an entry into the values one solver takes and write the
// entries a resolved study uses; dse/study.cpp applies the rules (studies/README.md, "Bundles").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dse/catalog.hpp"
#include "engine/solver.hpp"

namespace dsx {

// One parameter a bundle sets: its index into solver.params(), the value handed to the solver (SI
// number, or an index into `catalog`'s hardware/models, a precision or choice index) and the label
// as the catalog wrote it.
struct BundleSetting {
  std::size_t param = 0;
  double value = 0;
  std::string label;
};

// The settings `bundle` makes for `solver`, in the solver's parameter order; values for parameters
// the solver lacks are skipped. A value the solver cannot take (outside its bounds, an id not in
// `catalog`) gives nullopt with the reason in `problem`. A node's topology sets the solver's
// torus_x, torus_y and torus_z (0 past its last dimension); `with_topology` has a node without one
// set them to 0 (a switched domain), so that an axis mixing both kinds sets the same parameters.
std::optional<std::vector<BundleSetting>> bundle_settings(const CatalogBundle& bundle, const Solver& solver,
                                                          const Catalog& catalog, std::string& problem,
                                                          bool with_topology = false);

// Whether `name` is one of the torus parameters a node's topology sets.
bool is_torus_param(std::string_view name);

// "carbon_intensity_g_per_kwh, pue": the parameter names of `bundle`'s values.
std::string bundle_value_names(const CatalogBundle& bundle);

// Appends `  regions:` / `  fabrics:` / `  nodes:` lists (under a `catalog:` key) holding `bundles`.
void write_bundle_entries(std::string& out, const std::vector<CatalogBundle>& bundles);

}  // namespace dsx
