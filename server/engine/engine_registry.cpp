#include "server/engine/engine_registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "server/engine/uci.hpp"
#include "server/engine/uci_agent.hpp"

namespace arbiter::server::engines {

namespace {

constexpr std::string_view kBuiltin = "builtin";

bool valid_name(std::string_view name) {
    return !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
    });
}

}  // namespace

Expected<UciEngineSpec, std::string> parse_engine_flag(std::string_view flag) {
    const std::size_t equals = flag.find('=');
    if (equals == std::string_view::npos) {
        return unexpected("--engine " + std::string(flag) + ": expected NAME=PATH");
    }
    std::string_view name = flag.substr(0, equals);
    std::optional<std::string_view> listed;
    if (const std::size_t colon = name.find(':'); colon != std::string_view::npos) {
        listed = name.substr(colon + 1);
        name = name.substr(0, colon);
    }
    UciEngineSpec spec;
    spec.name = std::string(name);
    spec.path = std::string(flag.substr(equals + 1));
    if (!valid_name(spec.name)) {
        return unexpected("--engine " + std::string(flag) +
                          ": NAME must be 1..32 of A-Z a-z 0-9 _ -");
    }
    if (spec.name == kBuiltin) {
        return unexpected(std::string("--engine: the name builtin is taken by the builtin engine"));
    }
    if (spec.path.empty()) {
        return unexpected("--engine " + std::string(flag) + ": PATH is empty");
    }
    if (!listed) {
        spec.variants = {spec.name.find("fairy") != std::string::npos ? rules::Variant::xiangqi
                                                                      : rules::Variant::chess};
        return spec;
    }
    // NAME:chess,xiangqi — the games this engine is offered for.
    std::string_view rest = *listed;
    for (;;) {
        const std::size_t comma = rest.find(',');
        const std::string_view word = rest.substr(0, comma);
        const auto variant = rules::parse_variant(word);
        if (!variant || *variant == rules::Variant::draughts) {
            return unexpected("--engine " + std::string(flag) + ": '" + std::string(word) +
                              "' is not a game a UCI engine plays (chess, xiangqi)");
        }
        if (std::find(spec.variants.begin(), spec.variants.end(), *variant) !=
            spec.variants.end()) {
            return unexpected("--engine " + std::string(flag) + ": " + std::string(word) +
                              " is listed twice");
        }
        spec.variants.push_back(*variant);
        if (comma == std::string_view::npos) {
            break;
        }
        rest = rest.substr(comma + 1);
    }
    return spec;
}

EngineRegistry::EngineRegistry(EngineOptions options)
    : options_(std::move(options)),
      processes_(net::ProcessLimits{.max_children = options_.max_processes}),
      pool_(options_.builtin_threads) {}

EngineRegistry::~EngineRegistry() {
    stop();
}

std::vector<protocol::EngineInfo> EngineRegistry::offered() const {
    std::vector<protocol::EngineInfo> engines;
    engines.push_back({std::string(kBuiltin),
                       {rules::Variant::chess, rules::Variant::xiangqi, rules::Variant::draughts}});
    for (const auto& spec : options_.uci) {
        engines.push_back({spec.name, spec.variants});
    }
    return engines;
}

const UciEngineSpec* EngineRegistry::find(const std::string& engine, rules::Variant variant) const {
    for (const auto& spec : options_.uci) {
        if (spec.name == engine &&
            std::find(spec.variants.begin(), spec.variants.end(), variant) != spec.variants.end()) {
            return &spec;
        }
    }
    return nullptr;
}

Expected<std::string, std::string> EngineRegistry::seat_name(const std::string& engine,
                                                             rules::Variant variant,
                                                             int level) const {
    if (level < protocol::kMinEngineLevel || level > protocol::kMaxEngineLevel) {
        return unexpected(std::string("the level must be 1..8"));
    }
    if (engine != kBuiltin && find(engine, variant) == nullptr) {
        const bool known = std::any_of(options_.uci.begin(), options_.uci.end(),
                                       [&](const auto& spec) { return spec.name == engine; });
        return unexpected(known ? "engine " + engine + " does not play " +
                                      std::string(rules::to_string(variant))
                                : "no engine named " + engine + " on this server");
    }
    if (engine != kBuiltin && processes_.running() >= options_.max_processes) {
        return unexpected("all " + std::to_string(options_.max_processes) +
                          " engine processes are busy; try later or play the builtin engine");
    }
    return engines::seat_name(engine, level);
}

std::shared_ptr<app::SeatAgent> EngineRegistry::make_agent(const std::string& engine,
                                                           rules::Variant variant, int level,
                                                           std::shared_ptr<Executor> executor) {
    if (engine != kBuiltin) {
        if (const UciEngineSpec* spec = find(engine, variant)) {
            UciSettings settings;
            settings.engine = spec->name;
            settings.path = spec->path;
            if (variant != rules::Variant::chess) {
                settings.uci_variant = std::string(rules::to_string(variant));
            }
            settings.level = level;
            settings.handshake_timeout = options_.handshake_timeout;
            settings.answer_margin = options_.answer_margin;
            return std::make_shared<UciAgent>(std::move(settings), processes_, idle_,
                                              std::move(executor));
        }
        spdlog::warn("engine {} is not configured for {}: the builtin engine plays its seat",
                     engine, rules::to_string(variant));
    }
    return std::make_shared<BuiltinAgent>(level, pool_, std::move(executor));
}

void EngineRegistry::stop() {
    pool_.stop();
    processes_.stop();
}

}  // namespace arbiter::server::engines
