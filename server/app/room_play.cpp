// GameRoom: moves, endings, offers, claims and clocks.
#include <algorithm>

#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/room.hpp"
#include "server/app/seats.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using protocol::OfferAction;
using protocol::OfferKind;
using rules::Side;

void GameRoom::on_move(RoomRequest& request, const protocol::MoveRequest& move) {
    // Who moved (or moves) at `move.ply`: a connection holding both seats acts for that side.
    const Side mover = move.ply < header_.ply && (header_.ply - move.ply) % 2 != 0
                           ? rules::opponent(game_->turn())
                           : game_->turn();
    const auto seat = seat_of(*request.peer, mover);
    if (!seat) {
        reply_error(request, ErrorCode::forbidden,
                    "you do not hold a seat in this game (resume with your token)");
        return;
    }
    if (header_.status == "waiting") {
        reply_error(request, ErrorCode::not_ready, "the game has not started: no opponent yet");
        return;
    }
    if (move.ply < header_.ply) {
        // A resend of a move already applied is answered like the first time, never re-applied.
        // The move as sent the first time: in wire notation, in the display notation the server
        // gave it, or in any other text the rules read as that move (played_at).
        if (mover == *seat && played_at(move.ply, move.move)) {
            if (auto again = moved_again(move.ply + 1, request.id)) {
                request.peer->send(std::move(again));
                return;
            }
        }
        if (is_finished(header_.status)) {
            // Any other move in a finished game is refused as one at the current ply is: there
            // is nothing to catch up with and try again.
            reply_error(request, ErrorCode::game_over, "the game is over");
            return;
        }
        reply_error(request, ErrorCode::stale_ply,
                    "ply " + std::to_string(move.ply) + " is already played; the game is at ply " +
                        std::to_string(header_.ply));
        return;
    }
    if (header_.status != "playing") {
        reply_error(request, ErrorCode::game_over, "the game is over");
        return;
    }
    if (move.ply > header_.ply) {
        reply_error(request, ErrorCode::stale_ply,
                    "the game is at ply " + std::to_string(header_.ply) + ", not " +
                        std::to_string(move.ply));
        return;
    }
    if (game_->turn() != *seat) {
        reply_error(request, ErrorCode::not_your_turn, "it is the opponent's turn");
        return;
    }
    GameClock::Charge charge;
    if (clock_) {
        charge = clock_->charge(request.received);
        if (charge.flagged) {
            reply_error(request, ErrorCode::game_over, "your time ran out before the move arrived");
            end_on_time();
            return;
        }
    }
    // The move is played on the room's game itself, not on a clone: a clone copies the whole
    // history, O(plies) per move (issue 9 profile: clone and ~Game were 8% of the server's time
    // at 50 games). Nothing reads game_ before the commit (busy_ queues every other request and
    // timer); if the commit fails, the game is replayed without the move.
    auto played = game_->play(move.move);
    if (!played) {
        // Display notation (SAN, WXF, PDN) is accepted too: the rules resolve it to the wire
        // form, so thin clients need no notation code of their own.
        if (auto wire = game_->to_wire(move.move); wire && *wire != move.move) {
            played = game_->play(*wire);
        }
    }
    if (!played) {
        // The rules' messages usually name the move already; do not say it twice.
        const std::string& why = played.error().message;
        reply_error(request, ErrorCode::illegal_move,
                    why.starts_with(move.move) ? why : move.move + ": " + why);
        return;
    }
    const auto status = game_->status();
    storage::GameRow header = header_;
    header.ply += 1;
    header.seq += 1;
    header.updated_ms = context_.time.unix_ms();
    Clocks clocks = clock_history_.back();
    if (clock_) {
        clocks[seat_index(*seat)] = charge.remaining_ms;
    }
    header.clock_ms = clocks;
    header.offers.clear();  // open draw and takeback offers lapse with a move (protocol.md)
    // protocol.md, record: the mover's clock and think time, both null when untimed.
    storage::MoveRow row{header.ply,
                         played->wire,
                         played->notation,
                         game_->position(),
                         clock_ ? std::optional<std::int64_t>(charge.remaining_ms) : std::nullopt,
                         clock_ ? std::optional<std::int64_t>(charge.think_ms) : std::nullopt,
                         header.seq,
                         header.updated_ms,
                         game_->in_check()};
    const std::uint64_t moved_seq = header.seq;
    if (status.over()) {
        finish(header, status.outcome, rules::to_string(status.reason));
    }
    const std::uint32_t plies_before = header_.ply;
    // The write takes the row and a copy of the header (~20 strings); the step after the commit
    // takes the header itself and what the `moved` needs, not the whole request.
    std::string position = row.position;
    storage::GameWrite write{header, std::nullopt, std::move(row)};
    persist_then(
        std::move(write), request,
        [this, peer = request.peer, id = request.id, header = std::move(header), clocks,
         notation = std::move(played->notation), position = std::move(position), moved_seq,
         status]() mutable {
            header_ = std::move(header);
            clock_history_.push_back(clocks);
            notation_.push_back(std::move(notation));
            move_seq_.push_back(moved_seq);
            if (clock_) {
                clock_->set(clocks);
                clock_->stop();
            }
            if (!status.over()) {
                start_turn();
            }
            context_.metrics.move_accepted();
            emit(moved_event(*game_, std::move(position), moved_seq, !status.over(),
                             clock_reading()),
                 peer, id);
            if (status.over()) {
                // Counted and listed before anyone hears of it (a client may scrape at once).
                note_ended();
                after_change();
                emit(protocol::Ended{id_, header_.seq, result_of(header_), reason_of(header_),
                                     status_of(header_)});
            } else {
                arm_flag_timer();
            }
        },
        [this, plies_before] {
            // The commit failed: the move was never accepted, so the game goes back without it.
            if (auto game = replayed(plies_before)) {
                game_ = std::move(game);
            }
        });
}

