#include "server/app/room.hpp"

#include <algorithm>
#include <utility>

#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/seats.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using rules::Side;

namespace {

// A write that fails is refused to its player as `unavailable`; the host needs the reason. A disk
// that fails fails every write, by the thousand a second.
void log_storage_failure(const TimeSource& time, const std::string& game,
                         const std::string& error) {
    static OncePerSecond gate;
    if (gate.allow(time.now())) {
        log_event(LogLevel::error, "storage_failed", {{"game", game}, {"error", error}});
    }
}

}  // namespace

GameRoom::GameRoom(RoomContext& context, std::shared_ptr<Executor> executor,
                   storage::GameRow header, std::unique_ptr<rules::Game> game)
    : context_(context),
      executor_(std::move(executor)),
      id_(header.id),
      header_(std::move(header)),
      game_(std::move(game)),
      variant_(header_.variant),
      rematch_of_(header_.rematch_of.value_or("")) {
    if (auto spec = time_control_of(header_)) {
        clock_.emplace(*spec);
        clock_history_.push_back({spec->initial_ms, spec->initial_ms});
    } else {
        clock_history_.push_back({0, 0});
    }
    make_agents();
    publish_presence();
}

std::shared_ptr<GameRoom> GameRoom::create(RoomContext& context, std::shared_ptr<Executor> executor,
                                           storage::GameRow header,
                                           std::unique_ptr<rules::Game> game,
                                           std::array<std::optional<SeatSpec>, 2> seats,
                                           std::optional<std::string> reply_id) {
    for (std::size_t i = 0; i < 2; ++i) {
        if (seats[i]) {
            header.seats[i] = {seats[i]->name, token_hash(seats[i]->token), seats[i]->engine,
                               seats[i]->engine_level};
        }
    }
    header.seq = 1;
    header.clock_ms = {header.clock_initial_ms.value_or(0), header.clock_initial_ms.value_or(0)};
    auto room = std::make_shared<GameRoom>(context, std::move(executor), header, std::move(game));
    // Tasks kept in the room's own queue capture `this`, never a shared_ptr to the room: the
    // queue belongs to the room, and a self-reference would keep a room alive forever.
    GameRoom* self = room.get();
    room->creation_ = [self, header, seats = std::move(seats), reply_id]() mutable {
        self->executor_->post([room = self->shared_from_this(), self, header,
                               seats = std::move(seats), reply_id]() mutable {
            self->enqueue([self, header, seats = std::move(seats), reply_id]() mutable {
                self->persist_then(storage::GameWrite{header, std::nullopt, std::nullopt},
                                   std::nullopt,
                                   [self, seats = std::move(seats), reply_id]() mutable {
                                       self->on_created(std::move(seats), std::move(reply_id));
                                   });
            });
        });
    };
    return room;
}

void GameRoom::begin_creation() {
    auto creation = std::exchange(creation_, nullptr);
    ARBITER_ASSERT(creation);
    creation();
}

Expected<std::shared_ptr<GameRoom>, std::string> GameRoom::restore(
    RoomContext& context, std::shared_ptr<Executor> executor, storage::StoredGame stored) {
    auto game = rules::make_game(stored.header.variant, stored.header.initial_position);
    if (!game) {
        return unexpected("stored start position refused: " + game.error().message);
    }
    auto room = std::make_shared<GameRoom>(context, std::move(executor), std::move(stored.header),
                                           std::move(game).value());
    for (auto& row : stored.moves) {
        const Side mover = room->game_->turn();
        auto played = room->game_->play(row.move);
        if (!played) {
            return unexpected("stored move " + std::to_string(row.ply) + " " + row.move +
                              " refused: " + played.error().message);
        }
        Clocks clocks = room->clock_history_.back();
        if (row.clock_ms) {
            clocks[seat_index(mover)] = *row.clock_ms;
        }
        room->clock_history_.push_back(clocks);
        room->notation_.push_back(std::move(row.notation));
        room->move_seq_.push_back(row.seq);
    }
    if (room->clock_) {
        room->clock_->set(room->header_.clock_ms);
    }
    if (room->header_.status == "playing" || room->header_.status == "waiting") {
        // Nobody is connected after a restart: the claim window (or, for a game still waiting
        // for an opponent, its creator's time to come back) opens a full timeout from now, and
        // the time the server was down is charged to no one (the turn starts now). What the side
        // to move used before a clean stop was stored then (store_clocks_at_stop).
        const auto now = context.time.now();
        room->seats_[0].disconnected_since = now;
        room->seats_[1].disconnected_since = now;
    }
    return room;
}

