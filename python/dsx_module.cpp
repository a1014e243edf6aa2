// The dsx Python module: the catalog, one design point, many design points at once, a whole study run,
// and a run folder's tables as pandas DataFrames, over the same code as the dsx command
// (dse/cli/commands.hpp). Bad input raises dsx.Error with the messages the command prints
// (file:line:col, the valid choices, the closest match).
#include <dlfcn.h>
#include <fcntl.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/catalog.hpp"
#include "dse/cli/commands.hpp"
#include "dse/diagnostics.hpp"
#include "dse/grid.hpp"
#include "dse/study.hpp"
#include "engine/solver.hpp"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace dsx::python {
namespace {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

py::object from_json(const nlohmann::ordered_json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

std::string catalog_dir_or_default(const std::optional<std::string>& catalog) {
  return catalog ? *catalog : cli::default_catalog_dir();
}

// A Python value as the study loader reads it: strings as written ("10 us", "h100_sxm"), numbers in
// SI units, booleans as on/off.
std::string value_text(py::handle value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "on" : "off";
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value)) return py::repr(value).cast<std::string>();
  return py::str(value).cast<std::string>();
}

bool is_sequence(py::handle value) {
  return !py::isinstance<py::str>(value) && (py::isinstance<py::array>(value) || py::isinstance<py::list>(value) ||
                                             py::isinstance<py::tuple>(value));
}

py::object catalog(const std::string& section, const std::optional<std::string>& catalog_dir) {
  Diagnostics diags;
  const Catalog c = load_catalog(catalog_dir_or_default(catalog_dir), diags);
  if (diags.has_errors()) throw Error(diags.format());
  std::vector<std::string> sections = {"all", "hardware", "models"};
  for (const BundleKind& k : kBundleKinds) sections.emplace_back(k.list_key);
  sections.emplace_back("solvers");
  if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
    std::string valid;
    for (const std::string& s : sections) valid += (valid.empty() ? "" : ", ") + s;
    throw Error("unknown catalog section '" + section + "'; valid sections: " + valid);
  }
  return from_json(cli::catalog_json(c, section));
}

std::optional<ResolvedStudy> study_of(const std::string& solver, const std::vector<std::string>& assignments,
                                      const std::optional<std::string>& catalog_dir,
                                      const std::optional<std::string>& calibration) {
  std::string errors;
  auto study = cli::one_point_study(solver, assignments, catalog_dir_or_default(catalog_dir),
                                    calibration.value_or(""), errors);
  if (!study) throw Error(errors);
  return study;
}

py::object eval_point(const std::string& solver, const std::optional<std::string>& calibration,
                      const std::optional<std::string>& catalog_dir, const py::kwargs& params) {
  std::vector<std::string> assignments;
  for (const auto& [key, value] : params) assignments.push_back(py::str(key).cast<std::string>() + "=" + value_text(value));
  const auto study = study_of(solver, assignments, catalog_dir, calibration);
  const Grid grid(*study);
  PointInputs inputs;
  grid.inputs(0, inputs);
  std::vector<double> values(study->solver->metrics().size());
  const PointResult result = study->solver->evaluate(inputs, values);
  return from_json(cli::point_json(*study, inputs, values, result));
}

