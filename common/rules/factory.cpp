#include "common/rules/game.hpp"
#include "common/rules/variants.hpp"

namespace arbiter::rules {

Expected<std::unique_ptr<Game>, RulesError> make_game(Variant variant, std::string_view position) {
    switch (variant) {
        case Variant::chess:
            return chess::make_game(position);
        case Variant::xiangqi:
            return xiangqi::make_game(position);
        case Variant::draughts:
            return draughts::make_game(position);
    }
    return unexpected(RulesError{"unknown variant"});
}

}  // namespace arbiter::rules
