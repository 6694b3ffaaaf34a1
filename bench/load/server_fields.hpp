#pragma once
// The top-level fields of a server message that arbiter-load's players act on.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::bench::load {

struct ServerFields {
    std::string type, code, id, game, seat, token, status, turn, move;
    bool has_id = false;
    std::uint64_t ply = 0;
    std::vector<std::string> legal;
    std::size_t legal_count = 0;  // legal[0, legal_count) is this message's list

    std::span<const std::string> legal_moves() const { return {legal.data(), legal_count}; }
};

/// Reads `text` into `fields` (cleared first; strings and the list keep their capacity from one
/// message to the next). False when `text` is not exactly one JSON value; a value that is no
/// object leaves `type` empty.
bool read_server_fields(std::string_view text, ServerFields& fields);

}  // namespace arbiter::bench::load
