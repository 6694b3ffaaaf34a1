// The table: creation and restart, seats and presence, the abandon of a waiting game, claims
// windows, and engine seats.
#include <algorithm>
#include <utility>

#include "common/core/assert.hpp"
#include "server/app/claim_window.hpp"
#include "server/app/rated_rules.hpp"
#include "server/app/seats.hpp"
#include "server/app/speed.hpp"
#include "server/app/table.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using protocol::GameStatus;
using rules::Side;

Table::Verdict Table::on_create() {
    Decision decision;
    decision.intent = storage::CreateGame{row()};
    decision.change_ = Decision::TurnStarts{};
    return decision;
}

Table::Verdict Table::on_start(Instant now) {
    Decision decision;
    decision.change_ = Decision::TurnStarts{};
    // An engine answers an offer as soon as it is made; one stored just before a stop (or a
    // crash) was never answered, so it answers now.
    for (const auto& offer : offers_) {
        if (auto reply = engine_reply(offer.kind, offer.by, now.steady)) {
            decision.then.push_back(std::move(*reply));
        }
    }
    return decision;
}

Table::Verdict Table::on_join(const command::Join& join, Instant now) {
    if (status_ != GameStatus::waiting) {
        return unexpected(
            Refusal{status_ == GameStatus::playing ? ErrorCode::seat_taken : ErrorCode::game_over,
                    "this game is not open to join"});
    }
    if (join.held.any()) {
        return unexpected(Refusal{ErrorCode::forbidden, "you already hold a seat in this game"});
    }
    const Side side = seats_[0].name.empty() ? Side::first : Side::second;
    std::optional<protocol::PlayerRating> rating;
    if (rated_) {
        const auto speed = rated_speed(control_);
        ARBITER_ASSERT(speed.has_value());  // a rated game is timed (rated_create_refusal)
        const RatedSeek seek{*speed, seats_[seat_index(rules::opponent(side))].user_id,
                             rating_range_};
        rating = join.rating.value_or(protocol::PlayerRating{});
        if (auto refusal = rated_join_refusal(seek, join.user_id, rating->rating)) {
            return unexpected(Refusal{ErrorCode::forbidden, std::move(*refusal)});
        }
    }
    Decision decision;
    decision.seq_ = seq_ + 1;
    decision.updated_ms_ = now.unix_ms;
    decision.intent = storage::SeatPlayer{id_,
                                          side,
                                          {join.name, join.token_hash, "", 0, join.user_id, rating},
                                          decision.seq_,
                                          now.unix_ms};
    decision.change_ = Decision::Seated{side, join.name, join.token_hash, join.user_id, rating};
    // A creator who left while the game waited is away from a game in play now: the claim
    // window opens a full timeout from the join, and the joiner hears so, as after any
    // disconnect (not from the creator's leave, which would let a joiner claim a win the moment
    // it sat down).
    const Side creator = rules::opponent(side);
    if (!seat_connected(creator)) {
        decision.then.push_back(command::Presence{creator, false});
    }
    return decision;
}

Table::Verdict Table::on_presence(const command::Presence& presence, Instant now) {
    Decision decision;
    if (seat_connected(presence.side) != presence.connected) {
        return decision;  // changed again since this was queued: a later command tells that
    }
    // The away time holds whatever becomes of the write: the player is gone either way.
    auto& away = seats_[seat_index(presence.side)].away_since;
    away = presence.connected ? std::nullopt : std::optional<TimePoint>(now.steady);
    if (status_ != GameStatus::playing && status_ != GameStatus::waiting) {
        return decision;
    }
    decision.seq_ = seq_ + 1;
    decision.intent = storage::RecordEvent{id_, clocks_at(now.steady), decision.seq_};
    protocol::Presence event{id_,           decision.seq_,      variant_,
                             presence.side, presence.connected, std::nullopt};
    if (!presence.connected && status_ == GameStatus::playing) {
        event.claim_after_ms = claim_window(control_, config_.disconnect_timeout).count();
    }
    decision.events.emplace_back(std::move(event));
    decision.change_ = Decision::EventOnly{};
    return decision;
}

Table::Verdict Table::on_abandon_check(Instant now) {
    if (const auto due = first_move_due_at(); due && now.steady >= *due) {
        // Nobody played: the game never began, as Lichess aborts a game whose first moves do
        // not come (a lobby would otherwise list it as being played for good).
        return end_game(rules::Outcome::ongoing, protocol::EndReason::abandoned, now.steady, now,
                        GameStatus::aborted);
    }
    if (status_ != GameStatus::waiting) {
        return Decision{};  // joined (or aborted) meanwhile, or moved in time
    }
    for (const Side side : {Side::first, Side::second}) {
        const auto& seat = seats_[seat_index(side)];
        if (!seat.taken() || seat_connected(side) || !seat.away_since) {
            continue;  // an open seat, or its holder is here
        }
        if (now.steady - *seat.away_since < config_.disconnect_timeout) {
            return Decision{};  // back and gone again since: a later deadline decides
        }
        return end_game(rules::Outcome::ongoing, protocol::EndReason::abandoned, now.steady, now,
                        GameStatus::aborted);
    }
    return Decision{};
}