// Many points of one solver: scalar parameters as in eval(), array parameters (numbers in SI units,
// all of one length) varying together point by point. Returns one numpy array per metric and a
// `status` array (0 ok, 1 infeasible, 2 error), evaluated without the GIL.
py::dict eval_many(const std::string& solver_name, const py::dict& params, const std::optional<std::string>& calibration,
                   const std::optional<std::string>& catalog_dir) {
  std::vector<std::string> assignments;
  std::vector<std::pair<std::string, py::array_t<double, py::array::c_style | py::array::forcecast>>> arrays;
  py::ssize_t n = -1;
  for (const auto& [key, value] : params) {
    const std::string name = py::str(key).cast<std::string>();
    if (!is_sequence(value)) {
      assignments.push_back(name + "=" + value_text(value));
      continue;
    }
    auto array = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
    if (!array || array.ndim() != 1) throw Error("eval_many: '" + name + "' must be a 1-D array of numbers in SI units");
    if (n >= 0 && array.shape(0) != n) {
      throw Error("eval_many: the arrays differ in length ('" + name + "' has " + std::to_string(array.shape(0)) +
                  ", the others " + std::to_string(n) + ")");
    }
    n = array.shape(0);
    if (n == 0) throw Error("eval_many: '" + name + "' is empty");
    assignments.push_back(name + "=" + py::repr(py::float_(array.at(0))).cast<std::string>());
    arrays.emplace_back(name, std::move(array));
  }
  if (n < 0) n = 1;
  const auto study = study_of(solver_name, assignments, catalog_dir, calibration);
  const Solver& solver = *study->solver;
  const auto specs = solver.params();
  std::vector<std::pair<std::size_t, const double*>> varying;
  for (const auto& [name, array] : arrays) {
    std::size_t p = 0;
    while (p < specs.size() && specs[p].name != name) ++p;
    const ParamSpec& spec = specs[p];
    if (spec.kind != ParamKind::number) {
      throw Error("eval_many: '" + name + "' is not a number parameter; give choices and catalog ids one value at a time");
    }
    const double* data = array.data();
    for (py::ssize_t i = 0; i < n; ++i) {
      const double v = data[i];
      const bool below = spec.min_exclusive ? v <= spec.min_value : v < spec.min_value;
      if (!std::isfinite(v) || below || v > spec.max_value || (spec.integer && v != std::floor(v))) {
        std::ostringstream what;
        what << "eval_many: " << name << "[" << i << "] = " << v << " is outside " << (spec.min_exclusive ? "(" : "[")
             << spec.min_value << ", " << spec.max_value << "]" << (spec.integer ? " or not an integer" : "");
        throw Error(what.str());
      }
    }
    varying.emplace_back(p, data);
  }
  const Grid grid(*study);
  PointInputs base;
  grid.inputs(0, base);
  const auto metrics = solver.metrics();
  std::vector<py::array_t<double>> columns;
  std::vector<double*> column_data;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    columns.emplace_back(n);
    column_data.push_back(columns.back().mutable_data());
  }
  py::array_t<std::uint8_t> status(n);
  std::uint8_t* status_data = status.mutable_data();
  {
    py::gil_scoped_release release;
    std::vector<double> row(metrics.size());
    PointInputs in = base;
    for (py::ssize_t i = 0; i < n; ++i) {
      for (const auto& [p, data] : varying) in.values[p] = data[i];
      PointResult r;
      try {
        r = solver.evaluate(in, row);
      } catch (const std::exception&) {
        r.status = PointStatus::error;
        std::fill(row.begin(), row.end(), std::nan(""));
      }
      status_data[i] = static_cast<std::uint8_t>(r.status);
      for (std::size_t m = 0; m < row.size(); ++m) column_data[m][i] = row[m];
    }
  }
  py::dict out;
  for (std::size_t m = 0; m < metrics.size(); ++m) out[py::str(std::string(metrics[m].name))] = columns[m];
  out["status"] = status;
  return out;
}

