// Wave quantization: `tiles` equal blocks of work on a GPU whose `units` SMs (or CUs) run one block
// each at a time go in ceil(tiles / units) waves, and a partly filled last wave takes as long as a
// full one (NVIDIA, "Matrix Multiplication Background User's Guide", DU-09799-001, 2023, section 3.2
// "Wave Quantization": docs.nvidia.com/deeplearning/performance/pdf/
// Matrix-Multiplication-Background-User-Guide.pdf). The gemm solver's tiles,
// the attention solver's query tiles (engine/solvers/gemm.hpp, attention.hpp) and the serving step's
// GEMMs (engine/gemm_waves.hpp) all go through it.
#pragma once

namespace dsx {

struct Waves {
  double count = 1;       // ceil(tiles / units); 1 when the units are unknown
  double efficiency = 1;  // tiles / (count x units): the share of the waves' unit time doing work
  // count x one wave's time: given, or as one tile's FLOPs at one unit's share of flops_per_s (two
  // forms, so that each caller keeps the rounding its results were published with).
  double time_s(double wave_s) const { return count * wave_s; }
  double time_s(double tile_flops, double flops_per_s, double units) const {
    return count * tile_flops / (flops_per_s / units);
  }
};

// units <= 0 (unknown): one wave at efficiency 1.
Waves wave_quantization(double tiles, double units);

}  // namespace dsx
