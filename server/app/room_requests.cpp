// GameRoom: the requests of connections. Game actions become the table's commands, with the seats
// the connection holds; joining, resuming, watching and leaving change who is in the room.
#include <algorithm>

#include "common/core/overloaded.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/room.hpp"
#include "server/app/seats.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using protocol::GameStatus;
using rules::Side;

void GameRoom::handle(RoomRequest& request) {
    if (never_stored_) {
        // Its creation was never stored (on_creation_failed): there is no such game. Answered as
        // storage would answer it, and the room tries again to leave memory.
        reply_error(request, ErrorCode::unknown_game, "no game with that id");
        answered(request);
        leave_memory();
        return;
    }
    const auto not_a_game_request = [&] {
        reply_error(request, ErrorCode::bad_request, "not a game request");
    };
    const HeldSeats held = held_by(*request.peer);
    std::visit(Overloaded{
                   [&](protocol::Join&) { on_join(request); },
                   [&](protocol::Resume& resume) { on_resume(request, resume); },
                   [&](protocol::Watch& watch) { on_watch(request, watch); },
                   [&](protocol::MoveRequest& move) { on_move(request, move); },
                   [&](protocol::Resign&) {
                       run(command::Resign{held, request.received}, request);
                   },
                   [&](protocol::OfferRequest& offer) { on_offer(request, offer); },
                   [&](protocol::Abort&) {
                       run(command::Abort{held, request.received}, request);
                   },
                   [&](protocol::Claim& claim) {
                       run(command::Claim{held, claim.kind, request.received}, request);
                   },
                   [&](protocol::ChatRequest& chat) { on_chat(request, chat); },
                   [&](protocol::ChatMute& mute) { on_chat_mute(request, mute); },
                   // The hub answers these itself and never routes them to a room.
                   [&](protocol::Hello&) { not_a_game_request(); },
                   [&](protocol::Create&) { not_a_game_request(); },
                   [&](protocol::Unwatch&) { not_a_game_request(); },
                   [&](protocol::LobbySubscribe&) { not_a_game_request(); },
                   [&](protocol::GamesQuery&) { not_a_game_request(); },
                   [&](protocol::ReplayRequest&) { not_a_game_request(); },
                   [&](protocol::Ping&) { not_a_game_request(); },
               },
               request.body);
    // A request whose decision writes is answered after its commit (run); the others now.
    if (!busy_) {
        answered(request);
        // A finished game read back for a request that made nobody a member (a refused join, a
        // move after the end) leaves memory again at once, as when its last member leaves.
        if (members_.empty() && protocol::is_finished(table_.status())) {
            release_if_empty();
        }
    }
}

void GameRoom::on_join(RoomRequest& request) {
    const std::string token = new_seat_token();
    std::string hash = token_hash(token);
    command::Join join{request.player_name, hash, held_by(*request.peer)};
    if (request.user) {
        join.user_id = request.user->id;
        if (const auto pool = perf(); pool && context_.ratings != nullptr) {
            join.rating = context_.ratings->shown(request.user->id, *pool, context_.time.unix_ms());
        }
    }
    run(std::move(join), request, [this, token, hash, peer = request.peer, id = request.id] {
        const Side side = table_.seat(Side::first).token_hash == hash ? Side::first : Side::second;
        // The seat change is not an event a client can replay: later `since` requests from
        // before it get a full state.
        history_.clear();
        add_member(peer, side);
        after_change();
        send(peer, protocol::SeatGranted{false, id_, variant_, side, token}, id);
        for_each_connection(
            [this](const std::shared_ptr<net::Peer>& member) { send_state(member, std::nullopt); });
    });
}

void GameRoom::on_move(RoomRequest& request, protocol::MoveRequest& move) {
    // protocol.md, Lag compensation: the move carries its connection's round trip as the
    // server's pings measured it, and the think time its client reported.
    run(command::Move{held_by(*request.peer), std::move(move.move), move.ply, request.received,
                      request.peer->round_trip(), move.think_ms},
        request);
}

void GameRoom::on_offer(RoomRequest& request, const protocol::OfferRequest& offer) {
    command::Offer command{held_by(*request.peer), offer.kind,   offer.action,
                           request.received,       std::nullopt, {}};
    if (offer.kind == protocol::OfferKind::rematch) {
        command.next_game = new_game_id();
        const bool engine_seat =
            !table_.seat(Side::first).engine.empty() || !table_.seat(Side::second).engine.empty();
        if (offer.action == protocol::OfferAction::offer && engine_seat) {
            // An engine accepts at once: the rematch would be one more open game of this
            // connection's, which the host counts.
            command.open_game_refusal = context_.host.open_game_refusal(request.peer);
        }
    }
    run(std::move(command), request);
}

void GameRoom::on_chat(RoomRequest& request, protocol::ChatRequest& chat) {
    const ChatMember author = chat_member(*request.peer);
    run(command::Chat{author.held, author.watching, chat.room, request.player_name,
                      std::move(chat.text)},
        request);
}