bool GameRoom::played_at(std::uint32_t ply, const std::string& text) const {
    const std::string& played = game_->moves()[ply];
    if (played == text || notation_[ply] == text) {
        return true;
    }
    // The client may have written the move neither way, but as the rules read it the first time:
    // display notation without its check or mate mark ("Qh5" for "Qh5+"), "0-0" for "O-O". Its
    // re-send is read again in the position it was played in, or it would be refused (stale_ply,
    // or game_over after a mate) as if the move had not counted. Replaying costs O(ply), paid
    // only by a move at a past ply, which is rate-limited as any request.
    const auto before = replayed(ply);
    if (!before) {
        return false;
    }
    const auto wire = before->to_wire(text);
    return wire && *wire == played;
}

bool GameRoom::flag_fell_before(const RoomRequest& request) {
    if (!clock_ || header_.status != "playing" || !clock_->charge(request.received).flagged) {
        return false;
    }
    // protocol.md, Clocks: the server flags a side itself when its time runs out. Its flag timer
    // runs a little after that moment; a resignation, an offer or an answer, or a claim that
    // arrived after it finds the game lost on time, as a move does (on_move), and does not
    // overtake the flag.
    reply_error(request, ErrorCode::game_over,
                "the game is over: time ran out before this arrived");
    end_on_time();
    return true;
}

void GameRoom::end_on_time() {
    // FIDE 6.9: a flag fall loses, unless the opponent cannot win by any series of legal moves.
    const Side opponent = rules::opponent(game_->turn());
    end_game(std::nullopt, game_->can_win(opponent) ? win_for(opponent) : rules::Outcome::draw,
             "timeout");
}

void GameRoom::on_resign(RoomRequest& request) {
    const auto seat = seat_of(*request.peer, game_->turn());
    if (!seat) {
        reply_error(request, ErrorCode::forbidden, "you do not hold a seat in this game");
        return;
    }
    if (header_.status == "waiting") {
        reply_error(request, ErrorCode::not_ready,
                    "the game has not started: there is nothing to resign (abort cancels it)");
        return;
    }
    if (header_.status != "playing") {
        reply_error(request, ErrorCode::game_over, "the game is over");
        return;
    }
    if (flag_fell_before(request)) {
        return;
    }
    end_game(request, win_for(rules::opponent(*seat)), "resign");
}

void GameRoom::on_abort(RoomRequest& request) {
    if (!seat_of(*request.peer)) {
        reply_error(request, ErrorCode::forbidden, "you do not hold a seat in this game");
        return;
    }
    if (header_.status != "waiting" && header_.status != "playing") {
        reply_error(request, ErrorCode::game_over, "the game is over");
        return;
    }
    // Until both sides have moved, either may abort; after that only resign or a draw ends it.
    if (header_.status == "playing" && header_.ply >= 2) {
        reply_error(request, ErrorCode::not_allowed,
                    "both sides have moved: the game can no longer be aborted");
        return;
    }
    end_game(request, rules::Outcome::ongoing, "aborted", "aborted");
}

