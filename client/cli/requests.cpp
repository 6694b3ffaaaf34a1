#include "client/cli/requests.hpp"

#include <nlohmann/json.hpp>

namespace arbiter::client::requests {

using nlohmann::json;

std::string hello(const std::string& name) {
    return json{{"type", "hello"}, {"name", name}}.dump();
}

std::string create(const CliOptions& options, const std::string& id) {
    json message{
        {"type", "create"}, {"variant", options.variant}, {"side", options.side}, {"id", id}};
    if (options.clock) {
        message["clock"] = {{"initial_ms", options.clock->initial_ms},
                            {"increment_ms", options.clock->increment_ms}};
    }
    if (options.is_private) {
        message["private"] = true;
    }
    if (!options.position.empty()) {
        message["position"] = options.position;
    }
    if (!options.opponent.empty()) {
        message["opponent"] = {{"engine", options.opponent}, {"level", options.level}};
    }
    return message.dump();
}

std::string join(const std::string& game, const std::string& id) {
    return json{{"type", "join"}, {"game", game}, {"id", id}}.dump();
}

std::string resume(const std::string& game, const std::string& token,
                   std::optional<std::uint64_t> since, const std::string& id) {
    json message{{"type", "resume"}, {"game", game}, {"token", token}, {"id", id}};
    if (since) {
        message["since"] = *since;
    }
    return message.dump();
}

std::string watch(const std::string& game, std::optional<std::uint64_t> since,
                  const std::string& id) {
    json message{{"type", "watch"}, {"game", game}, {"id", id}};
    if (since) {
        message["since"] = *since;
    }
    return message.dump();
}

std::string move(const std::string& game, const std::string& move, std::uint64_t ply,
                 const std::string& id) {
    return json{{"type", "move"}, {"game", game}, {"move", move}, {"ply", ply}, {"id", id}}.dump();
}

std::string game_action(const std::string& type, const std::string& game, const std::string& id) {
    return json{{"type", type}, {"game", game}, {"id", id}}.dump();
}

std::string offer(const std::string& type, const std::string& game, const std::string& action,
                  const std::string& id) {
    return json{{"type", type}, {"game", game}, {"action", action}, {"id", id}}.dump();
}

std::string claim(const std::string& game, const std::string& kind, const std::string& id) {
    return json{{"type", "claim"}, {"game", game}, {"kind", kind}, {"id", id}}.dump();
}

std::string lobby() {
    return json{{"type", "lobby"}}.dump();
}

std::string games(const CliOptions& options) {
    json message{{"type", "games"}};
    if (!options.status.empty()) {
        message["status"] = options.status;
    }
    if (!options.variant.empty()) {
        message["variant"] = options.variant;
    }
    if (options.limit) {
        message["limit"] = *options.limit;
    }
    return message.dump();
}

std::string replay(const std::string& game) {
    return json{{"type", "replay"}, {"game", game}}.dump();
}

}  // namespace arbiter::client::requests