void GameRoom::on_chat_mute(RoomRequest& request, const protocol::ChatMute& mute) {
    const HeldSeats held = held_by(*request.peer);
    if (!held.any()) {
        reply_error(request, ErrorCode::forbidden, "only a player mutes the opponent's chat");
        return;
    }
    for (const Side side : {Side::first, Side::second}) {
        if (held.holds(side)) {
            chat_muted_[seat_index(side)] = mute.mute;
        }
    }
    send(request.peer, protocol::ChatMuted{id_, mute.mute}, request.id);
}

void GameRoom::answer_resend(const RequestOrigin& origin, std::uint32_t ply) {
    // Newest first: after a takeback the history still holds the taken-back move's event (a
    // `since` replay needs it), and the move now at that ply came after it.
    for (auto event = history_.rbegin(); event != history_.rend(); ++event) {
        if (event->moved_ply == ply) {
            origin.peer->send(event->message.for_request(origin.id));
            return;
        }
    }
    // Not in memory: the server restarted since (the move was committed, its answer lost with
    // the connection), the history was cleared, or the move is older than it keeps. The table
    // rebuilds it from the moves; every field is what was sent the first time.
    if (auto moved = table_.moved_event(ply)) {
        send(origin.peer, std::move(*moved), origin.id);
        return;
    }
    reply_error(origin, ErrorCode::internal, "the moves no longer replay");
}

void GameRoom::on_created(std::array<std::optional<SeatSpec>, 2> seats,
                          const std::optional<std::string>& reply_id) {
    const bool rematch = table_.rematch_of().has_value();
    for (Side side : {Side::first, Side::second}) {
        auto& seat = seats[seat_index(side)];
        if (!seat) {
            continue;
        }
        for (const auto& peer : seat->peers) {
            add_member(peer, side);
            send(peer, protocol::SeatGranted{!rematch, id_, variant_, side, seat->token},
                 rematch ? std::nullopt : reply_id);
        }
    }
    context_.metrics.game_created();
    log_event(LogLevel::info, "game_created",
              {{"game", id_},
               {"variant", rules::to_string(variant_)},
               {"status", protocol::to_string(table_.status())},
               {"rematch", rematch},
               {"private", table_.is_private()}});
    after_change();  // the lobby and the gauges first: a client may look as soon as it hears
    for_each_connection(
        [this](const std::shared_ptr<net::Peer>& peer) { send_state(peer, std::nullopt); });
    enqueue([this] { settle_absent_seats(); });
}

void GameRoom::on_creation_failed(const std::array<std::optional<SeatSpec>, 2>& seats,
                                  const std::optional<std::string>& id, const std::string& error) {
    // A rematch's players asked for nothing here (their acceptance was answered by the old
    // game's `rematch` event): they are told without an id.
    const bool rematch = table_.rematch_of().has_value();
    std::vector<const net::Peer*> told;
    for (const auto& seat : seats) {
        if (!seat) {
            continue;
        }
        for (const auto& peer : seat->peers) {
            if (std::find(told.begin(), told.end(), peer.get()) != told.end()) {
                continue;  // a connection holding both seats of a rematch hears it once
            }
            told.push_back(peer.get());
            RequestOrigin origin(context_.time.now(), false);
            origin.peer = peer;
            origin.id = rematch ? std::nullopt : id;
            reply_error(origin, ErrorCode::unavailable,
                        "storage failed, the game was not created: " + error);
        }
    }
    never_stored_ = true;
    leave_memory();  // else after the requests on their way here (handle)
}

void GameRoom::on_abort_failed() {
    if (table_.status() != GameStatus::waiting || !members_.empty()) {
        return;  // its creator came back meanwhile: the game waits on
    }
    if (!leave_memory()) {
        // A request for it is queued or on its way: served first, then the abort is tried again.
        arm_timer(abandon_timer_, kAbortRetryDelay, [](GameRoom& room) {
            room.run(command::AbandonCheck{}, std::nullopt, {},
                     [self = &room](const std::string&) { self->on_abort_failed(); });
        });
    }
}

void GameRoom::settle_absent_seats() {
    for (Side side : {Side::first, Side::second}) {
        const auto& seat = table_.seat(side);
        if (seat.taken() && !table_.seat_connected(side) && !seat.away_since) {
            presence(side, false);
        }
    }
    release_if_empty();
}

