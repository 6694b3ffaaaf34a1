#pragma once
/// \file
/// Internal to the protocol module: the HTTP API's bodies as compact JSON (account_api,
/// analysis_api, explore_api, player_api). A body may carry text from the request it answers (a
/// refusal's message quotes a parameter, a name): bytes that are not UTF-8 become U+FFFD instead
/// of an exception, as escaped() does for the WebSocket's messages (json_writer.hpp).

#include <string>

namespace arbiter::protocol::detail {

/// `body` (a nlohmann::json or ordered_json) written compact, invalid UTF-8 repaired.
template <class Json>
std::string dumped(const Json& body) {
    return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace arbiter::protocol::detail
