#include "server/storage/intents.hpp"

namespace arbiter::server::storage {

const std::string& game_of(const GameIntent& intent) noexcept {
    return std::visit(
        [](const auto& change) -> const std::string& {
            if constexpr (requires { change.header.id; }) {
                return change.header.id;
            } else if constexpr (requires { change.game; }) {
                return change.game;
            } else {
                static const std::string kNoGame;
                return kNoGame;
            }
        },
        intent);
}

std::optional<RatingsSettled>* ratings_of(GameIntent& intent) noexcept {
    if (auto* append = std::get_if<AppendMove>(&intent); append && append->ending) {
        return &append->ratings;
    }
    if (auto* end = std::get_if<EndGame>(&intent)) {
        return &end->ratings;
    }
    return nullptr;
}

std::optional<GameEnding> ending_of(const GameIntent& intent) noexcept {
    if (const auto* append = std::get_if<AppendMove>(&intent)) {
        return append->ending;
    }
    if (const auto* end = std::get_if<EndGame>(&intent)) {
        return end->ending;
    }
    return std::nullopt;
}

}  // namespace arbiter::server::storage