void GameRoom::on_claim(RoomRequest& request, const protocol::Claim& claim) {
    const auto seat = seat_of(*request.peer);
    if (!seat) {
        reply_error(request, ErrorCode::forbidden, "you do not hold a seat in this game");
        return;
    }
    if (header_.status == "waiting") {
        reply_error(request, ErrorCode::not_ready, "the game has not started: no opponent yet");
        return;
    }
    if (header_.status != "playing") {
        reply_error(request, ErrorCode::game_over, "the game is not in play");
        return;
    }
    if (flag_fell_before(request)) {
        return;
    }
    const auto left = claim_opens_in(rules::opponent(*seat));
    if (!left) {
        reply_error(request, ErrorCode::not_allowed, "your opponent is connected");
        return;
    }
    if (left->count() > 0) {
        reply_error(request, ErrorCode::not_allowed,
                    "a claim opens " + std::to_string(left->count()) + " ms from now");
        return;
    }
    end_game(request,
             claim.kind == protocol::ClaimKind::win ? win_for(*seat) : rules::Outcome::draw,
             "abandoned");
}

std::vector<GameRoom::Offer> GameRoom::open_offers() const {
    std::vector<Offer> offers;
    std::string_view rest = header_.offers;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        const std::size_t colon = item.find(':');
        const std::string_view kind = item.substr(0, colon);
        const std::string_view seat =
            colon == std::string_view::npos ? std::string_view() : item.substr(colon + 1);
        for (const OfferKind known : {OfferKind::draw, OfferKind::takeback, OfferKind::rematch}) {
            // Anything else (a row edited by hand) is no offer: nobody can accept it.
            if (kind == protocol::to_string(known) && (seat == "first" || seat == "second")) {
                offers.push_back({known, seat == "first" ? Side::first : Side::second});
            }
        }
    }
    return offers;
}

std::string GameRoom::stored_offers(const std::vector<Offer>& offers) {
    std::string stored;
    for (const Offer& offer : offers) {
        stored += stored.empty() ? "" : ",";
        stored += protocol::to_string(offer.kind);
        stored += offer.by == Side::first ? ":first" : ":second";
    }
    return stored;
}

