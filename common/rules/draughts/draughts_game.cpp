#include "common/rules/variants.hpp"

namespace arbiter::rules::draughts {

// Placeholder until the draughts rules land (their own issue); refuses every position.
Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view /*position*/) {
    return unexpected(RulesError{"draughts is not implemented yet"});
}

}  // namespace arbiter::rules::draughts
