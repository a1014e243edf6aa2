#include "engine/builder_support.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace dsx::builders {

std::string format_number(double v) {
  std::array<char, 64> buf{};
  const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), res.ptr);
}

void fail(std::string_view arch, const std::string& message) {
  throw std::invalid_argument(std::string(arch) + ": " + message);
}

void check_arity(std::string_view arch, std::span<const double> values, std::size_t expected) {
  if (values.size() != expected) {
    fail(arch, "expected " + std::to_string(expected) + " parameter values, got " + std::to_string(values.size()));
  }
}

std::uint64_t count_param(std::string_view arch, std::span<const ArchParamSpec> specs, std::span<const double> values,
                          std::size_t index, double min, double max) {
  const double v = values[index];
  const std::string_view name = specs[index].name;
  if (!std::isfinite(v) || v != std::floor(v)) {
    fail(arch, std::string(name) + " must be a whole number, got " + format_number(v));
  }
  if (v < min || v > max) {
    fail(arch, std::string(name) + " must be in [" + format_number(min) + ", " + format_number(max) +
                   "], got " + format_number(v));
  }
  return static_cast<std::uint64_t>(v);
}

bool flag_param(std::string_view arch, std::span<const ArchParamSpec> specs, std::span<const double> values,
                std::size_t index) {
  return count_param(arch, specs, values, index, 0, 1) == 1;
}

double positive_param(std::string_view arch, std::span<const ArchParamSpec> specs, std::span<const double> values,
                      std::size_t index) {
  const double v = values[index];
  if (!std::isfinite(v) || v <= 0) {
    fail(arch, std::string(specs[index].name) + " must be positive, got " + format_number(v));
  }
  return v;
}

std::uint32_t as_repeat(std::uint64_t n) {
  if (n > std::numeric_limits<std::uint32_t>::max()) throw std::invalid_argument("repeat count too large");
  return static_cast<std::uint32_t>(n);
}

Op make_op(std::string name, OpKind kind, double flops, double input_elements, double output_elements,
           double weight_elements, std::uint32_t repeat) {
  Op op;
  op.name = std::move(name);
  op.kind = kind;
  op.flops_per_sample = flops;
  op.input_elements_per_sample = input_elements;
  op.output_elements_per_sample = output_elements;
  op.weight_elements = weight_elements;
  op.kernels = 1;
  op.repeat = repeat;
  return op;
}

}  // namespace dsx::builders
