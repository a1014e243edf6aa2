#include "dse/layouts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dsx {

namespace {

// One divides the other (TP groups tile nodes, or span whole nodes).
bool nest(std::uint64_t a, std::uint64_t b) { return a % b == 0 || b % a == 0; }

// The values `choice` offers for the GPUs `n` left (every divisor of n up to `max` for `any`, taken
// from the divisors of the job's GPU count, which n divides). Adds the values looked at to `work`.
std::vector<std::uint64_t> candidates(const LayoutChoice& choice, std::uint64_t n,
                                      const std::vector<std::uint64_t>& gpu_divisors, std::uint64_t& work) {
  if (!choice.any) {
    work += choice.values.size();
    return choice.values;
  }
  work += gpu_divisors.size();
  std::vector<std::uint64_t> out;
  for (std::uint64_t d : gpu_divisors) {
    if (d > n) break;
    if (n % d == 0 && (choice.max == 0 || d <= choice.max)) out.push_back(d);
  }
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// 'token', for messages (built by appending: GCC 12 warns falsely on "'" + std::string).
std::string quote(std::string_view token) {
  std::string out(1, '\'');
  out.append(token);
  out.push_back('\'');
  return out;
}

}  // namespace

std::vector<std::uint64_t> divisors(std::uint64_t n) {
  std::vector<std::uint64_t> low;
  std::vector<std::uint64_t> high;
  for (std::uint64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

std::optional<LayoutDrop> layout_refusal(const Layout& l, const LayoutFacts& facts) {
  // The training solver's order of checks (engine/solvers/training_layout.cpp).
  const auto node = static_cast<std::uint64_t>(facts.gpus_per_node);
  if (l.dp % l.ep != 0) return LayoutDrop::ep_not_dividing_dp;
  if (node > 0 && (!nest(l.tp, node) || (l.cp > 1 && !nest(l.tp * l.cp, node)))) return LayoutDrop::node_nesting;
  if (facts.heads > 0 && std::fmod(facts.heads, static_cast<double>(l.tp)) != 0) return LayoutDrop::heads;
  if (facts.seq_len > 0 && l.cp > 1 && std::fmod(facts.seq_len, 2.0 * static_cast<double>(l.cp)) != 0) {
    return LayoutDrop::sequence;
  }
  if (facts.layers > 0 && static_cast<double>(l.pp) * facts.virtual_stages > facts.layers) return LayoutDrop::layers;
  if (l.ep > 1 && facts.experts == 0) return LayoutDrop::experts;
  if (l.ep > 1 && facts.experts > 0 && std::fmod(facts.experts, static_cast<double>(l.ep)) != 0) {
    return LayoutDrop::experts;
  }
  return std::nullopt;
}

LayoutEnumeration enumerate_layouts(const LayoutRequest& request, std::span<const LayoutFacts> facts,
                                    std::uint64_t limit, std::uint64_t work_limit) {
  LayoutEnumeration out;
  const auto drop = [&](LayoutDrop why) { ++out.dropped[static_cast<std::size_t>(why)]; };
  const LayoutFacts none;
  if (facts.empty()) facts = std::span<const LayoutFacts>(&none, 1);
  std::uint64_t work = 0;
  for (std::uint64_t g : request.gpus) {
    const std::vector<std::uint64_t> all = divisors(g);
    work += all.size();
    for (std::uint64_t tp : candidates(request.tp, g, all, work)) {
      if (g % tp != 0) {
        drop(LayoutDrop::not_dividing_gpus);  // and every pp, cp and ep with it
        continue;
      }
      for (std::uint64_t pp : candidates(request.pp, g / tp, all, work)) {
        if ((g / tp) % pp != 0) {
          drop(LayoutDrop::not_dividing_gpus);
          continue;
        }
        for (std::uint64_t cp : candidates(request.cp, g / tp / pp, all, work)) {
          if ((g / tp / pp) % cp != 0) {
            drop(LayoutDrop::not_dividing_gpus);
            continue;
          }
          const std::uint64_t dp = g / tp / pp / cp;
          for (std::uint64_t ep : candidates(request.ep, dp, all, work)) {
            if (work > work_limit) {
              out.too_much_work = true;
              return out;
            }
            const Layout l{g, tp, pp, cp, ep, dp};
            std::optional<LayoutDrop> first;
            bool admitted = false;
            for (std::size_t f = 0; f < facts.size() && !admitted; ++f) {
              const std::optional<LayoutDrop> why = layout_refusal(l, facts[f]);
              admitted = !why;
              if (f == 0) first = why;
            }
            work += facts.size();
            if (!admitted) {
              drop(*first);
              continue;
            }
            if (out.layouts.size() >= limit) {
              out.truncated = true;
              return out;
            }
            out.layouts.push_back(l);
          }
        }
      }
    }
  }
  return out;
}

std::string layout_label(const Layout& layout, bool show_pp, bool show_cp, bool show_ep) {
  std::string out = "tp" + std::to_string(layout.tp);
  if (show_pp) out += " pp" + std::to_string(layout.pp);
  if (show_cp) out += " cp" + std::to_string(layout.cp);
  if (show_ep) out += " ep" + std::to_string(layout.ep);
  out += " dp" + std::to_string(layout.dp);
  return out;
}

std::optional<Layout> parse_layout_label(std::string_view label, std::string& problem) {
  static constexpr std::array<std::string_view, 5> kNames = {"tp", "pp", "cp", "ep", "dp"};
  const std::string form = "write a layout as 'tp8 pp16 cp1 ep1 dp128': the degrees in the order tp, pp, cp, ep, "
                           "dp, each at most once, dp required (a degree left out is 1)";
  std::array<std::uint64_t, 5> value = {1, 1, 1, 1, 0};
  std::size_t next = 0;  // the first name still allowed
  std::size_t i = 0;
  bool any = false;
  while (i < label.size()) {
    if (label[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < label.size() && label[end] != ' ') ++end;
    const std::string_view token = label.substr(i, end - i);
    i = end;
    std::size_t k = 0;
    while (k < kNames.size() && token.substr(0, 2) != kNames[k]) ++k;
    if (k == kNames.size() || token.size() < 3) {
      problem = quote(token) + " is not a parallel degree; " + form;
      return std::nullopt;
    }
    if (k < next) {
      problem = quote(token) + " is out of order or repeated; " + form;
      return std::nullopt;
    }
    const std::string_view digits = token.substr(2);
    if (!std::all_of(digits.begin(), digits.end(), is_digit) || digits.size() > 9 || digits.front() == '0') {
      problem = quote(token) + ": a degree is a positive integer written without sign, zeros in front "
                "or separators; " + form;
      return std::nullopt;
    }
    value[k] = std::stoull(std::string(digits));
    next = k + 1;
    any = true;
  }
  if (!any || value[4] == 0) {
    problem = "the layout gives no dp; " + form;
    return std::nullopt;
  }
  Layout out{0, value[0], value[1], value[2], value[3], value[4]};
  // Each degree is below 1e9, so the product of five fits in a double exactly enough to compare.
  const double gpus = static_cast<double>(out.tp) * static_cast<double>(out.pp) * static_cast<double>(out.cp) *
                      static_cast<double>(out.dp);
  if (gpus > static_cast<double>(std::numeric_limits<std::uint32_t>::max())) {
    problem = "the layout's tp x pp x cp x dp is beyond 4e9 GPUs";
    return std::nullopt;
  }
  out.gpus = out.tp * out.pp * out.cp * out.dp;
  return out;
}

std::string_view layout_drop_text(LayoutDrop drop) {
  switch (drop) {
    case LayoutDrop::not_dividing_gpus: return "tp x pp x cp does not divide gpus";
    case LayoutDrop::ep_not_dividing_dp: return "ep does not divide dp";
    case LayoutDrop::node_nesting: return "tp (or tp x cp) does not nest with gpus_per_node";
    case LayoutDrop::heads: return "tp does not divide the model's attention heads";
    case LayoutDrop::layers: return "pp x virtual_stages exceeds the model's layers";
    case LayoutDrop::sequence: return "the model's seq_len is not a multiple of 2 x cp";
    case LayoutDrop::experts: return "ep does not divide the model's routed experts (1 for a dense model)";
  }
  return "";
}

}  // namespace dsx
