// The report's Mustache templates: reading them from a template folder (never through a link), their
// syntax checked as file:line:col errors, every name a template uses checked against the data before
// rendering (with the closest name the data has), and rendering with Markdown or HTML escaping.
// output/report.hpp check_report_templates is defined here too.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace dsx {

enum class TemplateEscape : std::uint8_t { markdown, html };

// `main_name` of `template_dir` with its partials, rendered over `context`. Throws
// std::runtime_error with every problem (file:line:col: error: ...).
std::string render_templates(const std::string& template_dir, const std::string& main_name,
                             const nlohmann::ordered_json& context, TemplateEscape escape);

}  // namespace dsx
