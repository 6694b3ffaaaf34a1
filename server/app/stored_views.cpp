#include "server/app/stored_views.hpp"

#include <algorithm>
#include <memory>

#include "server/app/seats.hpp"

namespace arbiter::server::app {

namespace {

std::optional<protocol::PlayerInfo> stored_player(const storage::SeatRow& seat, bool present) {
    if (seat.name.empty() && seat.token_hash.empty()) {
        return std::nullopt;
    }
    const bool engine = !seat.engine.empty();
    return protocol::PlayerInfo{seat.name, present || engine, engine};
}

}  // namespace

protocol::GameSummary summary_of(const storage::GameRow& row, std::array<bool, 2> present) {
    return protocol::GameSummary{row.id,
                                 row.variant,
                                 row.status,
                                 stored_player(row.seats[0], present[0]),
                                 stored_player(row.seats[1], present[1]),
                                 time_control_of(row),
                                 row.ply,
                                 row.result,
                                 row.reason,
                                 row.created_ms};
}

protocol::Record record_of(const storage::StoredGame& game, std::array<bool, 2> present) {
    protocol::Record record;
    const auto& row = game.header;
    record.game = row.id;
    record.variant = row.variant;
    record.status = row.status;
    record.first = stored_player(row.seats[0], present[0]);
    record.second = stored_player(row.seats[1], present[1]);
    record.time_control = time_control_of(row);
    record.initial_position = row.initial_position;
    record.result = row.result;
    record.reason = row.reason;
    record.created_ms = row.created_ms;
    auto made = rules::make_game(row.variant, row.initial_position);
    std::unique_ptr<rules::Game> replay = made ? std::move(*made) : nullptr;
    record.initial_check = replay && replay->in_check();
    // Each row keeps its check flag since schema version 5. A game with older rows is played
    // through again for them, as a replay shows the king in check as the game did; a stored move
    // that no longer replays (a hand edit) leaves the flags from there on false, and the moves
    // themselves are still all listed.
    const bool flags_stored =
        std::all_of(game.moves.begin(), game.moves.end(),
                    [](const storage::MoveRow& move) { return move.check.has_value(); });
    if (flags_stored) {
        replay.reset();
    }
    for (const auto& move : game.moves) {
        if (replay && !replay->play(move.move)) {
            replay.reset();
        }
        const bool check = flags_stored ? *move.check : replay && replay->in_check();
        record.moves.push_back({move.ply, move.move, move.notation, move.position, move.clock_ms,
                                move.think_ms, check, move.lag_ms});
    }
    return record;
}

}  // namespace arbiter::server::app
