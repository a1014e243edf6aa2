// The report's "Calibration and uncertainty" section: which profile gave the study's unset efficiency
// parameters their values, how well each regime's predictions agree with published measurements
// when the measurement's own source is left out of the fit, and which metrics carry an 80 % interval
// (studies/README.md, "calibration"; README, "Accuracy and intervals").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "dse/calibration/profile.hpp"
#include "dse/study.hpp"

namespace dsx {

// The 80 % interval of a regime as the range of measured / predicted it allows for a prediction of
// `orientation` (a time's is the speed's inverted): "-12 % / +9 %".
std::string interval_text(const RegimeAccuracy& regime, Orientation orientation = Orientation::rate);

// The template context of templates/partials/calibration.mustache.
nlohmann::ordered_json calibration_context(const ResolvedStudy& study);

}  // namespace dsx
