#include "client/cli/engines.hpp"

namespace arbiter::client {

std::vector<std::string> engine_lines(const nlohmann::json& welcome) {
    std::vector<std::string> lines;
    const auto engines = welcome.find("engines");
    if (engines != welcome.end() && engines->is_array()) {
        for (const auto& engine : *engines) {
            if (!engine.is_object() || !engine.contains("name") || !engine["name"].is_string()) {
                continue;
            }
            std::string variants;
            const auto found = engine.find("variants");
            if (found != engine.end() && found->is_array()) {
                for (const auto& variant : *found) {
                    if (variant.is_string()) {
                        variants += (variants.empty() ? "" : ", ") + variant.get<std::string>();
                    }
                }
            }
            lines.push_back(engine["name"].get<std::string>() + "  " + variants);
        }
    }
    if (lines.empty()) {
        return {"this server offers no engines"};
    }
    lines.push_back("play one: arbiter-cli create VARIANT --opponent ENGINE [--level 1-8]");
    return lines;
}

}  // namespace arbiter::client
