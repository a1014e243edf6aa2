#include "output/bibliography.hpp"

#include <array>
#include <cstddef>
#include <vector>

namespace dsx {

namespace {

constexpr std::array<std::string_view, 1> kLab07 = {"seeds/000"};
constexpr std::array<std::string_view, 1> kStarving = {"seeds/001"};
constexpr std::array<std::string_view, 1> kDsc291 = {"seeds/002"};
constexpr std::array<std::string_view, 1> kFoundations = {"seeds/003"};
constexpr std::array<std::string_view, 1> kEta = {"seeds/004"};
constexpr std::array<std::string_view, 2> kModels = {"shared/reference/mlsysim-models.md",
                                                     "shared/reference mlsysim-models"};
constexpr std::array<std::string_view, 2> kCatalog = {"shared/reference/mlsysim-catalog.md",
                                                      "shared/reference mlsysim-catalog"};

const std::array<Reference, 7> kReferences = {{
    {kLab07,
     "V. J. Reddi, *Machine Learning Systems*, lab plan \"lab_07: ML Frameworks\" (dispatch tax, "
     "eager vs compiled execution, fusion, compile break-even), labs/plans/vol1/lab_07_ml_frameworks.md, 2026. "
     "<https://github.com/harvard-edge/cs249r_book>"},
    {kStarving,
     "mlsysim documentation, tutorial \"Starving the GPU\" (data pipeline: storage, CPU decode, "
     "accelerator step), mlsysim/docs in the *Machine Learning Systems* repository, 2026. "
     "<https://github.com/harvard-edge/cs249r_book>"},
    {kDsc291,
     "Hao AI Lab, DSC 291: ML Systems, Spring 2024, lecture slides (arithmetic "
     "intensity, GPU matmul tiling, ML compilation). <https://hao-ai-lab.github.io/dsc291-s24/>"},
    {kFoundations,
     "V. J. Reddi, *Machine Learning Systems*, appendix \"Machine Foundations\" (numbers to know, "
     "roofline, Amdahl, Gustafson, Little, training time, memory hierarchy, precision formats), 2026. "
     "<https://github.com/harvard-edge/cs249r_book>"},
    {kEta,
     "mlsysim documentation, \"Understanding the Efficiency Parameter\" (eta: what it absorbs, defaults by "
     "regime, calibration), mlsysim/docs in the *Machine Learning Systems* repository, 2026. "
     "<https://github.com/harvard-edge/cs249r_book>"},
    {kModels,
     "mlsysim 0.1.2, analytical models (mlsysim/mlsysim/physics), in the *Machine Learning Systems* "
     "repository; cited where dsx follows or departs from them. <https://github.com/harvard-edge/cs249r_book>"},
    {kCatalog,
     "mlsysim 0.1.2, hardware, model and infrastructure catalog (mlsysim/mlsysim), in the *Machine "
     "Learning Systems* repository. <https://github.com/harvard-edge/cs249r_book>"},
}};

// The reference and handle found at `p`, if any.
const Reference* reference_at(std::string_view text, std::size_t p, std::size_t& handle_size) {
  for (const Reference& r : kReferences) {
    for (const std::string_view handle : r.handles) {
      if (text.compare(p, handle.size(), handle) == 0) {
        handle_size = handle.size();
        return &r;
      }
    }
  }
  return nullptr;
}

}  // namespace

std::span<const Reference> all_references() { return kReferences; }

std::string cite_references(const std::string& markdown) {
  std::vector<const Reference*> cited;  // in order of first mention
  std::string out;
  out.reserve(markdown.size());
  const std::string_view text = markdown;
  std::size_t copied = 0;
  for (std::size_t p = 0; p < text.size(); ++p) {
    if (text[p] != 's') continue;
    std::size_t handle_size = 0;
    const Reference* r = reference_at(text, p, handle_size);
    if (r == nullptr) continue;
    std::size_t number = 0;
    while (number < cited.size() && cited[number] != r) ++number;
    if (number == cited.size()) cited.push_back(r);
    out.append(text, copied, p - copied);
    out += '[';
    out += std::to_string(number + 1);
    out += ']';
    copied = p + handle_size;
    p = copied - 1;
  }
  if (cited.empty()) return markdown;
  out.append(text, copied, std::string_view::npos);
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "\n## References\n\n";
  for (std::size_t i = 0; i < cited.size(); ++i) {
    out += std::to_string(i + 1) + ". " + std::string(cited[i]->entry) + "\n";
  }
  return out;
}

}  // namespace dsx
