// Shared by the architecture builders (engine/model_builders*.cpp): parameter checking that throws
// std::invalid_argument with the architecture's name, and the Op constructor every builder uses.
// Conventions for FLOPs, element counts and kernels are stated at the top of model_builders.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/graph.hpp"
#include "engine/model_builders.hpp"

namespace dsx::builders {

std::string format_number(double v);

[[noreturn]] void fail(std::string_view arch, const std::string& message);

void check_arity(std::string_view arch, std::span<const double> values, std::size_t expected);

// An integer parameter in [min, max]; values arrive as doubles from the catalog reader.
std::uint64_t count_param(std::string_view arch, std::span<const ArchParamSpec> specs, std::span<const double> values,
                          std::size_t index, double min, double max = 1e12);

// A 0/1 switch.
bool flag_param(std::string_view arch, std::span<const ArchParamSpec> specs, std::span<const double> values,
                std::size_t index);

// A finite value > 0.
double positive_param(std::string_view arch, std::span<const ArchParamSpec> specs, std::span<const double> values,
                      std::size_t index);

std::uint32_t as_repeat(std::uint64_t n);

// One eager kernel (kernels = 1) executed `repeat` times per forward pass.
Op make_op(std::string name, OpKind kind, double flops, double input_elements, double output_elements,
           double weight_elements, std::uint32_t repeat);

}  // namespace dsx::builders
