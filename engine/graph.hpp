// Operator graphs: what a model asks of the hardware for one sample (or one token).
//
// Each op carries FLOPs and element counts rather than bytes, so the same graph serves every
// precision: bytes = elements x bytes_per_element(precision). Activations scale with the batch;
// weights are read once per op execution whatever the batch. Consecutive ops with the same
// `repeat` form a block executed `repeat` times (a transformer layer, a ResNet stage); order inside a
// block is execution order, which is what fusion (engine/fusion.hpp) relies on.
// Graphs are generated from architecture parameters by engine/model_builders.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

enum class OpKind : std::uint8_t {
  matmul,         // dense GEMM / linear layer
  conv,           // convolution (incl. depthwise)
  attention,      // score/softmax/value products of attention
  elementwise,    // activation, dropout, residual add, scale, bias
  normalization,  // LayerNorm, RMSNorm, BatchNorm (inference: per-channel affine)
  reduction,      // pooling, softmax over a large axis, loss
  embedding,      // table lookup
  memory,         // copies, transposes, concatenations
  // Kinds below carry their cost rules in engine/operators.hpp (one constructor each):
  grouped_conv,    // grouped / depthwise convolution: (C_in / groups) inputs per output, on the vector units
  selective_scan,  // Mamba's selective SSM scan (Gu & Dao 2023, arXiv:2312.00752, section 3.3)
  embedding_bag,   // pooled gathers from embedding tables (DLRM): bytes-bound, no table sweep
  ssd_scan,        // Mamba-2's chunked state-space-dual scan (Dao & Gu 2024, arXiv:2405.21060, section 6)
};

inline constexpr std::size_t kOpKindCount = 12;
// Ops that cannot use a GPU's matrix (tensor-core) units and run at the vector units' rate
// (engine/dispatch.hpp): grouped and depthwise convolutions, and Mamba-1's selective scan, whose
// reference kernel (state-spaces/mamba csrc/selective_scan/selective_scan_fwd_kernel.cuh) converts
// its inputs to float and runs the discretisation (exp2f), the cub::BlockScan over float2 pairs and
// the C contraction as scalar fp32 arithmetic on the CUDA cores.
constexpr bool runs_on_vector_units(OpKind k) { return k == OpKind::grouped_conv || k == OpKind::selective_scan; }
// The roof an op's FLOPs run under (engine/dispatch.hpp): `gemm`, the matrix products the tensor cores
// run at HardwareSpec::gemm_peak (dense GEMMs, convolutions as implicit GEMMs, attention's score and
// value products, and Mamba-2's SSD scan, whose chunks are batched matrix products, tl.dot in the
// reference Triton kernels, mamba_ssm/ops/triton/ssd_*.py; all at the graph's precision like the rest
// of the pass); `vector`, the vector units (runs_on_vector_units); `peak`, the precision's peak as
// stated (element-wise, normalization, reductions, lookups and copies, which the fp8 GEMM ratio does
// not describe).
enum class OpRoof : std::uint8_t { peak, vector, gemm };
inline constexpr std::size_t kOpRoofCount = 3;
constexpr OpRoof op_roof(OpKind k) {
  if (runs_on_vector_units(k)) return OpRoof::vector;
  return k == OpKind::matmul || k == OpKind::conv || k == OpKind::attention || k == OpKind::ssd_scan ? OpRoof::gemm
                                                                                                      : OpRoof::peak;
}
std::string_view op_kind_name(OpKind k);
std::optional<OpKind> parse_op_kind(std::string_view name);

struct Op {
  std::string name;
  OpKind kind = OpKind::elementwise;
  double flops_per_sample = 0;           // FLOP for one sample (or token), one execution
  double input_elements_per_sample = 0;  // activation elements read
  double output_elements_per_sample = 0; // activation elements written
  double weight_elements = 0;            // parameter elements read per execution (batch-independent)
  std::uint32_t kernels = 1;             // kernel launches per execution in eager mode
  std::uint32_t repeat = 1;              // executions per forward pass (e.g. number of layers)
  double attention_window = 0;           // attention ops of a sliding-window layer: keys a query attends; 0 = all
  // Recurrent ops (the scans and the short convolution of a Mamba layer): the elements one sequence
  // carries from token to token, whatever its length (engine/serving.hpp, recurrent_state_elements).
  double state_elements = 0;
};

// What one "sample" means for a graph: an image, an utterance, a token, a sequence.
struct ModelGraph {
  std::string id;
  std::string name;
  std::string sample_unit = "sample";
  double parameter_count = 0;         // every parameter, embedding tables included (what a checkpoint holds)
  double active_parameter_count = 0;  // parameters one sample/token uses (mixture of experts: k of E); 0 = all
  std::vector<Op> ops;
  std::string source;

  double total_flops_per_sample() const;
  double total_kernels() const;
  double total_weight_elements() const;  // weights one pass reads (gathered embedding tables excluded)
  double active_parameters() const { return active_parameter_count > 0 ? active_parameter_count : parameter_count; }
};

// The numbers of a graph's ops that a roofline walk reads, one array per field in op order, so a
// sweep's hot loop reads flat doubles and never an op's name. Built once per model (PreparedModel).
struct FlatGraph {
  std::vector<double> flops_per_sample;
  std::vector<double> activation_elements_per_sample;  // input + output elements
  std::vector<double> weight_elements;
  std::vector<double> kernels;
  std::vector<double> repeat;
  // op_roof of the op's kind, as its OpRoof value.
  std::vector<std::uint8_t> roof;
  double largest_activation_elements_per_sample = 0;   // the largest input + output of one op
  // Weights resident in memory: parameter_count (embedding rows a pass does not read included), or
  // the weights the ops read when the graph states no parameter count.
  double resident_weight_elements = 0;

  std::size_t size() const { return repeat.size(); }
};
FlatGraph flatten(const ModelGraph& graph);

}  // namespace dsx
