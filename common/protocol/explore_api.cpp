#include "common/protocol/explore_api.hpp"

#include "common/protocol/api_json.hpp"

#include <nlohmann/json.hpp>

namespace arbiter::protocol {

std::string encode_explore(const ExploreView& view) {
    using Json = nlohmann::json;
    const bool over = view.status.over();
    Json status = {
        {"over", over},
        {"result", over ? Json(rules::result_string(view.status.outcome)) : Json(nullptr)},
        {"reason", over && view.status.reason != rules::Reason::none
                       ? Json(rules::to_string(view.status.reason))
                       : Json(nullptr)}};
    Json body = {{"variant", rules::to_string(view.variant)},
                 {"position", view.position},
                 {"turn", rules::seat_name(view.variant, view.turn)},
                 {"legal", view.legal},
                 {"status", std::move(status)}};
    if (view.played) {
        body["played"] = {{"move", view.played->wire}, {"notation", view.played->notation}};
    }
    return detail::dumped(body);
}

}  // namespace arbiter::protocol
