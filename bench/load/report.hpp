#pragma once

#include "options.hpp"
#include "runner.hpp"

#include <string>

namespace ttb {

/// The human table (default).
std::string human_report(const options& opts, const run_result& r,
                         const error_log& errors);

/// The --json document (keys documented in bench/README.md).
std::string json_report(const options& opts, const run_result& r,
                        const error_log& errors);

} // namespace ttb
