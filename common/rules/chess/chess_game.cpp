#include "common/rules/variants.hpp"

namespace arbiter::rules::chess {

// Placeholder until the chess rules land (their own issue); refuses every position.
Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view /*position*/) {
    return unexpected(RulesError{"chess is not implemented yet"});
}

}  // namespace arbiter::rules::chess
