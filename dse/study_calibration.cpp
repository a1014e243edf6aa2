#include <algorithm>
#include <filesystem>
#include <memory>

#include "dse/calibration/profile.hpp"
#include "dse/study_loader.hpp"

namespace dsx::study_loading {

namespace {

namespace fs = std::filesystem;

// The profile names a catalog offers: the stems of calibration/*.yaml.
std::vector<std::string> profile_names(const std::string& catalog_dir) {
  std::vector<std::string> names{"none"};
  std::error_code ec;
  const fs::path dir = fs::path(catalog_dir) / "calibration";
  if (catalog_dir.empty() || !fs::is_directory(dir, ec)) return names;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin() + 1, names.end());
  return names;
}

}  // namespace

void StudyLoader::read_calibration(const YamlNode* node, const std::string& catalog_dir) {
  const auto use = [&](const std::string& file, const std::string& name) {
    if (auto profile = load_profile(file, r_.diags())) {
      s_.calibration = std::make_shared<const CalibrationProfile>(std::move(*profile));
      s_.calibration_name = name;
    }
  };
  if (node == nullptr) {
    std::error_code ec;
    const fs::path shipped = fs::path(catalog_dir) / "calibration" / "default.yaml";
    if (!catalog_dir.empty() && fs::is_regular_file(shipped, ec)) use(shipped.string(), "default");
    return;
  }
  if (node->is_mapping()) {
    if (auto profile = read_profile(r_, *node, "calibration")) {
      s_.calibration_name = profile->name;
      s_.calibration = std::make_shared<const CalibrationProfile>(std::move(*profile));
    }
    return;
  }
  const auto text = r_.string(*node, "calibration");
  if (!text || *text == "none") return;
  const bool is_path = text->find('/') != std::string::npos || fs::path(*text).extension() == ".yaml";
  if (is_path) {
    const fs::path file = fs::path(s_.file).parent_path() / *text;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      r_.error(*node, "calibration: no profile file '" + file.string() + "' (a path is read relative to the study's folder)");
      return;
    }
    use(file.string(), *text);
    return;
  }
  const std::vector<std::string> names = profile_names(catalog_dir);
  if (std::find(names.begin(), names.end(), *text) == names.end()) {
    r_.unknown(*node, "calibration profile", names);
    return;
  }
  use((fs::path(catalog_dir) / "calibration" / (*text + ".yaml")).string(), *text);
}

}  // namespace dsx::study_loading