void GameRoom::on_resume(RoomRequest& request, const protocol::Resume& resume) {
    std::optional<Side> side;
    if (!resume.token.empty()) {
        const std::string hash = token_hash(resume.token);
        for (Side s : {Side::first, Side::second}) {
            if (same_hash(hash, table_.seat(s).token_hash)) {
                side = s;
            }
        }
    }
    if (!side && request.user) {
        // A seat bound to the connection's account is its own, whatever device asks (issue 40):
        // the first such seat this connection does not hold already.
        for (Side s : {Side::first, Side::second}) {
            if (!side && table_.seat(s).user_id == request.user->id &&
                !held_by(*request.peer).holds(s)) {
                side = s;
            }
        }
    }
    if (!side) {
        reply_error(request, ErrorCode::forbidden,
                    resume.token.empty()
                        ? "no seat of this game is yours: send its token, or sign in as its player"
                        : "that token does not hold a seat in this game");
        return;
    }
    const bool was_connected = table_.seat_connected(*side);
    // Whoever holds the token holds the seat: the connection that held it before loses it.
    std::vector<std::shared_ptr<net::Peer>> displaced;
    std::erase_if(members_, [&](const Member& member) {
        if (member.seat != side || member.peer == request.peer) {
            return false;
        }
        displaced.push_back(member.peer);
        return true;
    });
    publish_presence();
    // A connection that no longer answered the server's pings was half-open: the link died
    // without a FIN and the player was gone, though nobody had been told yet (the silence had
    // not reached the idle timeout). The others hear that they left and are back, rather than
    // nothing. A connection that still answers is another device of a player who never left:
    // its takeover stays silent.
    const bool replaced_half_open =
        was_connected && !table_.seat_connected(*side) &&
        std::any_of(displaced.begin(), displaced.end(),
                    [](const std::shared_ptr<net::Peer>& peer) { return !peer->responsive(); });
    if (replaced_half_open) {
        presence(*side, false);
    }
    for (const auto& peer : displaced) {
        const auto still_seated = seat_of(*peer);
        const bool still_watching =
            std::any_of(members_.begin(), members_.end(),
                        [&](const Member& m) { return m.peer == peer && !m.seat; });
        // Told, not dropped in silence: a page left open on another device would otherwise look
        // frozen, its moves refused with no reason. Not a game event (no seq): the others' event
        // numbering is untouched, and the connection may no longer hear the game's events.
        send(peer,
             protocol::SeatLost{id_, variant_, *side, protocol::SeatLossReason::resumed_elsewhere,
                                still_seated, still_watching});
        context_.host.member_left(peer, id_, still_seated.has_value(),
                                  still_seated.has_value() || still_watching);
        log_event(LogLevel::info, "seat_taken_over",
                  {{"game", id_}, {"peer", peer->id()}, {"by", request.peer->id()}});
    }
    if (!add_member(request.peer, side)) {
        // Closed while its resume waited (a game read back from storage): it takes no seat, and
        // a connection it displaced has left the seat empty.
        if (was_connected && !replaced_half_open && !table_.seat_connected(*side)) {
            presence(*side, false);
        }
        release_if_empty();
        return;
    }
    if (!replay_since(request.peer, resume.since, request.id)) {
        send_state(request.peer, request.id);
    }
    // The state carries only the count: a player back on the page hears who is watching now,
    // since the next broadcast may be far away.
    if (spectator_count() > 0) {
        send(request.peer, spectator_list());
    }
    if (!was_connected || replaced_half_open) {
        presence(*side, true);
    }
}

void GameRoom::on_watch(RoomRequest& request, const protocol::Watch& watch) {
    const protocol::Watcher watcher{request.player_name, !request.user.has_value()};
    if (!add_member(request.peer, std::nullopt, watcher)) {
        // Closed while the game was read back for it: nobody is here for a room brought into
        // memory for this watch.
        release_if_empty();
        return;
    }
    if (!replay_since(request.peer, watch.since, request.id)) {
        send_state(request.peer, request.id);
    }
    broadcast_spectators();
}

void GameRoom::on_leave(const std::shared_ptr<net::Peer>& peer, bool seats_too) {
    const std::array<bool, 2> connected_before = {table_.seat_connected(Side::first),
                                                  table_.seat_connected(Side::second)};
    const auto spectators_before = spectator_count();
    std::erase_if(members_, [&](const Member& member) {
        return member.peer.get() == peer.get() && (seats_too || !member.seat);
    });
    const auto still_seated = seat_of(*peer);
    const bool still_watching = std::any_of(members_.begin(), members_.end(), [&](const Member& m) {
        return m.peer.get() == peer.get() && !m.seat;
    });
    context_.host.member_left(peer, id_, still_seated.has_value(),
                              still_seated.has_value() || still_watching);
    publish_presence();
    for (Side side : {Side::first, Side::second}) {
        if (connected_before[seat_index(side)] && !table_.seat_connected(side)) {
            presence(side, false);
        }
    }
    if (spectator_count() != spectators_before) {
        broadcast_spectators();
    }
    release_if_empty();
}

void GameRoom::release_if_empty() {
    if (members_.empty() && protocol::is_finished(table_.status())) {
        leave_memory();
    } else if (members_.empty() && table_.status() == GameStatus::playing) {
        arm_unload_timer();
    }
}

void GameRoom::start_rematch(const std::string& next) {
    std::array<SeatSpec, 2> seats;
    for (Side side : {Side::first, Side::second}) {
        // Seats swap: the old second player takes the first seat.
        const auto& seat = table_.seat(side);
        auto& spec = seats[seat_index(rules::opponent(side))];
        spec.name = seat.name;
        spec.token = new_seat_token();
        spec.engine = seat.engine;
        spec.engine_level = seat.engine_level;
        spec.user_id = seat.user_id;
        for (const auto& member : members_) {
            if (member.seat == side) {
                spec.peers.push_back(member.peer);
            }
        }
    }
    context_.host.start_rematch(table_.row(), next, std::move(seats));
}

}  // namespace arbiter::server::app
