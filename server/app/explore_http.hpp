#pragma once
/// \file
/// GET /api/explore?variant=&position=[&move=] (issue 42; schema/protocol.md, "Explore"): the
/// legal moves, the side to move and the status of any position of a variant, or of the
/// position after one move from it. Stateless: the browser's analysis board holds no rules and
/// asks here for each position it shows. The answer is a pure function of the query, made on the
/// network thread (one position's moves take microseconds); HttpApi counts each request against
/// the client's API rate before it gets here.

#include <cstddef>
#include <string_view>

#include "server/net/peer.hpp"

namespace arbiter::server::app {

/// The explore path.
inline constexpr std::string_view kExplorePath = "/api/explore";

/// The answer to GET kExplorePath with the query string `query`: 200 with the position
/// (protocol::encode_explore), or 400 `{"error", "message"}`: `invalid` for a malformed query,
/// an unknown parameter or variant; `bad_position` for a position the variant's FEN parser
/// refuses; `illegal_move` for a move that is not legal there, with the rules' reason.
net::HttpResponse explore_answer(std::string_view query);

/// The longest position and move texts read: longer ones are refused before any parsing.
inline constexpr std::size_t kMaxExplorePosition = 200;
inline constexpr std::size_t kMaxExploreMove = 40;

}  // namespace arbiter::server::app