void GameRoom::start() {
    auto self = shared_from_this();
    executor_->post([self] {
        if (self->header_.status == "playing") {
            self->start_turn();
            self->arm_flag_timer();
            self->arm_unload_timer();
        }
        if (self->header_.status == "waiting") {
            self->arm_abandon_timer();
        }
        // An engine answers an offer as soon as it is made; one stored just before a stop (or
        // a crash) was never answered, so its engine answers it now.
        for (const Offer& offer : self->open_offers()) {
            self->engine_reply_to(protocol::OfferEvent{self->id_, self->header_.seq,
                                                       self->header_.variant, offer.kind,
                                                       protocol::OfferAction::offer, offer.by});
        }
        self->after_change();
    });
}

// ---- queue --------------------------------------------------------------------------------

void GameRoom::submit(RoomRequest request) {
    requests_in_flight_.fetch_add(1, std::memory_order_acq_rel);
    auto self = shared_from_this();
    executor_->post([self, request = std::move(request)]() mutable {
        self->requests_in_flight_.fetch_sub(1, std::memory_order_acq_rel);
        if (self->unloaded_) {
            self->context_.host.reroute(std::move(request));
            return;
        }
        if (self->pending_.size() >= self->context_.config.max_pending) {
            self->reply_error(request, ErrorCode::unavailable, "the game is busy; try again");
            self->answered(request.received);
            return;
        }
        self->pending_.emplace_back(std::move(request));
        self->run_next();
    });
}

void GameRoom::leave(std::shared_ptr<net::Peer> peer) {
    auto self = shared_from_this();
    executor_->post([self, peer = std::move(peer)] {
        self->enqueue([self, peer] { self->on_leave(peer, true); });
    });
}

void GameRoom::unwatch(std::shared_ptr<net::Peer> peer) {
    auto self = shared_from_this();
    executor_->post([self, peer = std::move(peer)] {
        self->enqueue([self, peer] { self->on_leave(peer, false); });
    });
}

void GameRoom::detach() {
    close_agents();
    pending_.clear();
    members_.clear();
    history_.clear();
    cancel_timers();
}

void GameRoom::store_clocks_at_stop() {
    if (header_.status != "playing" || !clock_ || !clock_->running() || busy_ ||
        !pending_.empty()) {
        return;
    }
    storage::GameWrite write;
    write.header = header_;
    stamp_clocks(write.header);
    write.header.updated_ms = context_.time.unix_ms();
    context_.repository.write(std::move(write),
                              [id = id_](Expected<void, storage::StorageError> done) {
                                  if (!done) {
                                      log_event(LogLevel::warn, "clocks_not_stored",
                                                {{"game", id}, {"error", done.error().message}});
                                  }
                              });
}

void GameRoom::cancel_timers() {
    for (auto* timer : {&flag_timer_, &abandon_timer_, &unload_timer_, &engine_retry_timer_}) {
        if (*timer) {
            (*timer)->cancel();
            timer->reset();
        }
    }
}

void GameRoom::enqueue(Task task) {
    pending_.emplace_back(std::move(task));
    run_next();
}

void GameRoom::run_next() {
    while (!busy_ && !pending_.empty()) {
        Queued next = std::move(pending_.front());
        pending_.pop_front();
        if (auto* request = std::get_if<RoomRequest>(&next)) {
            if (unloaded_) {
                context_.host.reroute(std::move(*request));
            } else {
                handle(*request);
            }
        } else if (!unloaded_) {
            std::get<Task>(next)();
        }  // else a leave, a timer or an engine answer for a room that is gone
    }
}

bool GameRoom::leave_memory() {
    // A request queued behind a commit is served here, not routed again: routed again it could
    // fall behind a later request of its connection that found the game gone (protocol.md: a
    // connection's requests are handled in the order sent). Its handling releases the room.
    if (std::any_of(pending_.begin(), pending_.end(), [](const Queued& queued) {
            return std::holds_alternative<RoomRequest>(queued);
        })) {
        return false;
    }
    if (!context_.host.unload_room(id_, this)) {
        return false;
    }
    unloaded_ = true;
    cancel_timers();
    close_agents();
    history_.clear();
    return true;
}

