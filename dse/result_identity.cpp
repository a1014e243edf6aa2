#include "dse/result_identity.hpp"

#include <bit>
#include <cstdint>

#include "dse/analysis/blocks.hpp"
#include "dse/study_loader.hpp"

namespace dsx {

namespace {

// Fields end in 0x1F and records in 0x1E, so no two different studies share a serialisation.
class Canonical {
 public:
  Canonical& text(std::string_view s) {
    out_ += s;
    out_ += '\x1F';
    return *this;
  }
  Canonical& number(double v) { return text(study_loading::hex64(std::bit_cast<std::uint64_t>(v))); }
  Canonical& count(std::size_t n) { return text(std::to_string(n)); }
  Canonical& selectors(const std::vector<Selector>& where) {
    count(where.size());
    for (const Selector& s : where) text(s.param).text(s.label);
    return *this;
  }
  void end() { out_ += '\x1E'; }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

}  // namespace

std::string result_identity(const ResolvedStudy& study) {
  Canonical c;
  c.text("dsx result identity 1").end();
  c.text("solver").text(study.solver->name()).end();
  const auto params = study.solver->params();
  for (const Axis& a : study.axes) {
    c.text("axis").text(a.param).count(a.values.size());
    for (const AxisValue& v : a.values) c.text(v.label).number(v.value);
    c.count(a.sets.size());
    for (const std::size_t p : a.sets) c.text(params[p].name);
    for (const double v : a.set_values) c.number(v);
    for (const std::string& l : a.set_labels) c.text(l);
    c.end();
  }
  for (const FixedInput& f : fixed_inputs(study)) {
    std::size_t p = 0;
    while (p < params.size() && params[p].name != f.name) ++p;
    c.text("fixed").text(f.name).number(p < params.size() ? study.fixed_values[p] : 0).end();
  }
  for (const ResolvedStudy::HardwareScaled& h : study.hardware_scaled) {
    c.text("hardware_scaled").text(params[h.param].name).count(h.value_per_hardware.size());
    for (const double v : h.value_per_hardware) c.number(v);
    c.end();
  }
  for (const BundleUse& b : study.bundles) {
    c.text("bundle").text(b.kind).text(std::to_string(b.axis)).text(b.id).count(b.params.size());
    for (const std::size_t p : b.params) c.text(params[p].name);
    c.end();
  }
  const StudyAnalyses& a = analyses_of(study);
  for (const RowRule& g : a.grid_constraints) c.text("grid_constraint").text(g.expr).end();
  if (a.keep.all) {
    c.text("keep").text("all").end();
    return study_loading::hex64(study_loading::fnv1a(c.str()));
  }
  c.text("keep").count(a.keep.front ? 1 : 0).count(a.keep.top_k).count(a.keep.sample).text(std::to_string(a.keep.seed)).end();
  for (const DerivedMetric& d : a.derived) c.text("derived").text(d.name).text(d.expr).text(d.unit).number(d.unit_scale).end();
  for (const RowRule& r : a.constraints) c.text("constraint").text(r.expr).end();
  for (const RowRule& r : a.filters) c.text("filter").text(r.expr).end();
  for (const Assertion& x : a.assertions) {
    c.text("assertion").text(x.expr).selectors(x.where).count(x.require == Quantifier::all ? 0 : 1).end();
  }
  for (const Objective& o : study.objectives) {
    c.text("objective").text(o.metric).count(o.direction == Direction::minimize ? 0 : 1);
    // Written only when given, so that a study without them keeps the identity it had before they existed.
    if (!o.where.empty()) c.text("where").selectors(o.where);
    if (!o.name.empty()) c.text("name").text(o.name);
    c.end();
  }
  c.text("pareto_group").count(a.pareto.group.size());
  for (const std::string& g : a.pareto.group) c.text(g);
  c.end();
  c.text("top_k").count(a.top_k).end();
  for (const Comparison& x : study.comparisons) c.text("compare").selectors(x.where).end();
  for (const CitedValue& v : study.values) {
    c.text("value").selectors(v.where).end();
    if (!v.over.empty()) c.text("value_over").selectors(v.over).end();
    if (!v.minus.empty()) c.text("value_minus").selectors(v.minus).end();
  }
  return study_loading::hex64(study_loading::fnv1a(c.str()));
}

}  // namespace dsx
