// A study for the figure and report tests whose rows come from a real evaluation: square matrix
// multiplies (C = A B, all N x N) on the catalog's A100 80GB and H100 SXM, at several precisions.
//
// The test solver "square_matmul" counts one multiply of N x N matrices that reads A and B and
// writes C once: 2 N^3 FLOP over 3 N^2 elements, intensity 2N / (3 x bytes per element)
// (seeds/003 "A Concrete Example: The A100 Analysis": N = 4096 at fp16 gives N / 3 = 1,365 FLOP/B),
// and times it with the roofline of engine/roofline.hpp: compute time = FLOP / (eta x peak), memory
// time = bytes / bandwidth, achieved FLOP/s = FLOP / max(compute, memory). A precision the device has
// no peak for is infeasible. It has what the inference solver lacks for a roofline: a FLOP/s metric.
#pragma once

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/catalog.hpp"
#include "dse/diagnostics.hpp"
#include "dse/results.hpp"
#include "dse/study.hpp"
#include "engine/precision.hpp"
#include "engine/roofline.hpp"
#include "engine/solver.hpp"

namespace dsx::figure_fixture {

class SquareMatmulSolver final : public Solver {
 public:
  enum Param : std::size_t { hardware, precision, n, eta, kParamCount };
  enum Metric : std::size_t {
    intensity_flop_per_byte,
    achieved_flops_per_s,
    latency_s,
    compute_s,
    memory_s,
    operand_bytes,
    result_bytes,
    kMetricCount
  };

  std::string_view name() const override { return "square_matmul"; }
  std::string_view description() const override { return "one N x N matmul on the roofline (test solver)"; }
  std::span<const ParamSpec> params() const override { return kParams; }
  std::span<const MetricSpec> metrics() const override { return kMetrics; }
  std::span<const std::string_view> reasons() const override { return kReasons; }

  PointResult evaluate(const PointInputs& in, std::span<double> out) const override {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    const Precision p = kAllPrecisions[static_cast<std::size_t>(in.values[precision])];
    if (!in.hardware->supports(p)) return {PointStatus::infeasible, 0};
    const double size = in.values[n];
    const double bytes_per = bytes_per_element(p);
    const double flops = 2 * size * size * size;
    const double bytes = 3 * size * size * bytes_per;
    const double compute = flops / (in.hardware->peak(p) * in.values[eta]);
    const double memory = bytes / in.hardware->memory_bandwidth_bytes_per_s;
    out[intensity_flop_per_byte] = flops / bytes;
    out[achieved_flops_per_s] = flops / std::max(compute, memory);
    out[latency_s] = std::max(compute, memory);
    out[compute_s] = compute;
    out[memory_s] = memory;
    out[operand_bytes] = 2 * size * size * bytes_per;
    out[result_bytes] = size * size * bytes_per;
    return {};
  }

