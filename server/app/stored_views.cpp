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
    return protocol::PlayerInfo{seat.name,    present || engine,        engine,
                                std::nullopt, !engine && !seat.user_id, seat.rating};
}

// A finished rated game's changes: the rating each seat sat down with and the change the end
// stored. Whether the new rating is provisional is not stored (migration 0010); it is read from
// the seat's rating as the row gives it.
std::optional<protocol::EndRatings> stored_ratings(const storage::GameRow& row) {
    if (!row.rated || !row.rating_diffs[0] || !row.rating_diffs[1] || !row.seats[0].rating ||
        !row.seats[1].rating) {
        return std::nullopt;
    }
    const auto change = [&](std::size_t i) {
        const int before = row.seats[i].rating->rating;
        const int diff = *row.rating_diffs[i];
        return protocol::RatingChange{before, before + diff, diff,
                                      row.seats[i].rating->provisional};
    };
    return protocol::EndRatings{change(0), change(1)};
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
                                 row.created_ms,
                                 row.rated,
                                 row.rating_range};
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
    record.rated = row.rated;
    record.rating_range = row.rating_range;
    record.ratings = stored_ratings(row);
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
