#include "server/storage/postgres_intents.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include "common/core/assert.hpp"
#include "server/storage/intent_sql.hpp"
#include "server/storage/row_terms.hpp"

namespace arbiter::server::storage::detail {

namespace {

// The highest $N in `sql`.
int highest_parameter(std::string_view sql) {
    int highest = 0;
    for (std::size_t i = 0; i < sql.size(); ++i) {
        if (sql[i] != '$') {
            continue;
        }
        int number = 0;
        while (i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
            number = number * 10 + (sql[++i] - '0');
        }
        highest = std::max(highest, number);
    }
    return highest;
}

// An UPDATE of one game's row that changes it only while this node owns it at its epoch: the
// two parameters after the statement's own. Every such statement ends with its WHERE clause.
std::string owner_checked(const std::string& sql) {
    ARBITER_ASSERT(sql.starts_with("UPDATE games SET ") && sql.find(" WHERE id = $1") != sql.npos);
    // Appended to the WHERE clause: right only while it is a chain of ANDs at the very end.
    ARBITER_ASSERT(sql.find(" OR ") == sql.npos && sql.find("RETURNING") == sql.npos);
    const int next = highest_parameter(sql) + 1;
    return sql + " AND owner_node = $" + std::to_string(next) + " AND owner_epoch = $" +
           std::to_string(next + 1);
}

// A game's row with this node as its owner at epoch 1: the node after the row's own values.
std::string owned_insert_sql() {
    std::string sql = pg::numbered_parameters(kInsertGameSql);
    const std::size_t columns_end = sql.find(") VALUES (");
    ARBITER_ASSERT(columns_end != sql.npos && sql.back() == ')');
    const int node = highest_parameter(sql) + 1;
    sql.insert(sql.size() - 1, ", $" + std::to_string(node) + ", 1");
    sql.insert(columns_end, ", owner_node, owner_epoch");
    return sql;
}

// The statements, by the name each is prepared under: the ones both engines share
// (intent_sql.hpp) with PostgreSQL's parameters, then PostgreSQL's own. Owned, each that
// changes a game's row checks its owner too.
std::vector<std::pair<std::string_view, std::string>> statements(bool owned) {
    using pg::numbered_parameters;
    const auto game_update = [owned](std::string_view sql) {
        std::string numbered = numbered_parameters(sql);
        return owned ? owner_checked(numbered) : numbered;
    };
    return {
        {"append", game_update(kAppendSql)},
        {"append_ending", game_update(kAppendEndingSql)},
        {"take_back", game_update(kTakeBackSql)},
        {"delete_moves_after", numbered_parameters(kDeleteMovesAfterSql)},
        {"insert_game", owned ? owned_insert_sql() : numbered_parameters(kInsertGameSql)},
        {"seat_first", game_update(seat_sql("first"))},
        {"seat_second", game_update(seat_sql("second"))},
        {"insert_move", numbered_parameters(insert_move_sql())},
        {"select_move", numbered_parameters(kSelectMoveSql)},
        {"select_ply", numbered_parameters(kSelectPlySql)},
        {"set_offers", game_update(kSetOffersSql)},
        {"record_event", game_update(kRecordEventSql)},
        {"insert_chat", numbered_parameters(kInsertChatSql)},
        {"end_game", game_update(kEndGameSql)},
        {"link_rematch", game_update(kLinkRematchSql)},
        {"store_clocks", game_update(kStoreClocksSql)},
        {"insert_rating_history", numbered_parameters(kInsertRatingHistorySql)},
        // Games nobody played, aborted and created before $1 (intents.hpp, PruneAborted); no
        // journal here.
        {"prune_aborted",
         "DELETE FROM games WHERE status = 'aborted' AND created_ms < $1 AND updated_ms < $1 "
         "AND ply = 0 AND NOT EXISTS (SELECT 1 FROM moves WHERE moves.game_id = games.id)"},
        // A rated game's end: $1 user, $2 variant, $3 speed, $4 rating, $5 deviation, $6
        // volatility, $7 at, $8 the games the row counted when the rating was computed (another
        // count changes no row: stale). PostgreSQL names the existing row by its table.
        {"upsert_rating",
         "INSERT INTO ratings (user_id, variant, speed, rating, deviation, volatility, games, "
         "updated_ms) VALUES ($1, $2, $3, $4, $5, $6, 1, $7) ON CONFLICT (user_id, variant, "
         "speed) DO UPDATE SET rating = excluded.rating, deviation = excluded.deviation, "
         "volatility = excluded.volatility, games = ratings.games + 1, updated_ms = "
         "excluded.updated_ms WHERE ratings.games = $8"},
        // Only a rated game that just ended takes its changes (`rated` is a boolean here).
        {"rating_diffs",
         "UPDATE games SET first_rating_diff = $2, second_rating_diff = $3, "
         "first_rating_after_provisional = $4, second_rating_after_provisional = $5 WHERE id = "
         "$1 AND rated AND status = 'ended'"},
        // A game's owner, to tell a fenced write from one that does not apply.
        {"select_owner", "SELECT owner_node, owner_epoch FROM games WHERE id = $1"},
        // The node's lease, live under its incarnation by the database's clock, its row locked
        // to the commit: $1 node, $2 incarnation.
        {"lock_lease",
         "SELECT 1 FROM nodes WHERE node_id = $1 AND incarnation = $2 AND lease_expires_at > "
         "clock_timestamp() FOR SHARE"},
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

Expected<void, StorageError> PostgresIntentWriter::prepare(pg::Connection& connection, bool owned) {
    for (const auto& [name, sql] : statements(owned)) {
        if (auto prepared = connection.prepare(std::string(name), sql); !prepared) {
            return prepared;
        }
    }
    return {};
}

bool Step::answered(Expect expect, const pg::Result& result) noexcept {
    switch (expect) {
        case Expect::anything:
            return true;
        case Expect::one_changed:
            return result.changed() == 1;
        case Expect::one_row:
            return result.rows() == 1;
    }
    return false;
}

Expected<void, StorageError> PostgresIntentWriter::apply(const GameIntent& intent,
                                                         const OwnerFence* fence) {
    // Owned, only housekeeping (PruneAborted, no game of its own) comes without a fence.
    ARBITER_ASSERT(!owned_ || (fence != nullptr) != std::holds_alternative<PruneAborted>(intent));
    fence_ = owned_ ? fence : nullptr;
    return std::visit([this](const auto& change) { return write(change); }, intent);
}

std::vector<Step> PostgresIntentWriter::plan(const GameIntent& intent, const OwnerFence* fence) {
    ARBITER_ASSERT(!owned_ || (fence != nullptr) != std::holds_alternative<PruneAborted>(intent));
    fence_ = owned_ ? fence : nullptr;
    return std::visit([this](const auto& change) { return steps(change); }, intent);
}

Expected<void, StorageError> PostgresIntentWriter::lock_node_row(const std::string& node,
                                                                 std::uint64_t incarnation) {
    // Whether the lease is live is each CreateGame's to ask (check_lease): only the lock matters.
    return execute(lease_lock(node, incarnation));
}

Step PostgresIntentWriter::lease_lock(const std::string& node, std::uint64_t incarnation) {
    return Step{
        pg::Statement{"lock_lease",
                      pg::Params().text(node).integer(static_cast<std::int64_t>(incarnation)),
                      {}},
        Step::Expect::one_row};
}

// --- each intent's statements ---------------------------------------------------------------

Step PostgresIntentWriter::fenced(std::string name, pg::Params params) const {
    if (owned_) {
        ARBITER_ASSERT(fence_ != nullptr);
        params.text(fence_->node).integer(static_cast<std::int64_t>(fence_->epoch));
    }
    return Step{pg::Statement{std::move(name), std::move(params), {}}, Step::Expect::one_changed};
}

std::vector<Step> PostgresIntentWriter::steps(const CreateGame& create) const {
    std::vector<Step> steps;
    pg::Params params = game_params(create.header);
    if (fence_ != nullptr) {
        // The lease, live under the fence's incarnation, first (check_lease).
        steps.push_back(lease_lock(fence_->node, fence_->incarnation));
        params.text(fence_->node);
    }
    steps.push_back(Step{pg::Statement{"insert_game", std::move(params), {}}});
    return steps;
}

std::vector<Step> PostgresIntentWriter::steps(const SeatPlayer& seat) const {
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
    return {
        fenced(seat.side == rules::Side::first ? "seat_first" : "seat_second", std::move(params))};
}

std::vector<Step> PostgresIntentWriter::steps(const AppendMove& append) const {
    pg::Params params = progress_params(append.game, append.move.ply, append.clock_ms, append.seq,
                                        append.move.played_ms);
    if (append.ending) {
        params.text(status_text(append.ending->status))
            .text(result_text(append.ending->result))
            .text(reason_text(append.ending->reason));
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
    std::vector<Step> steps{
        fenced(append.ending ? "append_ending" : "append", std::move(params)),
        Step{pg::Statement{"insert_move", std::move(row), {}}, Step::Expect::one_changed}};
    if (append.ratings) {
        add_rating_steps(steps, append.game, *append.ratings);
    }
    return steps;
}

std::vector<Step> PostgresIntentWriter::steps(const TakeBack& take_back) const {
    return {
        fenced("take_back", progress_params(take_back.game, take_back.to_ply, take_back.clock_ms,
                                            take_back.seq, take_back.updated_ms)),
        Step{pg::Statement{"delete_moves_after",
                           pg::Params().text(take_back.game).integer(take_back.to_ply),
                           {}}}};
}

std::vector<Step> PostgresIntentWriter::steps(const SetOffers& offers) const {
    return {fenced("set_offers", pg::Params()
                                     .text(offers.game)
                                     .text(offers_text(offers.offers))
                                     .integer(offers.clock_ms[0])
                                     .integer(offers.clock_ms[1])
                                     .integer(seq_value(offers.seq)))};
}

std::vector<Step> PostgresIntentWriter::steps(const RecordEvent& event) const {
    return {fenced("record_event", pg::Params()
                                       .text(event.game)
                                       .integer(event.clock_ms[0])
                                       .integer(event.clock_ms[1])
                                       .integer(seq_value(event.seq)))};
}

std::vector<Step> PostgresIntentWriter::steps(const PostChat& chat) const {
    // The game's row first: a message for a game that is not stored fails there, as every
    // other intent does.
    std::vector<Step> steps = this->steps(RecordEvent{chat.game, chat.clock_ms, chat.seq});
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
    steps.push_back(Step{pg::Statement{"insert_chat", std::move(params), {}}});
    return steps;
}

std::vector<Step> PostgresIntentWriter::steps(const EndGame& end) const {
    std::vector<Step> steps{fenced("end_game", pg::Params()
                                                   .text(end.game)
                                                   .text(status_text(end.ending.status))
                                                   .text(result_text(end.ending.result))
                                                   .text(reason_text(end.ending.reason))
                                                   .integer(end.clock_ms[0])
                                                   .integer(end.clock_ms[1])
                                                   .integer(seq_value(end.seq))
                                                   .integer(end.updated_ms))};
    if (end.ratings) {
        add_rating_steps(steps, end.game, *end.ratings);
    }
    return steps;
}

std::vector<Step> PostgresIntentWriter::steps(const LinkRematch& link) const {
    return {fenced("link_rematch",
                   pg::Params().text(link.game).text(link.next).integer(seq_value(link.seq)))};
}

std::vector<Step> PostgresIntentWriter::steps(const StoreClocks& clocks) const {
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
    return {fenced("store_clocks", std::move(params))};
}

std::vector<Step> PostgresIntentWriter::steps(const PruneAborted& prune) const {
    return {Step{pg::Statement{"prune_aborted", pg::Params().integer(prune.before_ms), {}}}};
}

void PostgresIntentWriter::add_rating_steps(std::vector<Step>& steps, const std::string& game,
                                            const RatingsSettled& settled) {
    const std::string_view variant = rules::to_string(settled.variant);
    for (const RatingUpdate& seat : settled.seats) {
        steps.push_back(Step{pg::Statement{"upsert_rating",
                                           pg::Params()
                                               .integer(seat.user_id)
                                               .text(variant)
                                               .text(settled.speed)
                                               .real(seat.rating)
                                               .real(seat.deviation)
                                               .real(seat.volatility)
                                               .integer(settled.at_ms)
                                               .integer(seat.games_before),
                                           {}},
                             Step::Expect::one_changed});
        steps.push_back(Step{pg::Statement{"insert_rating_history",
                                           pg::Params()
                                               .integer(seat.user_id)
                                               .text(variant)
                                               .text(settled.speed)
                                               .integer(settled.at_ms)
                                               .text(game)
                                               .real(seat.rating)
                                               .real(seat.deviation),
                                           {}}});
    }
    // Only a rated game that just ended takes its changes.
    steps.push_back(Step{pg::Statement{"rating_diffs",
                                       pg::Params()
                                           .text(game)
                                           .integer(settled.seats[0].diff)
                                           .integer(settled.seats[1].diff)
                                           .boolean(settled.seats[0].provisional)
                                           .boolean(settled.seats[1].provisional),
                                       {}},
                         Step::Expect::one_changed});
}

// --- each intent, one statement at a time ---------------------------------------------------

Expected<void, StorageError> PostgresIntentWriter::write(const CreateGame& create) {
    const std::vector<Step> steps = this->steps(create);
    if (fence_ != nullptr) {
        if (auto live = check_lease(steps.front(), create.header.id); !live) {
            return live;
        }
    }
    return execute(steps.back());
}

Expected<void, StorageError> PostgresIntentWriter::write(const SeatPlayer& seat) {
    return update_row(steps(seat).front(), seat.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const AppendMove& append) {
    const std::vector<Step> steps = this->steps(append);
    auto updated = run(steps[0]);
    if (!updated) {
        return unexpected(std::move(updated).error());
    }
    if (updated->changed() == 0) {
        return explain_no_change(append);
    }
    auto inserted = run(steps[1]);
    if (!inserted) {
        return unexpected(std::move(inserted).error());
    }
    if (inserted->changed() == 0) {
        // The row said the ply before, and `moves` holds this one (a row changed by hand).
        if (auto same = explain_no_change(append); !same) {
            return same;
        }
    }
    if (!append.ratings) {
        return {};
    }
    return write_ratings(append.game, *append.ratings, steps, 2);
}

Expected<void, StorageError> PostgresIntentWriter::write(const TakeBack& take_back) {
    const std::vector<Step> steps = this->steps(take_back);
    auto updated = run(steps[0]);
    if (!updated) {
        return unexpected(std::move(updated).error());
    }
    if (updated->changed() == 0) {
        return explain_ply(take_back.game,
                           "no takeback to ply " + std::to_string(take_back.to_ply));
    }
    return execute(steps[1]);
}

Expected<void, StorageError> PostgresIntentWriter::write(const SetOffers& offers) {
    return update_row(steps(offers).front(), offers.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const RecordEvent& event) {
    return update_row(steps(event).front(), event.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const PostChat& chat) {
    const std::vector<Step> steps = this->steps(chat);
    if (auto recorded = update_row(steps[0], chat.game); !recorded) {
        return recorded;
    }
    return execute(steps[1]);
}

Expected<void, StorageError> PostgresIntentWriter::write(const EndGame& end) {
    const std::vector<Step> steps = this->steps(end);
    if (auto updated = update_row(steps[0], end.game); !updated) {
        return updated;
    }
    if (!end.ratings) {
        return {};
    }
    return write_ratings(end.game, *end.ratings, steps, 1);
}

Expected<void, StorageError> PostgresIntentWriter::write(const LinkRematch& link) {
    return update_row(steps(link).front(), link.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const StoreClocks& clocks) {
    return update_row(steps(clocks).front(), clocks.game);
}

Expected<void, StorageError> PostgresIntentWriter::write(const PruneAborted& prune) {
    return execute(steps(prune).front());
}

// --- helpers -------------------------------------------------------------------------------

Expected<pg::Result, StorageError> PostgresIntentWriter::run(const Step& step) {
    return connection_->run(step.statement.name, step.statement.params);
}

Expected<void, StorageError> PostgresIntentWriter::execute(const Step& step) {
    if (auto answered = run(step); !answered) {
        return unexpected(std::move(answered).error());
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::write_ratings(const std::string& game,
                                                                 const RatingsSettled& settled,
                                                                 const std::vector<Step>& steps,
                                                                 std::size_t first) {
    for (std::size_t i = first; i < steps.size(); ++i) {
        auto answered = run(steps[i]);
        if (!answered) {
            return unexpected(std::move(answered).error());
        }
        if (steps[i].answered(*answered)) {
            continue;
        }
        // add_rating_steps: each seat's upsert and history, then the game's changes.
        if (const std::size_t step = i - first; step < 2 * settled.seats.size() && step % 2 == 0) {
            // The row counts other games than the rating was computed from.
            const RatingUpdate& seat = settled.seats[step / 2];
            return unexpected(
                stale_rating(seat.user_id, rules::to_string(settled.variant), settled.speed));
        }
        // Ratings for a game that is not a rated game ending here: nothing of it may stand.
        return unexpected(StorageError{"game " + game + " is not a rated game that ended"});
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::explain_no_change(const AppendMove& append) {
    // A node that lost the game learns so even for a resend: it holds the game no more.
    if (auto owner = check_owner(append.game); !owner) {
        return owner;
    }
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
    if (auto owner = check_owner(game); !owner) {
        return owner;
    }
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

Expected<void, StorageError> PostgresIntentWriter::update_row(const Step& step,
                                                              const std::string& game) {
    auto updated = run(step);
    if (!updated) {
        return unexpected(std::move(updated).error());
    }
    if (updated->changed() == 0) {
        if (auto owner = check_owner(game); !owner) {
            return owner;
        }
        return unexpected(StorageError{"game " + game + " is not stored"});
    }
    return {};
}

Expected<void, StorageError> PostgresIntentWriter::check_owner(const std::string& game) {
    if (fence_ == nullptr) {
        return {};
    }
    auto owner = connection_->run("select_owner", pg::Params().text(game));
    if (!owner) {
        return unexpected(std::move(owner).error());
    }
    if (owner->rows() == 0) {
        return {};  // not stored: the caller says so
    }
    const auto epoch = static_cast<std::uint64_t>(owner->integer(0, 1));
    if (!owner->is_null(0, 0) && owner->text(0, 0) == fence_->node && epoch == fence_->epoch) {
        return {};
    }
    const std::string holder =
        owner->is_null(0, 0)
            ? "has no owner (handed over) at epoch " + std::to_string(epoch)
            : "belongs to node " + owner->text(0, 0) + " at epoch " + std::to_string(epoch);
    StorageError fenced{"game " + game + " " + holder + ", not to node " + fence_->node +
                        " at epoch " + std::to_string(fence_->epoch) +
                        ": the write was fenced, nothing changed"};
    fenced.fenced = true;
    return unexpected(std::move(fenced));
}

Expected<void, StorageError> PostgresIntentWriter::check_lease(const Step& lock,
                                                               const std::string& game) {
    auto live = run(lock);
    if (!live) {
        return unexpected(std::move(live).error());
    }
    if (live->rows() == 0) {
        StorageError fenced{"node " + fence_->node + " holds no live lease under incarnation " +
                            std::to_string(fence_->incarnation) + ": game " + game +
                            " was not created"};
        fenced.fenced = true;
        return unexpected(std::move(fenced));
    }
    return {};
}

}  // namespace arbiter::server::storage::detail
