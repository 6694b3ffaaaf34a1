#include "server/storage/intent_writer.hpp"

#include <string_view>
#include <utility>

#include "server/storage/game_rows.hpp"
#include "server/storage/intent_sql.hpp"

namespace arbiter::server::storage::detail {

namespace {

// Each intent updates only the columns it names. SQLite checks a CHECK constraint only when an
// UPDATE sets one of its columns, and the IN lists of the status/result/variant CHECKs compile
// into ephemeral tables opened and dropped on every run: so a move that does not end its game
// (kAppendSql) sets none of those columns (56 VDBE opcodes against 170 for a whole row).
//
// The statements both engines share are in intent_sql.hpp; these are SQLite's own.

// A rated game's end (RatingsSettled), beside the end's own update: each player's rating row
// (one more game), ?1 user, ?2 variant, ?3 speed, ?4 rating, ?5 deviation, ?6 volatility, ?7 at,
// ?8 the games the row counted when the rating was computed: another count changes no row.
constexpr std::string_view kUpsertRatingSql =
    "INSERT INTO ratings (user_id, variant, speed, rating, deviation, volatility, games, "
    "updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7) ON CONFLICT (user_id, variant, speed) DO "
    "UPDATE SET rating = excluded.rating, deviation = excluded.deviation, volatility = "
    "excluded.volatility, games = games + 1, updated_ms = excluded.updated_ms WHERE games = ?8";
// Only a rated game that just ended takes its changes.
constexpr std::string_view kRatingDiffsSql =
    "UPDATE games SET first_rating_diff = ?2, second_rating_diff = ?3, "
    "first_rating_after_provisional = ?4, second_rating_after_provisional = ?5 WHERE id = ?1 AND "
    "rated = 1 AND status = 'ended'";

// Games nobody played, aborted and created before ?1: by games_by_status_created (status,
// created_ms) and then each row's own columns. The move checks cover rows edited by hand: an
// aborted game takes no move, and its abort filed its journal.
constexpr std::string_view kPruneAbortedSql =
    "DELETE FROM games WHERE status = 'aborted' AND created_ms < ?1 AND updated_ms < ?1 "
    "AND ply = 0 AND NOT EXISTS (SELECT 1 FROM moves WHERE moves.game_id = games.id) "
    "AND NOT EXISTS (SELECT 1 FROM move_journal WHERE move_journal.game_id = games.id)";

// ?1 game, ?2 ply, ?3 ?4 clocks, ?5 seq, ?6 updated_ms (kAppendSql, kTakeBackSql).
void bind_progress(sqlite::Statement& statement, const std::string& game, std::uint32_t ply,
                   const std::array<std::int64_t, 2>& clock_ms, std::uint64_t seq,
                   std::int64_t updated_ms) {
    statement.bind_unowned(1, game)
        .bind(2, std::int64_t{ply})
        .bind(3, clock_ms[0])
        .bind(4, clock_ms[1])
        // A seq beyond INT64_MAX wraps negative and is refused by the CHECK (seq >= 0).
        .bind(5, static_cast<std::int64_t>(seq))
        .bind(6, updated_ms);
}

}  // namespace

Expected<IntentWriter, StorageError> IntentWriter::prepare(sqlite::Connection& connection,
                                                           bool use_journal) {
    auto journal = MoveJournal::prepare(connection);
    if (!journal) {
        return unexpected(std::move(journal).error());
    }
    IntentWriter writer;
    writer.connection_ = &connection;
    writer.use_journal_ = use_journal;
    writer.journal_ = std::move(journal).value();
    std::pair<sqlite::Statement*, std::string> sources[] = {
        {&writer.insert_game_, std::string(kInsertGameSql)},
        {&writer.seat_first_, seat_sql("first")},
        {&writer.seat_second_, seat_sql("second")},
        {&writer.append_, std::string(kAppendSql)},
        {&writer.append_ending_, std::string(kAppendEndingSql)},
        {&writer.insert_move_, insert_move_sql()},
        {&writer.select_move_, std::string(kSelectMoveSql)},
        {&writer.select_ply_, std::string(kSelectPlySql)},
        {&writer.take_back_, std::string(kTakeBackSql)},
        {&writer.delete_moves_after_, std::string(kDeleteMovesAfterSql)},
        {&writer.set_offers_, std::string(kSetOffersSql)},
        {&writer.record_event_, std::string(kRecordEventSql)},
        {&writer.insert_chat_, std::string(kInsertChatSql)},
        {&writer.end_game_, std::string(kEndGameSql)},
        {&writer.link_rematch_, std::string(kLinkRematchSql)},
        {&writer.store_clocks_, std::string(kStoreClocksSql)},
        {&writer.prune_aborted_, std::string(kPruneAbortedSql)},
        {&writer.upsert_rating_, std::string(kUpsertRatingSql)},
        {&writer.insert_rating_history_, std::string(kInsertRatingHistorySql)},
        {&writer.rating_diffs_, std::string(kRatingDiffsSql)},
        {&writer.data_version_, "PRAGMA data_version"},
    };
    for (auto& [target, sql] : sources) {
        auto prepared = connection.prepare(sql, true);
        if (!prepared) {
            return unexpected(std::move(prepared).error());
        }
        *target = std::move(prepared).value();
    }
    return writer;
}

Expected<void, StorageError> IntentWriter::apply(const GameIntent& intent) {
    if (auto known = journal_.know(); !known) {
        return known;
    }
    return std::visit([this](const auto& change) { return write(change); }, intent);
}

void IntentWriter::forget() {
    journal_.forget();
    plies_.clear();
}

void IntentWriter::note_other_commits() {
    data_version_.reset();
    const auto row = data_version_.step();
    std::optional<std::int64_t> version;
    if (row && *row) {
        version = data_version_.column_int64(0);
    }
    data_version_.reset();
    // Unreadable counts as changed: forgetting only costs the next writes a look-up.
    if (!version || version != data_version_seen_) {
        forget();
    }
    data_version_seen_ = version;
}

// --- each intent ---------------------------------------------------------------------------

Expected<void, StorageError> IntentWriter::write(const CreateGame& create) {
    const GameRow& header = create.header;
    // Rows a deleted game of the same id left in the journal go with it.
    if (auto filed = journal_.file_game(header.id); !filed) {
        return filed;
    }
    insert_game_.reset();
    bind_game(insert_game_, header);
    if (auto inserted = insert_game_.run(); !inserted) {
        return inserted;
    }
    if (!protocol::is_finished(header.status)) {
        remember_ply(header.id, header.ply);
    }
    return {};
}

Expected<void, StorageError> IntentWriter::write(const SeatPlayer& seat) {
    if (auto filed = journal_.file_game(seat.game); !filed) {
        return filed;
    }
    sqlite::Statement& update = seat.side == rules::Side::first ? seat_first_ : seat_second_;
    update.reset();
    update.bind_unowned(1, seat.game)
        .bind_unowned(2, seat.seat.name)
        .bind_unowned(3, seat.seat.token_hash)
        .bind_unowned(4, seat.seat.engine)
        .bind(5, std::int64_t{seat.seat.engine_level})
        .bind(6, static_cast<std::int64_t>(seat.seq))
        .bind(7, seat.updated_ms)
        .bind(8, seat.seat.user_id)
        .bind(9, seat.seat.rating ? std::optional<std::int64_t>(seat.seat.rating->rating)
                                  : std::nullopt)
        .bind(10, provisional_flag(seat.seat.rating));
    return update_row(update, seat.game);
}

Expected<void, StorageError> IntentWriter::write(const AppendMove& append) {
    if (use_journal_ && !append.ending) {
        auto journaled = journal_if_next(append);
        if (!journaled) {
            return unexpected(std::move(journaled).error());
        }
        if (*journaled) {
            return {};
        }
    }
    if (auto filed = journal_.file_game(append.game); !filed) {
        return filed;
    }
    sqlite::Statement& update = append.ending ? append_ending_ : append_;
    update.reset();
    bind_progress(update, append.game, append.move.ply, append.clock_ms, append.seq,
                  append.move.played_ms);
    if (append.ending) {
        update.bind(7, status_text(append.ending->status))
            .bind(8, result_text(append.ending->result))
            .bind(9, reason_text(append.ending->reason));
    }
    if (auto updated = update.run(); !updated) {
        return updated;
    }
    if (connection_->changes() == 0) {
        return explain_no_change(append);
    }
    insert_move_.reset();
    bind_move(insert_move_, append.game, append.move);
    if (auto inserted = insert_move_.run(); !inserted) {
        return inserted;
    }
    if (connection_->changes() == 0) {
        // The row said the ply before, and `moves` holds this one (a file changed by hand).
        if (auto same = explain_no_change(append); !same) {
            return same;
        }
    }
    if (append.ratings) {
        if (auto rated = write_ratings(append.game, *append.ratings); !rated) {
            return rated;
        }
    }
    if (append.ending) {
        plies_.erase(append.game);  // a finished game is rarely written again
    } else {
        remember_ply(append.game, append.move.ply);
    }
    return {};
}

Expected<void, StorageError> IntentWriter::write(const TakeBack& take_back) {
    if (auto filed = journal_.file_game(take_back.game); !filed) {
        return filed;
    }
    take_back_.reset();
    bind_progress(take_back_, take_back.game, take_back.to_ply, take_back.clock_ms, take_back.seq,
                  take_back.updated_ms);
    if (auto updated = take_back_.run(); !updated) {
        return updated;
    }
    if (connection_->changes() == 0) {
        auto ply = stored_ply(take_back.game);
        if (!ply) {
            return unexpected(std::move(ply).error());
        }
        if (!*ply) {
            return unexpected(StorageError{"game " + take_back.game + " is not stored"});
        }
        return unexpected(StorageError{"game " + take_back.game + " is at ply " +
                                       std::to_string(**ply) + ": no takeback to ply " +
                                       std::to_string(take_back.to_ply)});
    }
    delete_moves_after_.reset();
    delete_moves_after_.bind_unowned(1, take_back.game).bind(2, std::int64_t{take_back.to_ply});
    if (auto deleted = delete_moves_after_.run(); !deleted) {
        return deleted;
    }
    remember_ply(take_back.game, take_back.to_ply);
    return {};
}

Expected<void, StorageError> IntentWriter::write(const SetOffers& offers) {
    if (auto filed = journal_.file_game(offers.game); !filed) {
        return filed;
    }
    set_offers_.reset();
    set_offers_.bind_unowned(1, offers.game)
        .bind(2, std::string_view(offers_text(offers.offers)))
        .bind(3, offers.clock_ms[0])
        .bind(4, offers.clock_ms[1])
        .bind(5, static_cast<std::int64_t>(offers.seq));
    return update_row(set_offers_, offers.game);
}

Expected<void, StorageError> IntentWriter::write(const RecordEvent& event) {
    if (auto filed = journal_.file_game(event.game); !filed) {
        return filed;
    }
    record_event_.reset();
    record_event_.bind_unowned(1, event.game)
        .bind(2, event.clock_ms[0])
        .bind(3, event.clock_ms[1])
        .bind(4, static_cast<std::int64_t>(event.seq));
    return update_row(record_event_, event.game);
}

Expected<void, StorageError> IntentWriter::write(const PostChat& chat) {
    // The game's row first: a message for a game that is not stored fails there, as every
    // other intent does.
    if (auto recorded = write(RecordEvent{chat.game, chat.clock_ms, chat.seq}); !recorded) {
        return recorded;
    }
    insert_chat_.reset();
    insert_chat_.bind_unowned(1, chat.game)
        .bind(2, static_cast<std::int64_t>(chat.message.seq))
        .bind(3, protocol::to_string(chat.message.room))
        .bind_unowned(4, chat.message.from);
    if (chat.message.seat) {
        insert_chat_.bind(5, *chat.message.seat == rules::Side::first ? "first" : "second");
    } else {
        insert_chat_.bind_null(5);
    }
    insert_chat_.bind_unowned(6, chat.message.text).bind(7, chat.message.at_ms);
    return insert_chat_.run();
}

Expected<void, StorageError> IntentWriter::write(const EndGame& end) {
    if (auto filed = journal_.file_game(end.game); !filed) {
        return filed;
    }
    end_game_.reset();
    end_game_.bind_unowned(1, end.game)
        .bind(2, status_text(end.ending.status))
        .bind(3, result_text(end.ending.result))
        .bind(4, reason_text(end.ending.reason))
        .bind(5, end.clock_ms[0])
        .bind(6, end.clock_ms[1])
        .bind(7, static_cast<std::int64_t>(end.seq))
        .bind(8, end.updated_ms);
    if (auto updated = update_row(end_game_, end.game); !updated) {
        return updated;
    }
    if (end.ratings) {
        if (auto rated = write_ratings(end.game, *end.ratings); !rated) {
            return rated;
        }
    }
    plies_.erase(end.game);  // a finished game is rarely written again
    return {};
}

Expected<void, StorageError> IntentWriter::write(const LinkRematch& link) {
    if (auto filed = journal_.file_game(link.game); !filed) {
        return filed;
    }
    link_rematch_.reset();
    link_rematch_.bind_unowned(1, link.game)
        .bind_unowned(2, link.next)
        .bind(3, static_cast<std::int64_t>(link.seq));
    return update_row(link_rematch_, link.game);
}

Expected<void, StorageError> IntentWriter::write(const StoreClocks& clocks) {
    if (auto filed = journal_.file_game(clocks.game); !filed) {
        return filed;
    }
    store_clocks_.reset();
    store_clocks_.bind_unowned(1, clocks.game)
        .bind(2, clocks.clock_ms[0])
        .bind(3, clocks.clock_ms[1])
        .bind(4, clocks.updated_ms);
    if (clocks.parked_flag) {
        store_clocks_.bind(5, clocks.parked_flag->at_ms)
            .bind(6, static_cast<std::int64_t>(clocks.parked_flag->seq));
    } else {
        store_clocks_.bind_null(5).bind_null(6);
    }
    return update_row(store_clocks_, clocks.game);
}

Expected<void, StorageError> IntentWriter::write(const PruneAborted& prune) {
    prune_aborted_.reset();
    prune_aborted_.bind(1, prune.before_ms);
    if (auto deleted = prune_aborted_.run(); !deleted) {
        return deleted;
    }
    // Only aborted games were deleted, and the plies of those are not remembered (EndGame forgot
    // them), unless one was looked up since: forget them all rather than keep a deleted one.
    plies_.clear();
    return {};
}

// --- helpers -------------------------------------------------------------------------------

Expected<void, StorageError> IntentWriter::write_ratings(const std::string& game,
                                                         const RatingsSettled& settled) {
    const std::string_view variant = rules::to_string(settled.variant);
    for (const RatingUpdate& seat : settled.seats) {
        upsert_rating_.reset();
        upsert_rating_.bind(1, seat.user_id)
            .bind(2, variant)
            .bind_unowned(3, settled.speed)
            .bind_real(4, seat.rating)
            .bind_real(5, seat.deviation)
            .bind_real(6, seat.volatility)
            .bind(7, settled.at_ms)
            .bind(8, seat.games_before);
        if (auto upserted = upsert_rating_.run(); !upserted) {
            return upserted;
        }
        if (connection_->changes() == 0) {
            return unexpected(stale_rating(seat.user_id, variant, settled.speed));
        }
        insert_rating_history_.reset();
        insert_rating_history_.bind(1, seat.user_id)
            .bind(2, variant)
            .bind_unowned(3, settled.speed)
            .bind(4, settled.at_ms)
            .bind_unowned(5, game)
            .bind_real(6, seat.rating)
            .bind_real(7, seat.deviation);
        if (auto inserted = insert_rating_history_.run(); !inserted) {
            return inserted;
        }
    }
    rating_diffs_.reset();
    rating_diffs_.bind_unowned(1, game)
        .bind(2, std::int64_t{settled.seats[0].diff})
        .bind(3, std::int64_t{settled.seats[1].diff})
        .bind(4, std::int64_t{settled.seats[0].provisional ? 1 : 0})
        .bind(5, std::int64_t{settled.seats[1].provisional ? 1 : 0});
    if (auto updated = rating_diffs_.run(); !updated) {
        return updated;
    }
    if (connection_->changes() == 0) {
        // Ratings for a game that is not a rated game ending here: nothing of it may stand.
        return unexpected(StorageError{"game " + game + " is not a rated game that ended"});
    }
    return {};
}

Expected<bool, StorageError> IntentWriter::journal_if_next(const AppendMove& append) {
    auto last = stored_ply(append.game);
    if (!last) {
        return unexpected(std::move(last).error());
    }
    if (!*last || append.move.ply != **last + 1) {
        return false;  // not stored, a resend or a gap: the direct write says which
    }
    const MoveProgress progress{append.clock_ms, append.seq, append.move.ply,
                                append.move.played_ms};
    if (auto journaled = journal_.append(append.game, append.move, progress); !journaled) {
        return unexpected(journaled.error());
    }
    remember_ply(append.game, append.move.ply);
    return true;
}

Expected<void, StorageError> IntentWriter::explain_no_change(const AppendMove& append) {
    select_move_.reset();
    select_move_.bind_unowned(1, append.game).bind(2, std::int64_t{append.move.ply});
    auto row = select_move_.step();
    if (!row) {
        select_move_.reset();
        return unexpected(std::move(row).error());
    }
    const bool taken = *row;
    const std::string existing = taken ? select_move_.column_text(0) : std::string();
    select_move_.reset();
    if (taken) {
        // The same move again is a resend of an acknowledged move (idempotent: nothing changes);
        // another move would silently rewrite history, so it is refused.
        if (existing == append.move.move) {
            return {};
        }
        return unexpected(StorageError{"game " + append.game + " already has move '" + existing +
                                       "' at ply " + std::to_string(append.move.ply) + ", not '" +
                                       append.move.move + "'"});
    }
    auto ply = stored_ply(append.game);
    if (!ply) {
        return unexpected(std::move(ply).error());
    }
    if (!*ply) {
        return unexpected(StorageError{"game " + append.game + " is not stored"});
    }
    return unexpected(StorageError{"game " + append.game + " is at ply " + std::to_string(**ply) +
                                   ": a move at ply " + std::to_string(append.move.ply) +
                                   " does not follow"});
}

Expected<void, StorageError> IntentWriter::update_row(sqlite::Statement& statement,
                                                      const std::string& game) {
    if (auto updated = statement.run(); !updated) {
        return updated;
    }
    if (connection_->changes() == 0) {
        return unexpected(StorageError{"game " + game + " is not stored"});
    }
    return {};
}

Expected<std::optional<std::uint32_t>, StorageError> IntentWriter::stored_ply(
    const std::string& game) {
    // A game's journal rows are its latest state (any other write files them first).
    if (const MoveProgress* journaled = journal_.last_of(game)) {
        return std::optional<std::uint32_t>(journaled->ply);
    }
    if (const auto known = plies_.find(game); known != plies_.end()) {
        return std::optional<std::uint32_t>(known->second);
    }
    select_ply_.reset();
    select_ply_.bind_unowned(1, game);
    auto row = select_ply_.step();
    if (!row) {
        select_ply_.reset();
        return unexpected(std::move(row).error());
    }
    std::optional<std::uint32_t> ply;
    if (*row) {
        ply = static_cast<std::uint32_t>(select_ply_.column_int64(0));
    }
    select_ply_.reset();
    if (ply) {
        remember_ply(game, *ply);
    }
    return ply;
}

void IntentWriter::remember_ply(const std::string& game, std::uint32_t ply) {
    if (const auto known = plies_.find(game); known != plies_.end()) {
        known->second = ply;
        return;
    }
    if (plies_.size() >= kMaxRememberedPlies) {
        plies_.clear();
    }
    plies_.emplace(game, ply);
}

}  // namespace arbiter::server::storage::detail