void GameRoom::persist_then(storage::GameWrite change, std::optional<RequestOrigin> requester,
                            Task apply, Task undo) {
    busy_ = true;
    const auto started = context_.time.now();
    auto self = shared_from_this();
    context_.repository.write(
        std::move(change),
        [self, started, requester = std::move(requester), apply = std::move(apply),
         undo = std::move(undo)](Expected<void, storage::StorageError> done) mutable {
            // The repository calls this once: its captures move on rather than being copied (a
            // request and the apply step carry strings; copies were malloc time on every move).
            self->executor_->post([self, started, requester = std::move(requester),
                                   apply = std::move(apply), undo = std::move(undo),
                                   done = std::move(done)] {
                if (done) {
                    self->context_.metrics.commit_latency(
                        std::chrono::duration_cast<std::chrono::microseconds>(
                            self->context_.time.now() - started)
                            .count());
                    apply();
                } else {
                    log_storage_failure(self->context_.time, self->id_, done.error().message);
                    if (undo) {
                        undo();
                    }
                    if (requester) {
                        self->reply_error(
                            *requester, ErrorCode::unavailable,
                            "storage failed, nothing was changed: " + done.error().message);
                    }
                }
                if (requester) {
                    self->answered(requester->received);
                }
                self->busy_ = false;
                self->run_next();
            });
        });
}

// ---- requests -----------------------------------------------------------------------------

void GameRoom::handle(RoomRequest& request) {
    std::visit(
        [&](const auto& body) {
            using T = std::decay_t<decltype(body)>;
            if constexpr (std::is_same_v<T, protocol::Join>) {
                on_join(request, body);
            } else if constexpr (std::is_same_v<T, protocol::Resume>) {
                on_resume(request, body);
            } else if constexpr (std::is_same_v<T, protocol::Watch>) {
                on_watch(request, body);
            } else if constexpr (std::is_same_v<T, protocol::MoveRequest>) {
                on_move(request, body);
            } else if constexpr (std::is_same_v<T, protocol::Resign>) {
                on_resign(request);
            } else if constexpr (std::is_same_v<T, protocol::OfferRequest>) {
                on_offer(request, body);
            } else if constexpr (std::is_same_v<T, protocol::Abort>) {
                on_abort(request);
            } else if constexpr (std::is_same_v<T, protocol::Claim>) {
                on_claim(request, body);
            } else {
                reply_error(request, ErrorCode::bad_request, "not a game request");
            }
        },
        request.body);
    // A request that writes is answered after its commit (persist_then); the others now.
    if (!busy_) {
        answered(request.received);
        // A finished game read back for a request that made nobody a member (a refused join, a
        // move after the end) leaves memory again at once, as when its last member leaves.
        if (members_.empty() && is_finished(header_.status)) {
            release_if_empty();
        }
    }
}

void GameRoom::on_created(std::array<std::optional<SeatSpec>, 2> seats,
                          std::optional<std::string> reply_id) {
    const bool rematch = header_.rematch_of.has_value();
    for (Side side : {Side::first, Side::second}) {
        auto& seat = seats[seat_index(side)];
        if (!seat) {
            continue;
        }
        for (const auto& peer : seat->peers) {
            add_member(peer, side);
            send(peer, protocol::SeatGranted{!rematch, id_, header_.variant, side, seat->token},
                 rematch ? std::nullopt : reply_id);
        }
    }
    context_.metrics.game_created();
    log_event(LogLevel::info, "game_created",
              {{"game", id_},
               {"variant", rules::to_string(header_.variant)},
               {"status", header_.status},
               {"rematch", rematch},
               {"private", header_.is_private}});
    after_change();  // the lobby and the gauges first: a client may look as soon as it hears
    for_each_connection(
        [this](const std::shared_ptr<net::Peer>& peer) { send_state(peer, std::nullopt); });
    if (header_.status == "playing") {
        start_turn();
    }
    enqueue([this] { settle_absent_seats(); });
}

void GameRoom::settle_absent_seats() {
    for (Side side : {Side::first, Side::second}) {
        const auto& seat = header_.seats[seat_index(side)];
        if (!seat.token_hash.empty() && !seat_connected(side) &&
            !seats_[seat_index(side)].disconnected_since) {
            set_presence(side, false);
        }
    }
    release_if_empty();
}