void GameRoom::on_offer(RoomRequest& request, const protocol::OfferRequest& offer) {
    // A connection holding both seats offers for the side to move, and answers for the seat an
    // open offer of that kind was made to.
    Side acting = game_->turn();
    if (offer.action != OfferAction::offer) {
        for (const Offer& open : open_offers()) {
            if (open.kind == offer.kind) {
                acting = rules::opponent(open.by);
            }
        }
    }
    const auto seat = seat_of(*request.peer, acting);
    if (!seat) {
        reply_error(request, ErrorCode::forbidden, "you do not hold a seat in this game");
        return;
    }
    const bool over = is_finished(header_.status);
    if (offer.kind == OfferKind::rematch ? !over : header_.status != "playing") {
        ErrorCode code = ErrorCode::not_allowed;
        if (offer.kind != OfferKind::rematch) {
            code = over ? ErrorCode::game_over : ErrorCode::not_ready;
        }
        reply_error(request, code,
                    offer.kind == OfferKind::rematch ? "a rematch is offered once the game is over"
                    : over                           ? "the game is over"
                                                     : "the game has not started: no opponent yet");
        return;
    }
    if (flag_fell_before(request)) {
        return;
    }
    if (offer.kind == OfferKind::rematch && header_.rematch_next) {
        reply_error(request, ErrorCode::not_allowed, "the rematch has already started");
        return;
    }
    const Side opponent = rules::opponent(*seat);
    std::vector<Offer> offers = open_offers();
    const auto pending = [&](Side by) {
        return std::find_if(offers.begin(), offers.end(),
                            [&](const Offer& o) { return o.kind == offer.kind && o.by == by; });
    };
    auto theirs = pending(opponent);
    if (offer.action == OfferAction::offer && theirs != offers.end()) {
        // Offering what the opponent already offers is accepting it.
        protocol::OfferRequest accept = offer;
        accept.action = OfferAction::accept;
        on_offer(request, accept);
        return;
    }
    if (offer.action == OfferAction::offer) {
        if (pending(*seat) != offers.end()) {
            reply_error(request, ErrorCode::not_allowed, "you already made that offer");
            return;
        }
        if (offer.kind == OfferKind::rematch &&
            header_.seats[seat_index(opponent)].token_hash.empty()) {
            // A game aborted while it waited: an offer nobody can ever answer would stay open.
            reply_error(request, ErrorCode::not_allowed,
                        "nobody took the other seat: there is no one to offer a rematch to");
            return;
        }
        if (offer.kind == OfferKind::rematch &&
            !header_.seats[seat_index(opponent)].engine.empty()) {
            // An engine accepts at once, and its rematch is an open game of this connection, as
            // one it created: end, create, rematch ... would pile them up past --max-open-games.
            if (auto refusal = context_.host.open_game_refusal(request.peer)) {
                reply_error(request, ErrorCode::not_allowed, *refusal);
                return;
            }
        }
        if (offer.kind == OfferKind::takeback && header_.ply == 0) {
            reply_error(request, ErrorCode::not_allowed, "there is no move to take back");
            return;
        }
        if (offer.kind == OfferKind::takeback && header_.ply == 1 && game_->turn() == *seat) {
            reply_error(request, ErrorCode::not_allowed, "you have no move to take back");
            return;
        }
    } else if (theirs == offers.end()) {
        reply_error(request, ErrorCode::no_offer,
                    "your opponent has no pending " + std::string(protocol::to_string(offer.kind)) +
                        " offer");
        return;
    }
    if (offer.action == OfferAction::accept) {
        switch (offer.kind) {
            case OfferKind::draw:
                end_game(request, rules::Outcome::draw, "agreement");
                return;
            case OfferKind::takeback:
                accept_takeback(request, opponent);
                return;
            case OfferKind::rematch:
                accept_rematch(request);
                return;
        }
    }
    if (offer.action == OfferAction::offer) {
        offers.push_back({offer.kind, *seat});
    } else {
        offers.erase(theirs);  // declined
    }
    storage::GameRow header = header_;
    header.seq += 1;
    header.offers = stored_offers(offers);
    stamp_clocks(header);
    const protocol::OfferEvent event{id_,        header.seq,   header.variant,
                                     offer.kind, offer.action, *seat};
    persist_then(storage::GameWrite{header, std::nullopt, std::nullopt}, request,
                 [this, header, event, request] {
                     header_ = header;
                     emit(event, request.peer, request.id);
                     engine_reply_to(event);
                 });
}

void GameRoom::accept_takeback(RoomRequest& request, Side offered_by) {
    // Take back the offerer's last move: one ply if it is the accepter's turn, two when the
    // accepter has replied since (both moves go).
    const std::uint32_t plies = game_->turn() == offered_by ? 2 : 1;
    if (plies > header_.ply) {
        reply_error(request, ErrorCode::not_allowed, "there is no move to take back");
        return;
    }
    const std::uint32_t target = header_.ply - plies;
    std::shared_ptr<rules::Game> game = replayed(target);
    if (!game) {
        reply_error(request, ErrorCode::internal, "the moves no longer replay");
        return;
    }
    storage::GameRow header = header_;
    header.ply = target;
    header.seq += 1;
    header.offers.clear();  // and with an accepted takeback
    header.clock_ms = clock_history_[target];
    header.updated_ms = context_.time.unix_ms();
    persist_then(storage::GameWrite{header, target + 1, std::nullopt}, request,
                 [this, header, game, target, request] {
                     header_ = header;
                     game_ = game;
                     clock_history_.resize(target + 1);
                     notation_.resize(target);
                     move_seq_.resize(target);
                     if (clock_) {
                         clock_->set(clock_history_.back());
                     }
                     start_turn();
                     emit(protocol::TakenBack{id_, header_.seq, header_.variant, header_.ply,
                                              game_->position(), game_->turn(), legal_now(),
                                              game_->in_check(), clock_reading()},
                          request.peer, request.id);
                     arm_flag_timer();
                 });
}

