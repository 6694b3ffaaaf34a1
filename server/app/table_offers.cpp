// The table: offers of a draw, a takeback and a rematch, and what accepting each does.
#include <algorithm>
#include <utility>

#include "server/app/seats.hpp"
#include "server/app/table.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using protocol::GameStatus;
using protocol::OfferAction;
using protocol::OfferKind;
using rules::Side;

Table::Verdict Table::on_offer(const command::Offer& offer, Instant now) {
    // A connection holding both seats offers for the side to move, and answers for the seat an
    // open offer of that kind was made to.
    Side acting = turn();
    if (offer.action != OfferAction::offer) {
        for (const auto& open : offers_) {
            if (open.kind == offer.kind) {
                acting = rules::opponent(open.by);
            }
        }
    }
    const auto seat = offer.held.acting_for(acting);
    if (!seat) {
        return refuse(ErrorCode::forbidden, "you do not hold a seat in this game");
    }
    const bool over = protocol::is_finished(status_);
    const bool rematch = offer.kind == OfferKind::rematch;
    if (rematch ? !over : status_ != GameStatus::playing) {
        ErrorCode code = ErrorCode::not_allowed;
        if (!rematch) {
            code = over ? ErrorCode::game_over : ErrorCode::not_ready;
        }
        return refuse(code, rematch ? "a rematch is offered once the game is over"
                            : over  ? "the game is over"
                                    : "the game has not started: no opponent yet");
    }
    if (auto flagged = flag_fell_before(offer.received, now)) {
        return std::move(*flagged);
    }
    if (rematch && rematch_next_) {
        return refuse(ErrorCode::not_allowed, "the rematch has already started");
    }
    const Side opponent = rules::opponent(*seat);
    const auto open_by = [&](Side by) {
        return std::find_if(offers_.begin(), offers_.end(), [&](const protocol::OpenOffer& open) {
            return open.kind == offer.kind && open.by == by;
        });
    };
    const auto theirs = open_by(opponent);
    if (offer.action == OfferAction::offer && theirs != offers_.end()) {
        // Offering what the opponent already offers is accepting it.
        command::Offer accept = offer;
        accept.action = OfferAction::accept;
        return on_offer(accept, now);
    }
    if (offer.action == OfferAction::offer) {
        if (open_by(*seat) != offers_.end()) {
            return refuse(ErrorCode::not_allowed, "you already made that offer");
        }
        if (rematch && !seats_[seat_index(opponent)].taken()) {
            // A game aborted while it waited: an offer nobody can ever answer would stay open.
            return refuse(ErrorCode::not_allowed,
                          "nobody took the other seat: there is no one to offer a rematch to");
        }
        if (rematch && !seats_[seat_index(opponent)].engine.empty() && offer.open_game_refusal) {
            // An engine accepts at once, and its rematch is an open game of this connection, as
            // one it created: end, create, rematch ... would pile them up past --max-open-games.
            return refuse(ErrorCode::not_allowed, *offer.open_game_refusal);
        }
        if (offer.kind == OfferKind::takeback && ply() == 0) {
            return refuse(ErrorCode::not_allowed, "there is no move to take back");
        }
        if (offer.kind == OfferKind::takeback && ply() == 1 && turn() == *seat) {
            return refuse(ErrorCode::not_allowed, "you have no move to take back");
        }
    } else if (theirs == offers_.end()) {
        return refuse(ErrorCode::no_offer, "your opponent has no pending " +
                                               std::string(protocol::to_string(offer.kind)) +
                                               " offer");
    }
    if (offer.action == OfferAction::accept) {
        switch (offer.kind) {
            case OfferKind::draw:
                return end_game(rules::Outcome::draw, protocol::EndReason::agreement,
                                offer.received, now);
            case OfferKind::takeback:
                return accept_takeback(opponent, now);
            case OfferKind::rematch:
                return accept_rematch(*seat, offer);
        }
    }
    std::vector<protocol::OpenOffer> offers = offers_;
    if (offer.action == OfferAction::offer) {
        offers.push_back({offer.kind, *seat});
    } else {
        offers.erase(offers.begin() + (theirs - offers_.begin()));  // declined
    }
    Decision decision;
    decision.seq_ = seq_ + 1;
    decision.events.emplace_back(
        protocol::OfferEvent{id_, decision.seq_, variant_, offer.kind, offer.action, *seat});
    decision.answers_request = true;
    decision.intent = storage::SetOffers{id_, offers, clocks_at(now.steady), decision.seq_};
    decision.change_ = Decision::OffersChanged{std::move(offers)};
    if (offer.action == OfferAction::offer) {
        if (auto reply = engine_reply(offer.kind, *seat, now.steady)) {
            decision.then.push_back(std::move(*reply));
        }
    }
    return decision;
}

Table::Verdict Table::accept_takeback(Side offered_by, Instant now) {
    // Take back the offerer's last move: one ply if it is the accepter's turn, two when the
    // accepter has replied since (both moves go).
    const std::uint32_t plies = turn() == offered_by ? 2 : 1;
    if (plies > ply()) {
        return refuse(ErrorCode::not_allowed, "there is no move to take back");
    }
    const std::uint32_t target = ply() - plies;
    auto game = replayed(target);
    if (!game) {
        return refuse(ErrorCode::internal, "the moves no longer replay");
    }
    Decision decision;
    decision.seq_ = seq_ + 1;
    decision.updated_ms_ = now.unix_ms;
    // The position and both clocks become exactly what they were at that ply.
    const Clocks clocks = clocks_before(target);
    decision.intent = storage::TakeBack{id_, target, clocks, decision.seq_, now.unix_ms};
    decision.events.emplace_back(protocol::TakenBack{
        id_, decision.seq_, variant_, target, game->position(), game->turn(), game->legal_moves(),
        game->in_check(), reading(clocks, target >= 2), game->legal_routes()});
    decision.answers_request = true;
    decision.change_ = Decision::TakenBack{target, std::move(game)};
    return decision;
}

Table::Verdict Table::accept_rematch(Side accepter, const command::Offer& offer) {
    if (!seat_connected(rules::opponent(accepter))) {
        // The new game's seats and tokens go to the players' connections in this game: an
        // offerer who has left it (closed, or moved on to another game) would get a seat it
        // could never reach, and the new game would wait for it for ever.
        return refuse(ErrorCode::not_allowed,
                      "your opponent has left this game; a rematch needs both players here");
    }
    // The old game names the new one first: if that write fails nothing was created, and the
    // players hear `rematch` here before `joined` there.
    Decision decision;
    decision.seq_ = seq_ + 1;
    decision.intent = storage::LinkRematch{id_, offer.next_game, decision.seq_};
    decision.events.emplace_back(protocol::RematchEvent{id_, decision.seq_, offer.next_game});
    decision.answers_request = true;
    decision.change_ = Decision::Rematched{offer.next_game};
    return decision;
}

}  // namespace arbiter::server::app
