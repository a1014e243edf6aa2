#include "dse/analysis/expression.hpp"

#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <stdexcept>

namespace dsx {

namespace {

// muparser's message without its own "at position N" (dsx points at the position itself), first
// letter in lower case.
std::string clean_message(const mu::ParserError& e) {
  std::string m = e.GetMsg();
  for (const char* tail : {" at position", " found at position"}) {
    if (const auto at = m.rfind(tail); at != std::string::npos) {
      m.resize(at);
      break;
    }
  }
  while (!m.empty() && (m.back() == '.' || m.back() == ' ')) m.pop_back();
  if (!m.empty()) m[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(m[0])));
  return m;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// First whole-word occurrence of `name` in `text` (not inside a longer name or after a digit).
std::size_t find_name(std::string_view text, std::string_view name) {
  for (std::size_t p = text.find(name); p != std::string_view::npos; p = text.find(name, p + 1)) {
    const bool before = p > 0 && (name_char(text[p - 1]) || text[p - 1] == '.');
    const bool after = p + name.size() < text.size() && name_char(text[p + name.size()]);
    if (!before && !after) return p;
  }
  return 0;
}

double ceil_of(double x) { return std::ceil(x); }
double floor_of(double x) { return std::floor(x); }

// The functions dsx adds to muparser's own.
void define_functions(mu::Parser& p) {
  p.DefineFun("ceil", ceil_of);
  p.DefineFun("floor", floor_of);
}

struct Factory {
  std::deque<double> slots;
};

double* make_slot(const char* /*name*/, void* user) {
  auto* f = static_cast<Factory*>(user);
  f->slots.push_back(0);
  return &f->slots.back();
}

}  // namespace

ExpressionScan scan_expression(std::string_view text) {
  ExpressionScan out;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.syntax = ExpressionProblem{"the expression is empty", 0, 1};
    return out;
  }
  Factory factory;
  mu::Parser p;
  try {
    define_functions(p);
    p.SetVarFactory(make_slot, &factory);
    p.SetExpr(std::string(text));
    p.Eval();
    std::vector<std::pair<std::size_t, std::string>> used;
    for (const auto& [name, ptr] : p.GetUsedVar()) used.emplace_back(find_name(text, name), name);
    std::sort(used.begin(), used.end());
    for (auto& [offset, name] : used) {
      out.offsets.push_back(offset);
      out.names.push_back(std::move(name));
    }
  } catch (const mu::ParserError& e) {
    const int pos = e.GetPos();
    const std::string token = e.GetToken();
    ExpressionProblem problem;
    problem.message = clean_message(e);
    problem.offset = pos >= 0 && static_cast<std::size_t>(pos) < text.size() ? static_cast<std::size_t>(pos)
                                                                              : text.size() > 0 ? text.size() - 1 : 0;
    problem.length = token.empty() ? 1 : token.size();
    out.syntax = problem;
  }
  return out;
}

CompiledExpression::CompiledExpression(std::string text, const std::vector<std::pair<std::string, double*>>& variables)
    : text_(std::move(text)), parser_(std::make_unique<mu::Parser>()) {
  try {
    define_functions(*parser_);
    for (const auto& [name, ptr] : variables) parser_->DefineVar(name, ptr);
    parser_->SetExpr(text_);
    // The first evaluation parses and builds the bytecode, so errors surface here and later
    // evaluations run the bytecode only.
    parser_->Eval();
  } catch (const mu::ParserError& e) {
    throw std::invalid_argument("expression '" + text_ + "': " + clean_message(e));
  }
}

CompiledExpression::~CompiledExpression() = default;
CompiledExpression::CompiledExpression(CompiledExpression&&) noexcept = default;
CompiledExpression& CompiledExpression::operator=(CompiledExpression&&) noexcept = default;

double CompiledExpression::evaluate() const {
  try {
    return parser_->Eval();
  } catch (const mu::ParserError& e) {
    throw std::runtime_error("expression '" + text_ + "': " + clean_message(e));
  }
}

}  // namespace dsx
