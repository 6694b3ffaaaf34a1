#pragma once
/// \file
/// The JSON body of GET /api/explore (issue 42; schema/protocol.md, "Explore"): a position of
/// any variant described for a client that holds no rules (the browser's analysis board). Errors
/// are encode_api_error() (account_api.hpp) with `bad_position` or `illegal_move`.

#include <optional>
#include <string>
#include <vector>

#include "common/rules/game.hpp"

namespace arbiter::protocol {

/// A position as the explore API describes it.
struct ExploreView {
    rules::Variant variant = rules::Variant::chess;
    std::string position;  ///< the variant's FEN
    rules::Side turn = rules::Side::first;
    std::vector<std::string> legal;  ///< wire moves of the side to move; none once it is over
    rules::Status status;
    /// The move that led here, when the request named one.
    std::optional<rules::PlayedMove> played;
};

/// `{"variant", "position", "turn": "<seat>", "legal": [...], "status": {"over", "result":
/// "1-0"|"0-1"|"1/2-1/2"|null, "reason": "<rule>"|null}, "played"?: {"move", "notation"}}`.
std::string encode_explore(const ExploreView& view);

}  // namespace arbiter::protocol
