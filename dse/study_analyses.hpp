// The study loader's hooks for the analysis blocks (derived:, filters:, constraints:, assertions:,
// top_k:, pareto:, breakeven:, sensitivity:; types in dse/analysis/blocks.hpp, file format in
// studies/README.md). Internal to dse/study.cpp, which calls them in this order:
//   1. read_study_analyses, once the axes and fixed values are read: the blocks' shape, keys,
//      names, units and expressions, reported at their YAML nodes; sets study.analyses and returns
//      the derived metrics' names, which objectives, comparisons and figures may then use;
//   2. check_study_analyses, after the rest of the study loaded without error: every break-even
//      and sensitivity request against the grid (dse/analysis/breakeven.hpp check_breakeven,
//      dse/analysis/sensitivity.hpp check_sensitivity), each problem at the YAML node its field
//      names; and analysis figure names against the study's figures;
//   3. write_study_analyses_yaml, from resolved_study_yaml: the blocks with every default explicit.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dse/study.hpp"
#include "dse/yaml_reader.hpp"

namespace dsx {

// The loader's selector reader ("param: value" normalised to axis labels), so that analysis
// blocks read `where:` exactly as comparisons and figures do.
using SelectorReader = std::function<std::optional<std::vector<Selector>>(const YamlNode&, const std::string&)>;

std::vector<std::string> read_study_analyses(const YamlReader& reader, const YamlNode& root, ResolvedStudy& study,
                                             const SelectorReader& read_selectors);

// Returns false when it reported a problem.
bool check_study_analyses(const YamlReader& reader, const YamlNode& root, const ResolvedStudy& study);

void write_study_analyses_yaml(const ResolvedStudy& study, std::string& out);

// A derived metric as a MetricSpec (views into study.analyses), for the loader's dimension checks.
// `index` counts the derived metrics from 0.
MetricSpec derived_metric_spec(const ResolvedStudy& study, std::size_t index);

}  // namespace dsx