void GameRoom::on_join(RoomRequest& request, const protocol::Join& /*join*/) {
    if (header_.status != "waiting") {
        reply_error(request,
                    header_.status == "playing" ? ErrorCode::seat_taken : ErrorCode::game_over,
                    "this game is not open to join");
        return;
    }
    if (seat_of(*request.peer)) {
        reply_error(request, ErrorCode::forbidden, "you already hold a seat in this game");
        return;
    }
    const Side side = header_.seats[0].name.empty() ? Side::first : Side::second;
    const std::string token = new_seat_token();
    storage::GameRow header = header_;
    header.seats[seat_index(side)] = {request.player_name, token_hash(token), "", 0};
    header.status = "playing";
    header.seq += 1;
    header.updated_ms = context_.time.unix_ms();
    persist_then(storage::GameWrite{header, std::nullopt, std::nullopt}, request,
                 [this, header, side, token, request] {
                     header_ = header;
                     // The seat change is not an event a client can replay: later `since`
                     // requests from before it get a full state.
                     history_.clear();
                     add_member(request.peer, side);
                     after_change();
                     send(request.peer,
                          protocol::SeatGranted{false, id_, header_.variant, side, token},
                          request.id);
                     for_each_connection([this](const std::shared_ptr<net::Peer>& peer) {
                         send_state(peer, std::nullopt);
                     });
                     start_turn();
                     // A creator who left while the game waited is away from a game in play
                     // now: the claim window opens a full timeout from the join, and the
                     // joiner hears so, as after any disconnect (not from the creator's leave,
                     // which would let a joiner claim a win the moment it sat down).
                     // (This write is still in flight: set_presence queues its own behind it.)
                     const Side creator = rules::opponent(side);
                     if (!seat_connected(creator)) {
                         set_presence(creator, false);
                     }
                 });
}

void GameRoom::on_resume(RoomRequest& request, const protocol::Resume& resume) {
    const std::string hash = token_hash(resume.token);
    std::optional<Side> side;
    for (Side s : {Side::first, Side::second}) {
        if (same_hash(hash, header_.seats[seat_index(s)].token_hash)) {
            side = s;
        }
    }
    if (!side) {
        reply_error(request, ErrorCode::forbidden, "that token does not hold a seat in this game");
        return;
    }
    const bool was_connected = seat_connected(*side);
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
    for (const auto& peer : displaced) {
        const auto still_seated = seat_of(*peer);
        const bool still_watching =
            std::any_of(members_.begin(), members_.end(),
                        [&](const Member& m) { return m.peer == peer && !m.seat; });
        // Told, not dropped in silence: a page left open on another device would otherwise look
        // frozen, its moves refused with no reason. Not a game event (no seq): the others' event
        // numbering is untouched, and the connection may no longer hear the game's events.
        send(peer, protocol::SeatLost{id_, header_.variant, *side,
                                      protocol::SeatLossReason::resumed_elsewhere, still_seated,
                                      still_watching});
        context_.host.member_left(peer, id_, still_seated.has_value(),
                                  still_seated.has_value() || still_watching);
        log_event(LogLevel::info, "seat_taken_over",
                  {{"game", id_}, {"peer", peer->id()}, {"by", request.peer->id()}});
    }
    if (!add_member(request.peer, side)) {
        // Closed while its resume waited (a game read back from storage): it takes no seat, and
        // a connection it displaced has left the seat empty.
        if (was_connected && !seat_connected(*side)) {
            set_presence(*side, false);
        }
        release_if_empty();
        return;
    }
    if (!replay_since(request.peer, resume.since, request.id)) {
        send_state(request.peer, request.id);
    }
    if (!was_connected) {
        set_presence(*side, true);
    }
}

void GameRoom::on_watch(RoomRequest& request, const protocol::Watch& watch) {
    if (!add_member(request.peer, std::nullopt)) {
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
    const std::array<bool, 2> connected_before = {seat_connected(Side::first),
                                                  seat_connected(Side::second)};
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
        if (connected_before[seat_index(side)] && !seat_connected(side)) {
            set_presence(side, false);
        }
    }
    if (spectator_count() != spectators_before) {
        broadcast_spectators();
    }
    release_if_empty();
}

void GameRoom::release_if_empty() {
    if (members_.empty() && is_finished(header_.status)) {
        leave_memory();
    } else if (members_.empty() && header_.status == "playing") {
        arm_unload_timer();
    }
}

}  // namespace arbiter::server::app