// Runs `fn` with the process's stdout and stderr going to a file; returns what they printed.
template <typename Fn>
std::string capturing_output(Fn fn, int& code) {
  std::fflush(stdout);
  std::fflush(stderr);
  char path[] = "/tmp/dsx-python-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("dsx: cannot create a temporary file");
  const int saved_out = dup(1), saved_err = dup(2);
  dup2(fd, 1);
  dup2(fd, 2);
  try {
    code = fn();
  } catch (...) {
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    close(fd);
    std::remove(path);
    throw;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  return text.str();
}

std::string run_study(const std::string& study, const std::optional<std::string>& out, int threads, bool fresh,
                      const std::optional<std::string>& catalog_dir) {
  std::vector<std::string> args = {study, "--quiet"};
  if (out) args.insert(args.end(), {"--out", *out});
  if (threads > 0) args.insert(args.end(), {"--threads", std::to_string(threads)});
  if (fresh) args.emplace_back("--fresh");
  if (catalog_dir) args.insert(args.end(), {"--catalog", *catalog_dir});
  int code = 0;
  std::string printed;
  {
    py::gil_scoped_release release;
    printed = capturing_output([&] { return cli::run_command(args); }, code);
  }
  if (code != cli::kSuccess) {
    throw Error(printed.empty() ? "dsx run failed with exit code " + std::to_string(code) : printed);
  }
  const std::string marker = "report: ";
  const std::size_t at = printed.find(marker);
  if (at == std::string::npos) return out.value_or("");
  const std::string report = printed.substr(at + marker.size(), printed.find('\n', at) - at - marker.size());
  return fs::path(report).parent_path().string();
}

py::dict load(const std::string& run_dir) {
  if (!fs::exists(fs::path(run_dir) / "results.csv")) {
    throw Error(run_dir + ": not a dsx run folder (no results.csv); dsx.run() or `dsx run` writes one");
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  const py::object read_csv = py::module_::import("pandas").attr("read_csv");
  py::dict tables;
  for (const fs::path& f : files) tables[py::str(f.stem().string())] = read_csv(f.string());
  return tables;
}

// An installed module (<prefix>/lib/python3/dist-packages) reads the data of its installation,
// <prefix>/share/dsx, unless DSX_DATA_DIR says otherwise.
void point_at_installed_data() {
  const char* set = std::getenv("DSX_DATA_DIR");
  if (set != nullptr && *set != '\0') return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&point_at_installed_data), &info) == 0 || info.dli_fname == nullptr) return;
  const fs::path installed = (fs::path(info.dli_fname).parent_path() / "../../../share/dsx").lexically_normal();
  std::error_code ec;
  if (fs::is_directory(installed / "studies" / "catalog", ec)) setenv("DSX_DATA_DIR", installed.c_str(), 0);
}

}  // namespace
}  // namespace dsx::python

PYBIND11_MODULE(dsx, m) {
  using namespace dsx::python;
  namespace cli = dsx::cli;
  point_at_installed_data();
  m.doc() = "dsx: design-space exploration of ML systems (catalog, eval, eval_many, run, load)";
  m.attr("__version__") = DSX_VERSION;
  py::register_exception<Error>(m, "Error", PyExc_ValueError);
  m.def("data_dir", &cli::data_dir,
        "The folder dsx reads its catalog, templates and shipped studies from (DSX_DATA_DIR, the installation's "
        "share/dsx, or the source tree).");
  m.def("catalog", &catalog, py::arg("section") = "all", py::arg("catalog") = py::none(),
        "What the catalog holds, as `dsx catalog --json` prints it: hardware, models, bundles, solvers.");
  m.def("eval", &eval_point, py::arg("solver"), py::kw_only(), py::arg("calibration") = py::none(),
        py::arg("catalog") = py::none(),
        "One design point, as `dsx eval SOLVER key=value... --json` prints it: inputs, status, metrics (SI), "
        "units, 80 % intervals. Values are strings with units ('10 us') or numbers in SI units.");
  m.def("eval_many", &eval_many, py::arg("solver"), py::arg("params"), py::kw_only(),
        py::arg("calibration") = py::none(), py::arg("catalog") = py::none(),
        "Many design points: params maps names to scalars (as in eval) or 1-D arrays of numbers in SI units, "
        "varying together. Returns a dict of numpy arrays, one per metric, and 'status' (0 ok, 1 infeasible, "
        "2 error).");
  m.def("run", &run_study, py::arg("study"), py::arg("out") = py::none(), py::kw_only(), py::arg("threads") = 0,
        py::arg("fresh") = false, py::arg("catalog") = py::none(),
        "Runs a study file like `dsx run` and returns its run folder; raises dsx.Error with dsx's messages.");
  m.def("load", &load, py::arg("run_dir"),
        "A run folder's tables as pandas DataFrames, by file stem: results, pareto, top_k, breakeven_*, ...");
}
