#include "server/app/explore_http.hpp"

#include <map>
#include <string>
#include <utility>

#include "common/core/expected.hpp"
#include "common/protocol/account_api.hpp"
#include "common/protocol/explore_api.hpp"
#include "common/rules/game.hpp"
#include "server/app/http_api.hpp"

namespace arbiter::server::app {

namespace {

net::HttpResponse json_answer(unsigned status, std::string body) {
    net::HttpResponse response;
    response.status = status;
    response.content_type = "application/json";
    response.body = std::move(body);
    return response;
}

net::HttpResponse refusal(std::string_view code, std::string_view message) {
    return json_answer(400, protocol::encode_api_error(code, message));
}

std::string value_of(const std::map<std::string, std::string>& found, const std::string& key) {
    const auto it = found.find(key);
    return it == found.end() ? std::string() : it->second;
}

}  // namespace

net::HttpResponse explore_answer(std::string_view query) {
    const auto found = query_parameters(query, {"variant", "position", "move"},
                                        {.empty_is_absent = false, .refuse_repeats = true});
    if (!found) {
        return refusal("invalid", found.error());
    }
    const auto variant = rules::parse_variant(value_of(*found, "variant"));
    if (!variant) {
        return refusal("invalid", "variant must be chess, xiangqi or draughts");
    }
    const std::string position = value_of(*found, "position");
    const std::string move = value_of(*found, "move");
    if (position.size() > kMaxExplorePosition) {
        return refusal("bad_position", "the position is longer than " +
                                           std::to_string(kMaxExplorePosition) + " characters");
    }
    if (move.size() > kMaxExploreMove) {
        return refusal("illegal_move", "the move is longer than " +
                                           std::to_string(kMaxExploreMove) + " characters");
    }
    // An empty position is the variant's start (make_game's rule), as the board opens.
    auto game = rules::make_game(*variant, position);
    if (!game) {
        return refusal("bad_position", game.error().message);
    }
    protocol::ExploreView view;
    view.variant = *variant;
    if (found->contains("move")) {
        auto wire = (*game)->to_wire(move);
        if (!wire) {
            return refusal("illegal_move", wire.error().message);
        }
        auto played = (*game)->play(*wire);
        if (!played) {
            return refusal("illegal_move", played.error().message);
        }
        view.played = std::move(*played);
    }
    view.position = (*game)->position();
    view.turn = (*game)->turn();
    view.legal = (*game)->legal_moves();
    view.status = (*game)->status();
    return json_answer(200, protocol::encode_explore(view));
}

}  // namespace arbiter::server::app
