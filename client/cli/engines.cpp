#include "client/cli/engines.hpp"

namespace arbiter::client {

std::vector<std::string> engine_lines(const protocol::Welcome& welcome) {
    std::vector<std::string> lines;
    for (const protocol::EngineInfo& engine : welcome.engines) {
        std::string variants;
        for (const rules::Variant variant : engine.variants) {
            variants += (variants.empty() ? "" : ", ") + std::string(rules::to_string(variant));
        }
        lines.push_back(engine.name + "  " + variants);
    }
    if (lines.empty()) {
        return {"this server offers no engines"};
    }
    lines.push_back("play one: arbiter-cli create VARIANT --opponent ENGINE [--level 1-8]");
    return lines;
}

}  // namespace arbiter::client
