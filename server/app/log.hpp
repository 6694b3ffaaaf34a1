#pragma once
/// \file
/// Logging set-up: spdlog, one line per event, as text or as JSON objects. Never log a token.

#include <string>

namespace arbiter::server::app {

/// Configures the default logger; false (and nothing changed) for an unknown level.
bool configure_logging(const std::string& format, const std::string& level);

}  // namespace arbiter::server::app
