// Arithmetic expressions over named numbers, for a study's derived metrics, filters, constraints
// and assertions, evaluated by muparser (Ingo Berg, https://beltoforion.de/en/muparser/, the
// Debian package libmuparser-dev).
//
// The language is muparser's: numbers (1e-6, 0.5), names ([A-Za-z_][A-Za-z0-9_]*), + - * / ^
// (power), unary minus, comparisons < <= > >= == != (1 true, 0 false), && ||, the ternary
// `cond ? a : b`, parentheses and the functions sin cos tan asin acos atan sinh cosh tanh asinh
// acosh atanh log2 log10 log (= ln) ln exp sqrt sign rint abs, min max sum avg (any number of
// arguments), dsx's ceil and floor (whole accelerators, replicas, racks), and the constants _pi and
// _e. A truth value is a number: nonzero holds, 0 and NaN do
// not.
//
// An expression is checked once (scan_expression: syntax and the names it uses) and compiled
// against caller-owned variables (CompiledExpression). After its first evaluation muparser runs
// its bytecode, which allocates nothing, so evaluating per design point is cheap.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mu {
class Parser;
}

namespace dsx {

struct ExpressionProblem {
  std::string message;
  std::size_t offset = 0;  // into the expression text
  std::size_t length = 1;
};

struct ExpressionScan {
  std::vector<std::string> names;     // every variable name used, in order of first appearance
  std::vector<std::size_t> offsets;   // where each first appears in the text
  std::optional<ExpressionProblem> syntax;  // set when the text does not parse
};

// Parses `text` with every name accepted, and reports its syntax problem or the names it uses.
ExpressionScan scan_expression(std::string_view text);

// An expression bound to variables the caller keeps up to date. Not thread-safe; move-only.
class CompiledExpression {
 public:
  // `variables` names every value the expression may read; the pointers must outlive this object.
  // Throws std::invalid_argument with muparser's message when the text does not parse or uses a
  // name not in `variables`.
  CompiledExpression(std::string text, const std::vector<std::pair<std::string, double*>>& variables);
  ~CompiledExpression();
  CompiledExpression(CompiledExpression&&) noexcept;
  CompiledExpression& operator=(CompiledExpression&&) noexcept;
  CompiledExpression(const CompiledExpression&) = delete;
  CompiledExpression& operator=(const CompiledExpression&) = delete;

  const std::string& text() const { return text_; }
  // The value with the variables' current values; NaN propagates.
  double evaluate() const;

 private:
  std::string text_;
  std::unique_ptr<mu::Parser> parser_;
};

// Whether a value counts as true: nonzero and not NaN.
inline bool truthy(double v) { return v != 0 && v == v; }

}  // namespace dsx
