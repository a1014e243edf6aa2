// Every valid layout of N GPUs: the factorizations gpus = tp x pp x cp x dp (plus ep inside dp) that a
// study's `layout:` axis asks for (studies/README.md, "Layout axes"). The study loader
// (dse/study_layout.cpp) reads the request and the facts it knows, and turns each layout into one
// value of a bundle-like axis that sets gpus, tp, pp, cp and ep together.
//
// A layout is dropped here only for a reason the training solver would give for every point of it
// (engine/solvers/training_layout.cpp, its infeasibility reasons), and only where the study fixes the fact
// the reason needs: the model (layers, heads, sequence, experts), gpus_per_node and virtual_stages.
// What depends on the rest of the run (memory, the global batch) is left to the solver, which
// reports it per point with its reason.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

// The key of a layout axis under axes:; selectors, figures and analyses name it like a bundle kind.
inline constexpr std::string_view kLayoutAxis = "layout";

// The values one parallel degree may take: a list, or `any` (every divisor of the GPUs left, up to
// `max`, the parameter's upper bound).
struct LayoutChoice {
  bool any = false;
  std::vector<std::uint64_t> values{1};  // in the order written; ignored when `any`
  std::uint64_t max = 0;                 // the parameter's bound; 0 = none
};

// What a study asks for. A degree the solver does not have is held at 1 and never shown.
struct LayoutRequest {
  std::vector<std::uint64_t> gpus;  // each > 0, in the order written
  LayoutChoice tp, pp, cp, ep;  // a degree the solver does not have stays at {1}
};

// Facts the loader knows (0 = unknown, so no layout is dropped for that reason).
struct LayoutFacts {
  double gpus_per_node = 0;  // TP (and TP x CP) groups must nest with the node
  double layers = 0;         // pp x virtual_stages must not exceed them
  double virtual_stages = 1;
  double heads = 0;          // tp must divide them
  double seq_len = 0;        // a multiple of 2 x cp (the load-balanced causal split)
  double experts = -1;       // -1 unknown; 0 a dense model (ep 1 only); else ep must divide them
};

struct Layout {
  std::uint64_t gpus = 0, tp = 1, pp = 1, cp = 1, ep = 1, dp = 0;
};

// Why a combination of the written degrees was left out, in the order they are checked.
enum class LayoutDrop : std::uint8_t {
  not_dividing_gpus,   // tp x pp x cp does not divide gpus
  ep_not_dividing_dp,  // ep must divide dp
  node_nesting,        // tp (or tp x cp) and gpus_per_node: neither divides the other
  heads,               // tp does not divide the attention heads
  layers,              // pp x virtual_stages exceeds the layers
  sequence,            // seq_len is not a multiple of 2 x cp
  experts,             // ep > 1 on a dense model, or ep not dividing the routed experts
};
inline constexpr std::size_t kLayoutDropCount = 7;

struct LayoutEnumeration {
  std::vector<Layout> layouts;  // gpus in order, then tp, pp, cp, ep (the last fastest)
  // How often each reason cut a combination or a branch of them: nonzero = it left something out.
  std::array<std::uint64_t, kLayoutDropCount> dropped{};
  bool truncated = false;                                  // stopped at `limit` layouts
  bool too_much_work = false;                              // stopped at `work_limit`
};

// Every layout of `request` that `facts` do not rule out, at most `limit` of them (then `truncated`).
// With several facts (one per model of a model axis) a layout is kept when one of them admits it, so
// that only what the solver would refuse at every point is left out; a layout every one refuses is
// counted under the first one's reason.
// The work (values looked at) is bounded by `work_limit`, so that a hostile request (every divisor
// of many highly composite GPU counts, every one then refused) costs a bounded time: past it the
// enumeration stops with `too_much_work`.
inline constexpr std::uint64_t kMaxLayoutWork = 50'000'000;
LayoutEnumeration enumerate_layouts(const LayoutRequest& request, std::span<const LayoutFacts> facts,
                                    std::uint64_t limit, std::uint64_t work_limit = kMaxLayoutWork);
inline LayoutEnumeration enumerate_layouts(const LayoutRequest& request, const LayoutFacts& facts, std::uint64_t limit,
                                           std::uint64_t work_limit = kMaxLayoutWork) {
  return enumerate_layouts(request, std::span<const LayoutFacts>(&facts, 1), limit, work_limit);
}

// Why the training solver would refuse `layout` given `facts`, or nullopt.
std::optional<LayoutDrop> layout_refusal(const Layout& layout, const LayoutFacts& facts);

// The divisors of n in ascending order (n >= 1).
std::vector<std::uint64_t> divisors(std::uint64_t n);

// "tp4 pp8 cp1 dp32": the degrees shown (pp when the solver has it, cp and ep when the request lets
// them be other than 1), then dp.
std::string layout_label(const Layout& layout, bool show_pp, bool show_cp, bool show_ep);

// A label read back ("tp8 pp16 dp128", as a resolved study writes its layout axis): the degrees in the
// order tp, pp, cp, ep, dp, each at most once, dp required, a degree left out being 1; gpus is their
// product. nullopt with the reason in `problem`.
std::optional<Layout> parse_layout_label(std::string_view label, std::string& problem);

// "tp x pp x cp does not divide gpus", for messages.
std::string_view layout_drop_text(LayoutDrop drop);

}  // namespace dsx
