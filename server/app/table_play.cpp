// The table: moves, clocks and endings (resign, abort, claims, flag falls).
#include <utility>

#include "server/app/seats.hpp"
#include "server/app/table.hpp"

namespace arbiter::server::app {

using protocol::EndReason;
using protocol::ErrorCode;
using protocol::GameStatus;
using rules::Side;

Table::Verdict Table::refuse(ErrorCode code, std::string message) {
    return unexpected(Refusal{code, std::move(message)});
}

Table::Verdict Table::on_move(const command::Move& move, Instant now) {
    const std::uint32_t plies = ply();
    // Who moved (or moves) at `move.ply`: a connection holding both seats acts for that side.
    const Side mover =
        move.ply < plies && (plies - move.ply) % 2 != 0 ? rules::opponent(turn()) : turn();
    const auto seat = move.held.acting_for(mover);
    if (!seat) {
        return refuse(ErrorCode::forbidden,
                      "you do not hold a seat in this game (resume with your token)");
    }
    if (status_ == GameStatus::waiting) {
        return refuse(ErrorCode::not_ready, "the game has not started: no opponent yet");
    }
    if (move.ply < plies) {
        // A re-send of a move already played is answered as the first time, never played
        // again: in wire notation, in the display notation the server gave it, or in any other
        // text the rules read as that move (played_at).
        if (mover == *seat && played_at(move.ply, move.text)) {
            Decision decision;
            decision.resend = move.ply + 1;
            return decision;
        }
        if (protocol::is_finished(status_)) {
            // Any other move in a finished game is refused as one at the current ply is: there
            // is nothing to catch up with and try again.
            return refuse(ErrorCode::game_over, "the game is over");
        }
        return refuse(ErrorCode::stale_ply, "ply " + std::to_string(move.ply) +
                                                " is already played; the game is at ply " +
                                                std::to_string(plies));
    }
    if (status_ != GameStatus::playing) {
        return refuse(ErrorCode::game_over, "the game is over");
    }
    if (move.ply > plies) {
        return refuse(ErrorCode::stale_ply, "the game is at ply " + std::to_string(plies) +
                                                ", not " + std::to_string(move.ply));
    }
    if (turn() != *seat) {
        return refuse(ErrorCode::not_your_turn, "it is the opponent's turn");
    }
    return play(*seat, move, now);
}

Table::Verdict Table::play(Side seat, const command::Move& move, Instant now) {
    GameClock::Charge charge;
    // protocol.md, Lag compensation: a timed move is charged its elapsed time less the lag
    // credited for it, which the mover's quota and measured round trip bound.
    const bool timed = clock_ && clock_->running();
    const std::optional<std::int64_t> round_trip_ms =
        move.round_trip ? std::optional<std::int64_t>(move.round_trip->count()) : std::nullopt;
    std::int64_t lag_ms = 0;
    if (timed) {
        lag_ms = lag_[seat_index(seat)].credit_for(
            {clock_->elapsed_ms(move.received), round_trip_ms, move.reported_think_ms});
    }
    if (clock_) {
        charge = clock_->charge(move.received, lag_ms);
        if (charge.flagged) {
            Decision decision = end_on_time(now);
            decision.refusal =
                Refusal{ErrorCode::game_over, "your time ran out before the move arrived"};
            return decision;
        }
    }
    // Played on the table's own game, not on a clone: a clone copies the whole history, O(plies)
    // per move. Nothing else is decided before apply() or discard(), and discard() replays the
    // game without it.
    auto played = game_->play(move.text);
    if (!played) {
        // Display notation (SAN, WXF, PDN) is accepted too: the rules resolve it to the wire
        // form, so thin clients need no notation code of their own. A text that is no legal
        // move in any notation is refused with the reason to_wire gives: it judges the text in
        // the notation it is written in (play() reads wire form only).
        if (auto wire = game_->to_wire(move.text); !wire) {
            played = unexpected(wire.error());
        } else if (*wire != move.text) {
            played = game_->play(*wire);
        }
    }
    if (!played) {
        // The rules' messages usually name the move already; do not say it twice.
        const std::string& why = played.error().message;
        return refuse(ErrorCode::illegal_move,
                      why.starts_with(move.text) ? why : move.text + ": " + why);
    }
    const rules::Status status = game_->status();
    const std::uint32_t plies = ply() + 1;
    Decision decision;
    decision.seq_ = seq_ + 1;
    decision.updated_ms_ = now.unix_ms;
    Clocks clocks = clocks_before(ply());
    if (clock_) {
        clocks[seat_index(seat)] = charge.remaining_ms;
    }
    PlyRecord record{played->notation, clocks, decision.seq_, lag_ms, game_->position()};
    // protocol.md, record: the mover's clock, think time and lag credited, null when untimed.
    storage::MoveRow row{plies,
                         std::move(played->wire),
                         std::move(played->notation),
                         record.position,
                         clock_ ? std::optional<std::int64_t>(charge.remaining_ms) : std::nullopt,
                         clock_ ? std::optional<std::int64_t>(charge.think_ms) : std::nullopt,
                         decision.seq_,
                         now.unix_ms,
                         game_->in_check(),
                         clock_ ? std::optional<std::int64_t>(lag_ms) : std::nullopt};
    decision.events.emplace_back(moved_event_after(*game_, plies, row.move, record, !status.over(),
                                                   reading(clocks, !status.over() && plies >= 2),
                                                   played->route));
    decision.answers_request = true;
    std::optional<storage::GameEnding> ending;
    if (status.over()) {
        ending = storage::GameEnding{GameStatus::ended, status.outcome,
                                     protocol::end_reason_of(status.reason)};
        decision.seq_ += 1;
        decision.events.emplace_back(protocol::Ended{id_, decision.seq_, ending->result,
                                                     ending->reason, ending->status, std::nullopt,
                                                     variant_});
    }
    decision.intent = storage::AppendMove{id_, std::move(row), clocks, decision.seq_, ending};
    decision.change_ = Decision::Played{std::move(record), ending, timed, seat, round_trip_ms};
    return decision;
}

bool Table::played_at(std::uint32_t ply, const std::string& text) const {
    const std::string& played = game_->moves()[ply];
    if (played == text || plies_[ply].notation == text) {
        return true;
    }
    // The client may have written the move neither way, but as the rules read it the first time:
    // display notation without its check or mate mark ("Qh5" for "Qh5+"), "0-0" for "O-O". Its
    // re-send is read again in the position it was played in, or it would be refused (stale_ply,
    // or game_over after a mate) as if the move had not counted.
    const auto before = position_after(ply);
    if (!before) {
        return false;
    }
    const auto wire = before->to_wire(text);
    return wire && *wire == played;
}

Table::Verdict Table::on_resign(const command::Resign& resign, Instant now) {
    const auto seat = resign.held.acting_for(turn());
    if (!seat) {
        return refuse(ErrorCode::forbidden, "you do not hold a seat in this game");
    }
    if (status_ == GameStatus::waiting) {
        return refuse(ErrorCode::not_ready,
                      "the game has not started: there is nothing to resign (abort cancels it)");
    }
    if (status_ != GameStatus::playing) {
        return refuse(ErrorCode::game_over, "the game is over");
    }
    if (auto flagged = flag_fell_before(resign.received, now)) {
        return std::move(*flagged);
    }
    return end_game(win_for(rules::opponent(*seat)), EndReason::resign, resign.received, now);
}

Table::Verdict Table::on_abort(const command::Abort& abort, Instant now) {
    if (!abort.held.any()) {
        return refuse(ErrorCode::forbidden, "you do not hold a seat in this game");
    }
    if (status_ != GameStatus::waiting && status_ != GameStatus::playing) {
        return refuse(ErrorCode::game_over, "the game is over");
    }
    // Until both sides have moved, either may abort; after that only resign or a draw ends it.
    if (status_ == GameStatus::playing && ply() >= 2) {
        return refuse(ErrorCode::not_allowed,
                      "both sides have moved: the game can no longer be aborted");
    }
    return end_game(rules::Outcome::ongoing, EndReason::aborted, abort.received, now,
                    GameStatus::aborted);
}

Table::Verdict Table::on_claim(const command::Claim& claim, Instant now) {
    const auto seat = claim.held.any();
    if (!seat) {
        return refuse(ErrorCode::forbidden, "you do not hold a seat in this game");
    }
    if (status_ == GameStatus::waiting) {
        return refuse(ErrorCode::not_ready, "the game has not started: no opponent yet");
    }
    if (status_ != GameStatus::playing) {
        return refuse(ErrorCode::game_over, "the game is not in play");
    }
    if (auto flagged = flag_fell_before(claim.received, now)) {
        return std::move(*flagged);
    }
    const auto left = claim_opens_in(rules::opponent(*seat), now.steady);
    if (!left) {
        return refuse(ErrorCode::not_allowed, "your opponent is connected");
    }
    if (left->count() > 0) {
        return refuse(ErrorCode::not_allowed,
                      "a claim opens " + std::to_string(left->count()) + " ms from now");
    }
    return end_game(claim.kind == protocol::ClaimKind::win ? win_for(*seat) : rules::Outcome::draw,
                    EndReason::abandoned, claim.received, now);
}

Table::Verdict Table::on_flag_fall(Instant now) {
    if (status_ != GameStatus::playing || !clock_ ||
        !clock_->charge(now.steady, flag_grace_ms()).flagged) {
        return Decision{};  // not yet (the room arms flag_falls_at() again), or over
    }
    return end_on_time(now);
}

std::optional<Decision> Table::flag_fell_before(TimePoint received, Instant now) const {
    if (!clock_ || status_ != GameStatus::playing ||
        !clock_->charge(received, flag_grace_ms()).flagged) {
        return std::nullopt;
    }
    // protocol.md, Clocks: the server flags a side itself when its time runs out. Its flag timer
    // runs a little after that moment; a resignation, an offer or an answer, or a claim that
    // arrived after it finds the game lost on time, as a move does, and does not overtake the
    // flag.
    Decision decision = end_on_time(now);
    decision.refusal =
        Refusal{ErrorCode::game_over, "the game is over: time ran out before this arrived"};
    return decision;
}

Decision Table::end_on_time(Instant now) const {
    // FIDE 6.9: a flag fall loses, unless the opponent cannot win by any series of legal moves.
    const Side opponent = rules::opponent(turn());
    Decision decision =
        end_game(game_->can_win(opponent) ? win_for(opponent) : rules::Outcome::draw,
                 EndReason::timeout, now.steady, now);
    decision.answers_request = false;  // nobody asked for it
    return decision;
}

Decision Table::end_game(rules::Outcome outcome, EndReason reason, TimePoint stopped, Instant now,
                         GameStatus status) const {
    Decision decision;
    decision.seq_ = seq_ + 1;
    decision.updated_ms_ = now.unix_ms;
    // A player's request stops the clocks when it arrived, as a move is charged up to then (a
    // request that waited behind a commit is not charged the wait).
    const Clocks clocks = clocks_at(stopped);
    const storage::GameEnding ending{
        status, status == GameStatus::aborted ? rules::Outcome::ongoing : outcome, reason};
    decision.intent = storage::EndGame{id_, ending, clocks, decision.seq_, now.unix_ms};
    decision.events.emplace_back(protocol::Ended{id_, decision.seq_, ending.result, ending.reason,
                                                 ending.status, std::nullopt, variant_});
    decision.answers_request = true;
    decision.change_ = Decision::Ended{ending, clocks};
    return decision;
}

protocol::Moved Table::moved_event_after(const rules::Game& after, std::uint32_t ply,
                                         const std::string& wire, const PlyRecord& record,
                                         bool playing, std::optional<protocol::ClockState> clock,
                                         rules::MoveRoute route) const {
    return protocol::Moved{id_,
                           record.seq,
                           variant_,
                           ply,
                           wire,
                           record.notation,
                           record.position,
                           after.turn(),
                           playing ? after.legal_moves() : std::vector<std::string>{},
                           after.in_check(),
                           clock,
                           std::move(route),
                           playing ? after.legal_routes() : std::vector<rules::MoveRoute>{}};
}

std::optional<protocol::Moved> Table::moved_event(std::uint32_t ply) const {
    if (ply == 0 || ply > this->ply()) {
        return std::nullopt;
    }
    // The last move's position is the table's game; an earlier one's is made from the position
    // its record keeps: O(1) in the game's length, where replaying the game up to it was O(ply)
    // (a millisecond at 1,800 plies, for every re-send). Nothing that the record's position
    // leaves out changes the event: a move was played after it, so the game was on (playing),
    // and the side to move, its legal moves and check are the position's alone.
    const bool last = ply == this->ply();
    const auto earlier = last ? nullptr : position_after(ply);
    if (!last && !earlier) {
        return std::nullopt;
    }
    const rules::Game& after = last ? *game_ : *earlier;
    // The game was playing after this move unless the move ended it (a resignation or a flag
    // since then came in an event of its own). Clocks run from each side's first move on.
    const bool playing = !last || !game_->status().over();
    const PlyRecord& record = plies_[ply - 1];
    const std::string& wire = game_->moves()[ply - 1];
    // A draughts move's route is read from the position before it (two positions, still O(1)).
    rules::MoveRoute route;
    if (variant_ == rules::Variant::draughts) {
        if (const auto before = position_after(ply - 1)) {
            if (auto played = before->play(wire)) {
                route = std::move(played->route);
            }
        }
    }
    return moved_event_after(after, ply, wire, record, playing,
                             reading(record.clocks, playing && ply >= 2), std::move(route));
}

std::unique_ptr<rules::Game> Table::position_after(std::uint32_t plies) const {
    auto game =
        rules::make_game(variant_, plies == 0 ? initial_position_ : plies_[plies - 1].position);
    return game ? std::move(game).value() : nullptr;
}

}  // namespace arbiter::server::app
