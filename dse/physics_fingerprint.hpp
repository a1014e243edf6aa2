// What the solver computes for a study, as a hash: the rows a run folder stores were computed by one
// version of the physics, and a sweep resumed by a dsx whose solver gives other numbers would mix
// two. The result identity (dse/result_identity.hpp) covers what the study asks for; this covers
// what the binary answers. `dsx run` refuses to resume a folder whose fingerprint differs (start it
// again with --fresh) and `dsx merge` refuses shards that differ.
//
// The fingerprint evaluates the solver at up to kFingerprintProbes points spread evenly over the
// study's whole grid (point k * size / probes, so every shard of a study computes the same one) and
// hashes each point's status, reason and metrics. Metrics are rounded to 40 bits of mantissa (about
// 12 significant digits) first, so a build of the same source with other optimisation flags does not
// refuse a folder over a last-bit difference; a change of the physics moves far more than that.
// A change that touches none of the probed points goes unnoticed: the probes sample the study's
// own grid, so a change that matters to this study is likely, not certain, to be seen.
#pragma once

#include <cstddef>
#include <string>

#include "dse/study.hpp"

namespace dsx {

// Store meta key of the fingerprint below.
inline constexpr const char* kPhysicsFingerprintKey = "physics_fingerprint";
inline constexpr std::size_t kFingerprintProbes = 64;

// A 64-bit hash (hex) of the solver's results at the probe points of the study's grid.
std::string physics_fingerprint(const ResolvedStudy& study);

}  // namespace dsx