Table::Verdict Table::on_engine_move(const command::EngineMove& move, Instant now) {
    if (status_ != GameStatus::playing || move.ply != ply() || !engine_plays(turn())) {
        return Decision{};  // a late answer: the game moved on (takeback, timeout, end)
    }
    // The engine's move is checked as anyone's.
    return on_move(command::Move{HeldSeats::only(turn()), move.move, move.ply, now.steady}, now);
}

Table::Verdict Table::on_engine_failure(const command::EngineFailure& failure, Instant now) {
    if (status_ != GameStatus::playing || failure.ply != ply() || !engine_plays(turn())) {
        return Decision{};  // not about a move the engine still owes
    }
    if (engine_failure_ply_ != ply()) {
        engine_failure_ply_ = ply();
        engine_failures_ = 0;
    }
    ++engine_failures_;
    const Side side = turn();
    Decision decision;
    if (engine_failures_ >= 2) {
        // Failed twice on one move: the game ends instead of waiting for an engine that cannot
        // move. A loss for the engine, or an abort if it never moved (protocol.md, "Failures").
        decision = ply() >= 2
                       ? end_game(win_for(rules::opponent(side)),
                                  protocol::EndReason::engine_failure, now.steady, now)
                       : end_game(rules::Outcome::ongoing, protocol::EndReason::engine_failure,
                                  now.steady, now, GameStatus::aborted);
    }
    decision.engine_trouble = EngineTrouble{side, engine_failures_, failure.why};
    return decision;
}

std::optional<TableCommand> Table::engine_reply(protocol::OfferKind kind, Side offered_by,
                                                TimePoint now) const {
    const Side engine = rules::opponent(offered_by);
    if (!engine_plays(engine)) {
        return std::nullopt;
    }
    // protocol.md, "Playing the computer": draws and takebacks are declined, a rematch accepted.
    const auto answer = kind == protocol::OfferKind::rematch ? protocol::OfferAction::accept
                                                             : protocol::OfferAction::decline;
    return command::Offer{HeldSeats::only(engine), kind, answer, now, std::nullopt, {}};
}

void Table::set_seat_connected(Side side, bool connected) noexcept {
    seats_[seat_index(side)].connected = connected;
}

const TableSeat& Table::seat(Side side) const noexcept {
    return seats_[seat_index(side)];
}

bool Table::engine_plays(Side side) const noexcept {
    return config_.engines && !seats_[seat_index(side)].engine.empty();
}

bool Table::seat_connected(Side side) const noexcept {
    return seats_[seat_index(side)].connected || engine_plays(side);
}

std::optional<EngineTurn> Table::engine_turn() const {
    if (status_ != GameStatus::playing || !engine_plays(turn())) {
        return std::nullopt;
    }
    return EngineTurn{turn(), ply()};
}

std::optional<Table::TimePoint> Table::first_move_due_at() const {
    if (status_ != GameStatus::playing || ply() >= 2 || !turn_since_ || engine_plays(Side::first) ||
        engine_plays(Side::second)) {
        return std::nullopt;  // an engine's opponent may take its time, as a person alone
    }
    return *turn_since_ + first_move_time(control_);
}

std::optional<Table::TimePoint> Table::abandon_at() const {
    if (status_ == GameStatus::playing) {
        return first_move_due_at();
    }
    if (status_ != GameStatus::waiting) {
        return std::nullopt;
    }
    for (const Side side : {Side::first, Side::second}) {
        const auto& seat = seats_[seat_index(side)];
        if (seat.taken() && !seat_connected(side) && seat.away_since) {
            return *seat.away_since + config_.disconnect_timeout;
        }
    }
    return std::nullopt;
}

std::optional<std::chrono::milliseconds> Table::claim_opens_in(Side side, TimePoint now) const {
    const auto& away = seats_[seat_index(side)].away_since;
    if (!away || seat_connected(side)) {
        return std::nullopt;
    }
    // Rounded up: a part of a millisecond left is not yet open.
    const auto waited = now - *away;
    const auto window = claim_window(control_, config_.disconnect_timeout);
    return std::chrono::ceil<std::chrono::milliseconds>(
        std::max(window - waited, decltype(waited)::zero()));
}

}  // namespace arbiter::server::app
