#include "common/rules/variants.hpp"

namespace arbiter::rules::xiangqi {

// Placeholder until the xiangqi rules land (their own issue); refuses every position.
Expected<std::unique_ptr<Game>, RulesError> make_game(std::string_view /*position*/) {
    return unexpected(RulesError{"xiangqi is not implemented yet"});
}

}  // namespace arbiter::rules::xiangqi