void GameRoom::accept_rematch(RoomRequest& request) {
    const auto accepter = seat_of(*request.peer);
    if (accepter && !seat_connected(rules::opponent(*accepter))) {
        // The new game's seats and tokens go to the players' connections in this game: an
        // offerer who has left it (closed, or moved on to another game) would get a seat it
        // could never reach, and the new game would wait for it for ever.
        reply_error(request, ErrorCode::not_allowed,
                    "your opponent has left this game; a rematch needs both players here");
        return;
    }
    std::array<SeatSpec, 2> seats;
    for (Side side : {Side::first, Side::second}) {
        // Seats swap: the old second player takes the first seat.
        auto& spec = seats[seat_index(rules::opponent(side))];
        spec.name = header_.seats[seat_index(side)].name;
        spec.token = new_seat_token();
        spec.engine = header_.seats[seat_index(side)].engine;
        spec.engine_level = header_.seats[seat_index(side)].engine_level;
        for (const auto& member : members_) {
            if (member.seat == side) {
                spec.peers.push_back(member.peer);
            }
        }
    }
    // The old game names the new one first: if that write fails nothing was created, and the
    // players hear `rematch` here before `joined` there.
    const std::string next = new_game_id();
    storage::GameRow header = header_;
    header.seq += 1;
    header.rematch_next = next;
    header.offers.clear();
    persist_then(storage::GameWrite{header, std::nullopt, std::nullopt}, request,
                 [this, header, next, request, seats = std::move(seats)]() mutable {
                     const storage::GameRow finished = header_;
                     header_ = header;
                     emit(protocol::RematchEvent{id_, header_.seq, next}, request.peer, request.id);
                     context_.host.start_rematch(finished, next, std::move(seats));
                 });
}

void GameRoom::finish(storage::GameRow& header, rules::Outcome outcome, std::string_view reason,
                      std::string_view status) {
    header.status = std::string(status);
    header.result = status == "aborted" ? "" : std::string(rules::result_string(outcome));
    header.reason = std::string(reason);
    header.seq += 1;
    header.updated_ms = context_.time.unix_ms();
    header.offers.clear();  // a rematch may be offered from here on
}

void GameRoom::end_game(std::optional<RoomRequest> requester, rules::Outcome outcome,
                        std::string reason, std::string status) {
    storage::GameRow header = header_;
    if (clock_) {
        // A player's request stops the clocks when it arrived, as a move is charged up to then
        // (a request that waited behind a commit is not charged the wait).
        header.clock_ms = clock_->at(requester ? requester->received : context_.time.now());
    }
    finish(header, outcome, reason, status);
    auto peer = requester ? requester->peer : nullptr;
    auto id = requester ? requester->id : std::nullopt;
    persist_then(storage::GameWrite{header, std::nullopt, std::nullopt}, requester,
                 [this, header, peer, id] {
                     header_ = header;
                     if (clock_) {
                         clock_->set(header_.clock_ms);
                         clock_->stop();
                     }
                     cancel_timers();
                     // Counted and listed before anyone hears of it (a client may scrape at once).
                     note_ended();
                     after_change();
                     emit(protocol::Ended{id_, header_.seq, result_of(header_), reason_of(header_),
                                          status_of(header_)},
                          peer, id);
                     if (members_.empty()) {
                         // Ended with nobody here (a flag fall or an abandoned game): as when the
                         // last member leaves a finished game, it need not stay in memory.
                         leave_memory();
                     }
                 });
}

void GameRoom::set_presence(Side side, bool connected) {
    if (busy_) {
        // One write at a time: a write in flight holds the header the next one starts from (a
        // connection holding both seats leaves both at once; two presence events then shared
        // one seq). This one goes once that one is stored, if it still holds then.
        enqueue([this, side, connected] {
            if (seat_connected(side) == connected) {
                set_presence(side, connected);
            }
        });
        return;
    }
    auto& seat = seats_[seat_index(side)];
    if (connected) {
        seat.disconnected_since.reset();
    } else {
        seat.disconnected_since = context_.time.now();
    }
    if (header_.status != "playing" && header_.status != "waiting") {
        return;
    }
    if (header_.status == "waiting" && !connected) {
        arm_abandon_timer();
    }
    storage::GameRow header = header_;
    header.seq += 1;
    stamp_clocks(header);
    protocol::Presence event{id_, header.seq, header.variant, side, connected, std::nullopt};
    if (!connected && header_.status == "playing") {
        event.claim_after_ms = context_.config.disconnect_timeout.count();
    }
    persist_then(storage::GameWrite{header, std::nullopt, std::nullopt}, std::nullopt,
                 [this, header, event] {
                     header_ = header;
                     after_change();
                     emit(event);
                 });
}

