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

}  // namespace arbiter::server::storage