 private:
  static constexpr std::array<ParamSpec, kParamCount> kParams = {{
      {.name = "hardware", .kind = ParamKind::hardware, .description = "accelerator"},
      {.name = "precision", .kind = ParamKind::precision, .description = "element type"},
      {.name = "n", .kind = ParamKind::number, .dimension = Dimension::count, .description = "matrix size N",
       .min_value = 1, .max_value = 1e6, .integer = true},
      {.name = "eta", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
       .description = "achieved fraction of peak", .min_value = 0, .max_value = 1, .min_exclusive = true},
  }};
  static constexpr std::array<MetricSpec, kMetricCount> kMetrics = {{
      {"intensity_flop_per_byte", Dimension::dimensionless, "2 N^3 / (3 N^2 x bytes per element)"},
      {"achieved_flops_per_s", Dimension::flop_rate, "FLOP / latency"},
      {"latency_s", Dimension::time, "max(compute_s, memory_s)"},
      {"compute_s", Dimension::time, "FLOP / (eta x peak)"},
      {"memory_s", Dimension::time, "bytes / bandwidth"},
      {"operand_bytes", Dimension::bytes, "A and B"},
      {"result_bytes", Dimension::bytes, "C"},
  }};
  static constexpr std::array<std::string_view, 1> kReasons = {"precision not supported by the hardware"};
};

inline const SquareMatmulSolver kSolver;

struct Fixture {
  ResolvedStudy study;
  ResultTable results;
  std::vector<std::size_t> pareto;  // none: the study has no objectives
};

// hardware {a100_80gb_sxm, h100_sxm} x precision {fp16, fp32, fp8} x n {256 ... 8192}, eta 0.7; the
// A100 has no fp8 peak, so those 6 rows are infeasible. Hardware comes from studies/catalog.
inline Fixture matmul_study(const std::string& source_dir) {
  Fixture f;
  ResolvedStudy& st = f.study;
  st.file = "tests/output/matmul.yaml";
  st.name = "matmul_fixture";
  st.title = "Square matmuls on the roofline";
  st.question = "Where do square matrix multiplies sit under the A100 and H100 roofs?";
  st.content_hash = "00000000feedf00d";
  st.solver = &kSolver;
  Diagnostics diags;
  const Catalog all = load_catalog(source_dir + "/studies/catalog", diags);
  if (diags.has_errors()) throw std::runtime_error(diags.format());
  for (const char* id : {"a100_80gb_sxm", "h100_sxm"}) {
    const HardwareSpec* h = all.find_hardware(id);
    if (h == nullptr) throw std::runtime_error(std::string("catalog has no ") + id);
    st.catalog.hardware.push_back(*h);
  }
  using P = SquareMatmulSolver::Param;
  const auto precision_value = [](Precision p) { return static_cast<double>(index_of(p)); };
  st.axes = {Axis{"hardware", P::hardware, {{"a100_80gb_sxm", 0}, {"h100_sxm", 1}}},
             Axis{"precision", P::precision,
                  {{"fp16", precision_value(Precision::fp16)},
                   {"fp32", precision_value(Precision::fp32)},
                   {"fp8", precision_value(Precision::fp8)}}},
             Axis{"n", P::n, {}}};
  for (double size : {256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0}) {
    st.axes.back().values.push_back({std::to_string(static_cast<int>(size)), size});
  }
  for (const Axis& a : st.axes) st.is_axis[a.param_index] = true;
  st.fixed_labels[P::eta] = "0.7";
  st.fixed_values[P::eta] = 0.7;

  ResultTable& t = f.results;
  for (const Axis& a : st.axes) t.axis_names.push_back(a.param);
  for (const MetricSpec& m : kSolver.metrics()) t.metric_names.emplace_back(m.name);
  for (std::string_view r : kSolver.reasons()) t.reasons.emplace_back(r);
  std::size_t index = 0;
  std::vector<double> out(kSolver.metrics().size());
  for (const AxisValue& h : st.axes[0].values) {
    for (const AxisValue& p : st.axes[1].values) {
      for (const AxisValue& size : st.axes[2].values) {
        PointInputs in;
        in.hardware = &st.catalog.hardware[static_cast<std::size_t>(h.value)];
        in.values = st.fixed_values;
        in.values[P::hardware] = h.value;
        in.values[P::precision] = p.value;
        in.values[P::n] = size.value;
        const PointResult r = kSolver.evaluate(in, out);
        t.point_index.push_back(index++);
        t.push_labels({h.label, p.label, size.label});
        t.status.push_back(r.status);
        t.push_detail(r.status == PointStatus::ok ? "" : std::string(kSolver.reasons()[r.reason]));
        t.metrics.insert(t.metrics.end(), out.begin(), out.end());
      }
    }
  }
  return f;
}

inline FigureDecl roofline_decl() {
  FigureDecl d;
  d.name = "roofline";
  d.kind = FigureKind::roofline;
  d.title = "Square matmuls under the A100 and H100 roofs";
  d.caption = "Small matrices sit on the sloped memory roof; large ones reach the flat compute roof.";
  d.x = "intensity_flop_per_byte";
  d.y = {"achieved_flops_per_s"};
  d.group = "hardware";
  d.where = {{"precision", "fp16"}};
  d.log_x = d.log_y = true;
  return d;
}

inline FigureDecl heatmap_decl() {
  FigureDecl d;
  d.name = "latency_map";
  d.kind = FigureKind::heatmap;
  d.title = "Latency of one matmul (A100 80GB)";
  d.caption = "Latency grows with N; fp32 is slowest.";
  d.x = "n";
  d.y = {"precision"};
  d.z = "latency_s";
  d.log_z = true;
  d.where = {{"hardware", "a100_80gb_sxm"}};
  return d;
}

inline FigureDecl crossover_decl() {
  FigureDecl d;
  d.name = "compute_vs_memory";
  d.kind = FigureKind::line;
  d.title = "Compute time and memory time (A100 80GB, fp16)";
  d.caption = "Compute time grows as N^3 and memory time as N^2, so they cross.";
  d.x = "n";
  d.y = {"compute_s", "memory_s"};
  d.where = {{"hardware", "a100_80gb_sxm"}, {"precision", "fp16"}};
  d.log_x = d.log_y = true;
  d.crossover = true;
  return d;
}

inline FigureDecl memory_bars_decl() {
  FigureDecl d;
  d.name = "memory";
  d.kind = FigureKind::bars;
  d.title = "Matrix memory (fp16)";
  d.caption = "Operands take two thirds.";
  d.x = "n";
  d.y = {"operand_bytes", "result_bytes"};
  d.where = {{"hardware", "a100_80gb_sxm"}, {"precision", "fp16"}};
  d.width = FigureWidth::single_column;
  return d;
}

}  // namespace dsx::figure_fixture