void GameRoom::stamp_clocks(storage::GameRow& header) const {
    if (clock_ && clock_->running()) {
        header.clock_ms = clock_->at(context_.time.now());
    }
}

std::shared_ptr<rules::Game> GameRoom::replayed(std::uint32_t plies) const {
    auto rebuilt = rules::make_game(header_.variant, header_.initial_position);
    if (!rebuilt) {
        return nullptr;
    }
    std::shared_ptr<rules::Game> game = std::move(rebuilt).value();
    for (std::uint32_t i = 0; i < plies; ++i) {
        if (!game->play(game_->moves()[i])) {
            return nullptr;
        }
    }
    return game;
}

void GameRoom::start_turn() {
    if (clock_ && header_.status == "playing") {
        // Clocks start after each side's first move: the first two plies are not charged.
        clock_->start_turn(game_->turn(), context_.time.now(), header_.ply >= 2);
    }
    ask_engine();
}

void GameRoom::arm_flag_timer() {
    if (flag_timer_) {
        flag_timer_->cancel();
        flag_timer_.reset();
    }
    if (!clock_ || header_.status != "playing") {
        return;
    }
    const auto left = clock_->until_flag(context_.time.now());
    if (!left) {
        return;
    }
    const std::uint32_t ply = header_.ply;
    arm_timer(flag_timer_, *left + std::chrono::milliseconds(1),
              [ply](GameRoom& room) { room.on_flag_timer(ply); });
}

void GameRoom::arm_timer(std::shared_ptr<Timer>& timer, std::chrono::milliseconds delay,
                         std::function<void(GameRoom&)> handler) {
    if (timer) {
        timer->cancel();
        timer.reset();
    }
    std::weak_ptr<GameRoom> weak = weak_from_this();
    timer = executor_->post_after(delay, [weak, handler = std::move(handler)] {
        if (auto self = weak.lock()) {
            GameRoom* room = self.get();
            room->enqueue([room, handler] { handler(*room); });
        }
    });
}

void GameRoom::arm_abandon_timer() {
    arm_timer(abandon_timer_, context_.config.disconnect_timeout + std::chrono::milliseconds(1),
              [](GameRoom& room) { room.on_abandon_timer(); });
}

void GameRoom::on_abandon_timer() {
    if (header_.status != "waiting") {
        return;  // joined (or aborted) meanwhile
    }
    const auto now = context_.time.now();
    for (Side side : {Side::first, Side::second}) {
        const auto& away = seats_[seat_index(side)].disconnected_since;
        if (header_.seats[seat_index(side)].token_hash.empty() || seat_connected(side) || !away) {
            continue;  // an open seat, or its holder is here
        }
        if (now - *away < context_.config.disconnect_timeout) {
            return;  // back and gone again since: the timer armed at that leave decides
        }
        end_game(std::nullopt, rules::Outcome::ongoing, "abandoned", "aborted");
        return;
    }
}

void GameRoom::arm_unload_timer() {
    if (clock_ && header_.ply >= 2) {
        // Its flag falls if nobody comes back, and an ended game leaves memory. Before both
        // sides have moved its clock does not run, so it is unloaded like an untimed one.
        return;
    }
    arm_timer(unload_timer_, context_.config.disconnect_timeout + std::chrono::milliseconds(1),
              [](GameRoom& room) { room.on_unload_timer(); });
}

void GameRoom::on_unload_timer() {
    if (header_.status != "playing" || !members_.empty()) {
        return;  // over, or someone came (their leave arms the timer again)
    }
    if (agents_[seat_index(game_->turn())]) {
        arm_unload_timer();  // the engine owes a move: look again once it has played
        return;
    }
    if (!pending_.empty()) {
        arm_unload_timer();  // someone's request is queued: it is served here, not reloaded
        return;
    }
    // A task runs only when no commit is in flight (run_next), so storage has all of the game.
    if (leave_memory()) {
        log_event(LogLevel::info, "game_unloaded", {{"game", id_}, {"plies", header_.ply}});
    } else {
        arm_unload_timer();  // a request is on its way here: look again after it
    }
}

void GameRoom::on_flag_timer(std::uint32_t ply) {
    if (header_.status != "playing" || header_.ply != ply || !clock_) {
        return;
    }
    const auto charge = clock_->charge(context_.time.now());
    if (!charge.flagged) {
        arm_flag_timer();
        return;
    }
    end_on_time();
}

}  // namespace arbiter::server::app
