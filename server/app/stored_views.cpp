#include "server/app/stored_views.hpp"

#include <algorithm>
#include <ctime>
#include <memory>
#include <string>

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

// A finished rated game's changes: the rating each seat sat down with, and the change and the new
// rating's provisional flag the end stored.
std::optional<protocol::EndRatings> stored_ratings(const storage::GameRow& row) {
    if (!row.rated || !row.rating_diffs[0] || !row.rating_diffs[1] || !row.seats[0].rating ||
        !row.seats[1].rating) {
        return std::nullopt;
    }
    const auto change = [&](std::size_t i) {
        const int before = row.seats[i].rating->rating;
        const int diff = *row.rating_diffs[i];
        return protocol::RatingChange{before, before + diff, diff,
                                      row.rating_after_provisional.at(i)};
    };
    return protocol::EndRatings{change(0), change(1)};
}

// Milliseconds as the seconds PGN's TimeControl counts in: "300", or "90.5" for a part second.
std::string seconds_text(std::int64_t ms) {
    std::string text = std::to_string(ms / 1000);
    if (const std::int64_t part = ms % 1000; part != 0) {
        std::string digits = std::to_string(1000 + part).substr(1);
        digits.erase(digits.find_last_not_of('0') + 1);
        text += "." + digits;
    }
    return text;
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

std::vector<protocol::ChatLine> record_chat(const storage::StoredGame& game,
                                            std::optional<std::int64_t> reader) {
    const auto& seats = game.header.seats;
    const bool sat = reader && (seats[0].user_id == reader || seats[1].user_id == reader);
    std::vector<protocol::ChatLine> lines;
    for (const auto& row : game.chat) {
        if (row.room == protocol::ChatRoom::spectators || sat) {
            lines.push_back({row.seq, row.room, row.from, row.text, row.at_ms});
        }
    }
    return lines;
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

Expected<std::string, std::string> export_text(const storage::StoredGame& stored,
                                               std::vector<std::string> evals) {
    const auto& header = stored.header;
    auto game = rules::make_game(header.variant, header.initial_position);
    if (!game) {
        return unexpected("stored position does not load: " + game.error().message);
    }
    rules::ExportInfo info;
    info.site = "Arbiter";
    info.first_player = header.seats[0].name;
    info.second_player = header.seats[1].name;
    for (const auto& move : stored.moves) {
        if (!(*game)->play(move.move)) {
            return unexpected("stored move does not replay: " + move.move);
        }
        if (move.clock_ms) {
            info.clock_ms.push_back(*move.clock_ms);
        }
    }
    if (info.clock_ms.size() != stored.moves.size()) {
        info.clock_ms.clear();
    }
    info.time_control = header.clock_initial_ms && header.clock_increment_ms
                            ? seconds_text(*header.clock_initial_ms) + "+" +
                                  seconds_text(*header.clock_increment_ms)
                            : "-";
    info.evals = std::move(evals);
    info.outcome = header.result;
    info.termination = header.reason == protocol::EndReason::timeout     ? "time forfeit"
                       : header.reason == protocol::EndReason::abandoned ? "abandoned"
                       : header.status == protocol::GameStatus::ended    ? "normal"
                                                                         : "unterminated";
    const std::time_t seconds = static_cast<std::time_t>(header.created_ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char date[16];
    std::strftime(date, sizeof date, "%Y.%m.%d", &utc);
    info.date = date;
    return (*game)->export_text(info);
}

}  // namespace arbiter::server::app
