#include "server/app/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace arbiter::server::app {

bool configure_logging(const std::string& format, const std::string& level) {
    const auto parsed = spdlog::level::from_str(level);
    if (parsed == spdlog::level::off && level != "off") {
        return false;
    }
    auto logger = spdlog::stderr_logger_mt("arbiter");
    if (format == "json") {
        // Messages are written by our own code with no quotes or control characters in them.
        logger->set_pattern(
            R"({"time":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l","thread":%t,"msg":"%v"})",
            spdlog::pattern_time_type::utc);
    } else {
        logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
    }
    logger->set_level(parsed);
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
    return true;
}

}  // namespace arbiter::server::app
