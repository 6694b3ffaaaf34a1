#include "server/storage/postgres_intents.hpp"

#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include "server/storage/intent_sql.hpp"
#include "server/storage/row_terms.hpp"

namespace arbiter::server::storage::detail {

namespace {

// The statements, by the name each is prepared under: the ones both engines share
// (intent_sql.hpp) with PostgreSQL's parameters, then PostgreSQL's own.
std::vector<std::pair<std::string_view, std::string>> statements() {
    using pg::numbered_parameters;
    return {
        {"append", numbered_parameters(kAppendSql)},
        {"append_ending", numbered_parameters(kAppendEndingSql)},
        {"take_back", numbered_parameters(kTakeBackSql)},
        {"delete_moves_after", numbered_parameters(kDeleteMovesAfterSql)},
        {"insert_game", numbered_parameters(kInsertGameSql)},
        {"seat_first", numbered_parameters(seat_sql("first"))},
        {"seat_second", numbered_parameters(seat_sql("second"))},
        {"insert_move", numbered_parameters(insert_move_sql())},
        {"select_move", numbered_parameters(kSelectMoveSql)},
        {"select_ply", numbered_parameters(kSelectPlySql)},
        {"set_offers", numbered_parameters(kSetOffersSql)},
        {"record_event", numbered_parameters(kRecordEventSql)},
        {"insert_chat", numbered_parameters(kInsertChatSql)},
        {"end_game", numbered_parameters(kEndGameSql)},
        {"link_rematch", numbered_parameters(kLinkRematchSql)},
        {"store_clocks", numbered_parameters(kStoreClocksSql)},
        {"insert_rating_history", numbered_parameters(kInsertRatingHistorySql)},
        // Games nobody played, aborted and created before $1 (intents.hpp, PruneAborted); no
        // journal here.
        {"prune_aborted",
         "DELETE FROM games WHERE status = 'aborted' AND created_ms < $1 AND updated_ms < $1 "
         "AND ply = 0 AND NOT EXISTS (SELECT 1 FROM moves WHERE moves.game_id = games.id)"},
        // A rated game's end: $1 user, $2 variant, $3 speed, $4 rating, $5 deviation, $6
        // volatility, $7 at. PostgreSQL names the existing row by its table.
        {"upsert_rating",
         "INSERT INTO ratings (user_id, variant, speed, rating, deviation, volatility, games, "
         "updated_ms) VALUES ($1, $2, $3, $4, $5, $6, 1, $7) ON CONFLICT (user_id, variant, "
         "speed) DO UPDATE SET rating = excluded.rating, deviation = excluded.deviation, "
         "volatility = excluded.volatility, games = ratings.games + 1, updated_ms = "
         "excluded.updated_ms"},
        // Only a rated game that just ended takes its changes (`rated` is a boolean here).
        {"rating_diffs",
         "UPDATE games SET first_rating_diff = $2, second_rating_diff = $3, "
         "first_rating_after_provisional = $4, second_rating_after_provisional = $5 WHERE id = "
         "$1 AND rated AND status = 'ended'"},
    };
}

std::optional<std::int64_t> optional_int(std::optional<int> value) {
    return value ? std::optional<std::int64_t>(*value) : std::nullopt;
}

std::optional<bool> provisional_of(const std::optional<protocol::PlayerRating>& rating) {
    return rating ? std::optional<bool>(rating->provisional) : std::nullopt;
}

std::optional<std::int64_t> rating_of(const SeatRow& seat) {
    return seat.rating ? std::optional<std::int64_t>(seat.rating->rating) : std::nullopt;
}

// A seq beyond INT64_MAX wraps negative and is refused by the CHECK (seq >= 0), as in SQLite.
std::int64_t seq_value(std::uint64_t seq) {
    return static_cast<std::int64_t>(seq);
}

pg::Params progress_params(const std::string& game, std::uint32_t ply,
                           const std::array<std::int64_t, 2>& clock_ms, std::uint64_t seq,
                           std::int64_t updated_ms) {
    pg::Params params;
    params.text(game)
        .integer(std::int64_t{ply})
        .integer(clock_ms[0])
        .integer(clock_ms[1])
        .integer(seq_value(seq))
        .integer(updated_ms);
    return params;
}

pg::Params game_params(const GameRow& game) {
    pg::Params params;
    params.text(game.id)
        .text(rules::to_string(game.variant))
        .text(game.initial_position)
        .boolean(game.is_private)
        .integer(game.clock_initial_ms)
        .integer(game.clock_increment_ms)
        .text(status_text(game.status))
        .text(result_text(game.result))
        .text(reason_text(game.reason))
        .text(game.seats[0].name)
        .text(game.seats[0].token_hash)
        .text(game.seats[1].name)
        .text(game.seats[1].token_hash)
        .integer(game.clock_ms[0])
        .integer(game.clock_ms[1])
        .integer(seq_value(game.seq))
        .integer(std::int64_t{game.ply})
        .integer(game.created_ms)
        .integer(game.updated_ms);
    game.rematch_of ? params.text(*game.rematch_of) : params.null();
    game.rematch_next ? params.text(*game.rematch_next) : params.null();
    params.text(game.seats[0].engine)
        .integer(std::int64_t{game.seats[0].engine_level})
        .text(game.seats[1].engine)
        .integer(std::int64_t{game.seats[1].engine_level})
        .text(offers_text(game.offers))
        .integer(game.seats[0].user_id)
        .integer(game.seats[1].user_id)
        .boolean(game.rated)
        .integer(optional_int(game.rating_range ? game.rating_range->min : std::nullopt))
        .integer(optional_int(game.rating_range ? game.rating_range->max : std::nullopt))
        .integer(rating_of(game.seats[0]))
        .integer(rating_of(game.seats[1]))
        .integer(optional_int(game.rating_diffs[0]))
        .integer(optional_int(game.rating_diffs[1]))
        .boolean(provisional_of(game.seats[0].rating))
        .boolean(provisional_of(game.seats[1].rating));
    for (std::size_t seat = 0; seat < 2; ++seat) {
        params.boolean(game.rating_diffs[seat]
                           ? std::optional<bool>(game.rating_after_provisional[seat])
                           : std::nullopt);
    }
    return params;
}

}  // namespace

Expected<void, StorageError> PostgresIntentWriter::prepare(pg::Connection& connection) {
    for (const auto& [name, sql] : statements()) {
        if (auto prepared = connection.prepare(std::string(name), sql); !prepared) {
            return prepared;
        }
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::apply(const GameIntent& intent) {
    return std::visit([this](const auto& change) { return write(change); }, intent);
}

// --- each intent ---------------------------------------------------------------------------

Expected<void, StorageError> PostgresIntentWriter::write(const CreateGame& create) {
    auto inserted = connection_->run("insert_game", game_params(create.header));
    if (!inserted) {
        return unexpected(std::move(inserted).error());
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::write(const SeatPlayer& seat) {
    pg::Params params;
    params.text(seat.game)
        .text(seat.seat.name)
        .text(seat.seat.token_hash)
        .text(seat.seat.engine)
        .integer(std::int64_t{seat.seat.engine_level})
        .integer(seq_value(seat.seq))
        .integer(seat.updated_ms)
        .integer(seat.seat.user_id)
        .integer(rating_of(seat.seat))
        .boolean(provisional_of(seat.seat.rating));
    return update_row(seat.side == rules::Side::first ? "seat_first" : "seat_second", params,
                      seat.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const AppendMove& append) {
    pg::Params params = progress_params(append.game, append.move.ply, append.clock_ms, append.seq,
                                        append.move.played_ms);
    if (append.ending) {
        params.text(status_text(append.ending->status))
            .text(result_text(append.ending->result))
            .text(reason_text(append.ending->reason));
    }
    auto updated = connection_->run(append.ending ? "append_ending" : "append", params);
    if (!updated) {
        return unexpected(std::move(updated).error());
    }
    if (updated->changed() == 0) {
        return explain_no_change(append);
    }
    const MoveRow& move = append.move;
    pg::Params row;
    row.text(append.game)
        .integer(std::int64_t{move.ply})
        .text(move.move)
        .text(move.notation)
        .text(move.position)
        .integer(move.clock_ms)
        .integer(move.think_ms)
        .integer(seq_value(move.seq))
        .integer(move.played_ms)
        .boolean(move.check)
        .integer(move.lag_ms);
    auto inserted = connection_->run("insert_move", row);
    if (!inserted) {
        return unexpected(std::move(inserted).error());
    }
    if (inserted->changed() == 0) {
        // The row said the ply before, and `moves` holds this one (a row changed by hand).
        if (auto same = explain_no_change(append); !same) {
            return same;
        }
    }
    if (append.ratings) {
        return write_ratings(append.game, *append.ratings);
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::write(const TakeBack& take_back) {
    auto updated = connection_->run(
        "take_back", progress_params(take_back.game, take_back.to_ply, take_back.clock_ms,
                                     take_back.seq, take_back.updated_ms));
    if (!updated) {
        return unexpected(std::move(updated).error());
    }
    if (updated->changed() == 0) {
        return explain_ply(take_back.game,
                           "no takeback to ply " + std::to_string(take_back.to_ply));
    }
    auto deleted = connection_->run("delete_moves_after",
                                    pg::Params().text(take_back.game).integer(take_back.to_ply));
    if (!deleted) {
        return unexpected(std::move(deleted).error());
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::write(const SetOffers& offers) {
    return update_row("set_offers",
                      pg::Params()
                          .text(offers.game)
                          .text(offers_text(offers.offers))
                          .integer(offers.clock_ms[0])
                          .integer(offers.clock_ms[1])
                          .integer(seq_value(offers.seq)),
                      offers.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const RecordEvent& event) {
    return update_row("record_event",
                      pg::Params()
                          .text(event.game)
                          .integer(event.clock_ms[0])
                          .integer(event.clock_ms[1])
                          .integer(seq_value(event.seq)),
                      event.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const PostChat& chat) {
    // The game's row first: a message for a game that is not stored fails there, as every
    // other intent does.
    if (auto recorded = write(RecordEvent{chat.game, chat.clock_ms, chat.seq}); !recorded) {
        return recorded;
    }
    pg::Params params;
    params.text(chat.game)
        .integer(seq_value(chat.message.seq))
        .text(protocol::to_string(chat.message.room))
        .text(chat.message.from);
    if (chat.message.seat) {
        params.text(*chat.message.seat == rules::Side::first ? "first" : "second");
    } else {
        params.null();
    }
    params.text(chat.message.text).integer(chat.message.at_ms);
    auto inserted = connection_->run("insert_chat", params);
    if (!inserted) {
        return unexpected(std::move(inserted).error());
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::write(const EndGame& end) {
    auto updated = update_row("end_game",
                              pg::Params()
                                  .text(end.game)
                                  .text(status_text(end.ending.status))
                                  .text(result_text(end.ending.result))
                                  .text(reason_text(end.ending.reason))
                                  .integer(end.clock_ms[0])
                                  .integer(end.clock_ms[1])
                                  .integer(seq_value(end.seq))
                                  .integer(end.updated_ms),
                              end.game);
    if (!updated || !end.ratings) {
        return updated;
    }
    return write_ratings(end.game, *end.ratings);
}

Expected<void, StorageError> PostgresIntentWriter::write(const LinkRematch& link) {
    return update_row("link_rematch",
                      pg::Params().text(link.game).text(link.next).integer(seq_value(link.seq)),
                      link.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const StoreClocks& clocks) {
    pg::Params params;
    params.text(clocks.game)
        .integer(clocks.clock_ms[0])
        .integer(clocks.clock_ms[1])
        .integer(clocks.updated_ms);
    if (clocks.parked_flag) {
        params.integer(clocks.parked_flag->at_ms).integer(seq_value(clocks.parked_flag->seq));
    } else {
        params.null().null();
    }
    return update_row("store_clocks", params, clocks.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const PruneAborted& prune) {
    auto deleted = connection_->run("prune_aborted", pg::Params().integer(prune.before_ms));
    if (!deleted) {
        return unexpected(std::move(deleted).error());
    }
    return {};
}

// --- helpers -------------------------------------------------------------------------------

Expected<void, StorageError> PostgresIntentWriter::write_ratings(const std::string& game,
                                                                 const RatingsSettled& settled) {
    const std::string_view variant = rules::to_string(settled.variant);
    for (const RatingUpdate& seat : settled.seats) {
        auto upserted = connection_->run("upsert_rating", pg::Params()
                                                              .integer(seat.user_id)
                                                              .text(variant)
                                                              .text(settled.speed)
                                                              .real(seat.rating)
                                                              .real(seat.deviation)
                                                              .real(seat.volatility)
                                                              .integer(settled.at_ms));
        if (!upserted) {
            return unexpected(std::move(upserted).error());
        }
        auto inserted = connection_->run("insert_rating_history", pg::Params()
                                                                      .integer(seat.user_id)
                                                                      .text(variant)
                                                                      .text(settled.speed)
                                                                      .integer(settled.at_ms)
                                                                      .text(game)
                                                                      .real(seat.rating)
                                                                      .real(seat.deviation));
        if (!inserted) {
            return unexpected(std::move(inserted).error());
        }
    }
    auto updated = connection_->run("rating_diffs", pg::Params()
                                                        .text(game)
                                                        .integer(settled.seats[0].diff)
                                                        .integer(settled.seats[1].diff)
                                                        .boolean(settled.seats[0].provisional)
                                                        .boolean(settled.seats[1].provisional));
    if (!updated) {
        return unexpected(std::move(updated).error());
    }
    if (updated->changed() == 0) {
        // Ratings for a game that is not a rated game ending here: nothing of it may stand.
        return unexpected(StorageError{"game " + game + " is not a rated game that ended"});
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::explain_no_change(const AppendMove& append) {
    auto existing = connection_->run(
        "select_move", pg::Params().text(append.game).integer(std::int64_t{append.move.ply}));
    if (!existing) {
        return unexpected(std::move(existing).error());
    }
    if (existing->rows() > 0) {
        // The same move again is a resend of an acknowledged move (idempotent: nothing changes);
        // another move would silently rewrite history, so it is refused.
        const std::string stored = existing->text(0, 0);
        if (stored == append.move.move) {
            return {};
        }
        return unexpected(StorageError{"game " + append.game + " already has move '" + stored +
                                       "' at ply " + std::to_string(append.move.ply) + ", not '" +
                                       append.move.move + "'"});
    }
    return explain_ply(append.game,
                       "a move at ply " + std::to_string(append.move.ply) + " does not follow");
}

Expected<void, StorageError> PostgresIntentWriter::explain_ply(const std::string& game,
                                                               const std::string& wanted) {
    auto ply = connection_->run("select_ply", pg::Params().text(game));
    if (!ply) {
        return unexpected(std::move(ply).error());
    }
    if (ply->rows() == 0) {
        return unexpected(StorageError{"game " + game + " is not stored"});
    }
    return unexpected(StorageError{"game " + game + " is at ply " +
                                   std::to_string(ply->integer(0, 0)) + ": " + wanted});
}

Expected<void, StorageError> PostgresIntentWriter::update_row(const std::string& name,
                                                              const pg::Params& params,
                                                              const std::string& game) {
    auto updated = connection_->run(name, params);
    if (!updated) {
        return unexpected(std::move(updated).error());
    }
    if (updated->changed() == 0) {
        return unexpected(StorageError{"game " + game + " is not stored"});
    }
    return {};
}

}  // namespace arbiter::server::storage::detail
