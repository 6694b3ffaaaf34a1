// GameRoom: creation and restore, the queue, and the path of every command: the table decides,
// the intent is committed, the decision is applied and its events sent.
#include "server/app/room.hpp"

#include <algorithm>
#include <utility>

#include "common/core/overloaded.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/seats.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using protocol::GameStatus;
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

TableConfig table_config(const RoomContext& context) {
    return TableConfig{context.config.disconnect_timeout, context.engines != nullptr,
                       context.config.spectator_chat, context.config.chat_words};
}

}  // namespace

GameRoom::GameRoom(RoomContext& context, std::shared_ptr<Executor> executor, Table table)
    : context_(context),
      executor_(std::move(executor)),
      id_(table.id()),
      table_(std::move(table)),
      spectator_notices_(context.config.spectator_interval),
      variant_(table_.variant()),
      rematch_of_(table_.rematch_of().value_or("")) {
    listed_status_.store(static_cast<std::uint8_t>(table_.status()), std::memory_order_relaxed);
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
            header.seats[i] = {seats[i]->name,    token_hash(seats[i]->token),
                               seats[i]->engine,  seats[i]->engine_level,
                               seats[i]->user_id, seats[i]->rating};
        }
    }
    header.seq = 1;
    header.clock_ms = {header.clock_initial_ms.value_or(0), header.clock_initial_ms.value_or(0)};
    auto room = std::make_shared<GameRoom>(
        context, std::move(executor), Table::open(header, std::move(game), table_config(context)));
    // Tasks kept in the room's own queue capture `this`, never a shared_ptr to the room: the
    // queue belongs to the room, and a self-reference would keep a room alive forever.
    GameRoom* self = room.get();
    // Exactly one of the commit's two ends takes the seats: shared by both.
    struct Creation {
        std::array<std::optional<SeatSpec>, 2> seats;
        std::optional<std::string> reply_id;
    };
    auto creation = std::make_shared<Creation>(Creation{std::move(seats), std::move(reply_id)});
    room->creation_ = [self, creation] {
        self->executor_->post([room = self->shared_from_this(), self, creation] {
            self->enqueue([self, creation] {
                self->run(
                    command::Create{}, std::nullopt,
                    [self, creation] {
                        self->on_created(std::move(creation->seats), creation->reply_id);
                    },
                    [self, creation](const std::string& error) {
                        self->on_creation_failed(creation->seats, creation->reply_id, error);
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
    auto table = Table::restore(std::move(stored), table_config(context),
                                Instant{context.time.now(), context.time.unix_ms()});
    if (!table) {
        return unexpected(std::move(table).error());
    }
    return std::make_shared<GameRoom>(context, std::move(executor), std::move(table).value());
}

void GameRoom::start() {
    auto self = shared_from_this();
    executor_->post([self] {
        if (self->table_.status() == GameStatus::playing) {
            self->arm_unload_timer();
        }
        // Its turn starts now (the time the server was down is charged to no one), and an
        // engine answers an offer stored before the stop.
        self->run(command::Start{}, std::nullopt);
        self->after_change();
        // Queued: it runs after anything Start queued, and before the requests that brought
        // the game back.
        self->enqueue([room = self.get()] { room->flag_if_due(); });
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
            self->answered(request);
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
    if (spectator_timer_) {
        spectator_timer_->cancel();
    }
}

void GameRoom::evict(std::string reason) {
    auto self = shared_from_this();
    executor_->post([self, reason = std::move(reason)] {
        if (self->unloaded_) {
            return;
        }
        self->unloaded_ = true;
        self->cancel_timers();
        self->close_agents();
        if (self->spectator_timer_) {
            self->spectator_timer_->cancel();
        }
        self->history_.clear();
        auto members = std::move(self->members_);
        self->members_.clear();
        self->publish_presence();
        std::vector<const net::Peer*> closed;
        for (const Member& member : members) {
            if (std::find(closed.begin(), closed.end(), member.peer.get()) == closed.end()) {
                closed.push_back(member.peer.get());
                member.peer->close(net::CloseCode::service_restart, reason);
            }
        }
        // Queued requests go to the game's new owner (a commit in flight is fenced, and answers
        // unavailable; run_next routes what waited behind it when it returns).
        self->run_next();
    });
}

void GameRoom::store_clocks_at_stop() {
    if (busy_ || !pending_.empty()) {
        return;  // the header is not settled: that turn is not charged, as after a crash
    }
    auto clocks = table_.clocks_to_store(instant());
    if (!clocks) {
        return;
    }
    context_.repository.write(std::move(*clocks),
                              [id = id_](const Expected<void, storage::StorageError>& done) {
                                  if (!done) {
                                      log_event(LogLevel::warn, "clocks_not_stored",
                                                {{"game", id}, {"error", done.error().message}});
                                  }
                              });
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
        } else if (!unloaded_ && !never_stored_) {
            std::get<Task>(next)();
        }  // else a leave, a timer or an engine answer for a room that is gone
    }
}

bool GameRoom::leave_memory(std::optional<Table::TimePoint> flag_at) {
    if (unloaded_) {
        return true;
    }
    // A request queued behind a commit is served here, not routed again: routed again it could
    // fall behind a later request of its connection that found the game gone (protocol.md: a
    // connection's requests are handled in the order sent). Its handling releases the room.
    if (std::any_of(pending_.begin(), pending_.end(), [](const Queued& queued) {
            return std::holds_alternative<RoomRequest>(queued);
        })) {
        return false;
    }
    if (!context_.host.unload_room(id_, this, flag_at)) {
        return false;
    }
    unloaded_ = true;
    cancel_timers();
    close_agents();
    history_.clear();
    return true;
}

// ---- commands -----------------------------------------------------------------------------

Instant GameRoom::instant() const {
    return Instant{context_.time.now(), context_.time.unix_ms()};
}

void GameRoom::run(TableCommand command, std::optional<RequestOrigin> origin, Then then,
                   Failed if_failed) {
    std::optional<std::uint32_t> engine_move;
    if (const auto* move = std::get_if<command::EngineMove>(&command)) {
        engine_move = move->ply;
    }
    const Instant now = instant();
    auto verdict = table_.decide(std::move(command), now);
    if (!verdict) {
        if (origin) {
            reply_error(*origin, verdict.error().code, verdict.error().message);
        }
        if (engine_move) {
            // The rules refused the engine's move: one failure of the engine to move.
            enqueue([this, ply = *engine_move, why = verdict.error().message] {
                run(command::EngineFailure{ply, "its move was refused: " + why}, std::nullopt);
            });
        }
        return;
    }
    // Shared by the commit's callbacks (the repository's and the executor's take copyable ones).
    auto decision = std::make_shared<Decision>(std::move(verdict).value());
    if (decision->refusal && origin) {
        // Its time ran out before it arrived: refused, and the flag falls instead, for nobody.
        reply_error(*origin, decision->refusal->code, decision->refusal->message);
        origin.reset();
    }
    if (decision->resend) {
        table_.apply(*decision, now);
        if (origin) {
            answer_resend(*origin, *decision->resend);
        }
        return;
    }
    if (decision->engine_trouble) {
        engine_trouble(*decision->engine_trouble);
    }
    if (!decision->intent) {
        table_.apply(*decision, now);
        settle(*decision, origin, then);
        return;
    }
    commit(std::move(decision), std::move(origin), std::move(then), std::move(if_failed),
           engine_move);
}

std::optional<Perf> GameRoom::perf() const {
    const auto speed = rated_speed(table_.time_control());
    if (!table_.rated() || !speed) {
        return std::nullopt;
    }
    return Perf{variant_, *speed};
}

std::optional<Settlement> GameRoom::settle_ratings(Decision& decision) {
    auto* ratings = decision.intent ? storage::ratings_of(*decision.intent) : nullptr;
    const auto ending = decision.intent ? storage::ending_of(*decision.intent) : std::nullopt;
    const auto pool = perf();
    if (ratings == nullptr || !ending || ending->status != GameStatus::ended || !pool ||
        context_.ratings == nullptr) {
        return std::nullopt;
    }
    const auto& first = table_.seat(Side::first).user_id;
    const auto& second = table_.seat(Side::second).user_id;
    if (!first || !second) {
        return std::nullopt;  // a rated game seats two accounts (rated_join_refusal)
    }
    Settlement settled =
        context_.ratings->settle({*first, *second}, *pool, ending->result, context_.time.unix_ms());
    *ratings = settled.stored();
    for (auto& event : decision.events) {
        if (auto* ended = std::get_if<protocol::Ended>(&event)) {
            ended->ratings = settled.shown();
        }
    }
    return settled;
}

void GameRoom::commit(std::shared_ptr<Decision> decision, std::optional<RequestOrigin> origin,
                      Then then, Failed if_failed, std::optional<std::uint32_t> engine_move,
                      int attempt) {
    busy_ = true;
    // Settled before the write, undone if it fails: the ratings are stored with the end.
    auto settled = settle_ratings(*decision);
    const auto started = context_.time.now();
    auto self = shared_from_this();
    auto committed = [self, decision, started, engine_move, settled, attempt,
                      origin = std::move(origin), then = std::move(then),
                      if_failed = std::move(if_failed)](
                         Expected<void, storage::StorageError> done) mutable {
        // Called once: its captures move on rather than being copied. Posted even when the
        // write committed here, on the strand: what follows may commit again (run_next).
        self->executor_->post([self, decision = std::move(decision), started, engine_move, settled,
                               attempt, origin = std::move(origin), then = std::move(then),
                               if_failed = std::move(if_failed), done = std::move(done)]() mutable {
            if (!done && done.error().stale && settled && attempt + 1 < kRatingAttempts) {
                // Another node rated a player meanwhile (cluster): rate again from the
                // stored rows, which replace this settle's entries, and write again; the
                // room stays busy, nothing was told.
                if (self->context_.ratings->refresh(settled->users, settled->perf)) {
                    log_event(LogLevel::info, "ratings_reread", {{"game", self->id_}});
                    self->commit(std::move(decision), std::move(origin), std::move(then),
                                 std::move(if_failed), engine_move, attempt + 1);
                    return;
                }
            }
            if (done) {
                self->context_.metrics.commit_latency(
                    std::chrono::duration_cast<std::chrono::microseconds>(
                        self->context_.time.now() - started)
                        .count());
                self->table_.apply(*decision, self->instant());
                self->settle(*decision, origin, then);
            } else {
                log_storage_failure(self->context_.time, self->id_, done.error().message);
                if (settled) {
                    self->context_.ratings->undo(*settled);
                }
                self->table_.discard(*decision);
                if (origin) {
                    self->reply_error(
                        *origin, ErrorCode::unavailable,
                        "storage failed, nothing was changed: " + done.error().message);
                }
                if (engine_move) {
                    self->retry_engine(*engine_move);
                }
            }
            if (origin) {
                self->answered(*origin);
            }
            self->busy_ = false;
            // After the queue is free: what it does may take the room out of memory.
            if (!done && if_failed) {
                if_failed(done.error().message);
            }
            // Fenced: another node owns the stored game now, and this room can commit
            // nothing more; its members go there.
            if (!done && done.error().fenced && !self->never_stored_) {
                self->context_.host.disown_room(self->id_, self.get());
            }
            self->run_next();
        });
    };
    // At a low rate the store commits on this thread, which wakes no writer thread to commit and
    // none to hand the result back.
    if (auto here = context_.repository.write_here(*decision->intent)) {
        committed(std::move(*here));
    } else {
        context_.repository.write(std::move(*decision->intent), std::move(committed));
    }
}

void GameRoom::settle(Decision& decision, const std::optional<RequestOrigin>& origin,
                      const Then& then) {
    const RequestOrigin* requester =
        origin && decision.answers_request && origin->peer ? &*origin : nullptr;
    for (const auto& event : decision.events) {
        if (std::holds_alternative<protocol::Moved>(event)) {
            context_.metrics.move_accepted();
        } else if (std::holds_alternative<protocol::Ended>(event)) {
            // Counted and listed before anyone hears of it (a client may scrape at once).
            note_ended();
            after_change();
        } else if (std::holds_alternative<protocol::Presence>(event)) {
            after_change();
        }
        emit(event, requester);
        requester = nullptr;  // only the first event answers the request
        if (const auto* rematch = std::get_if<protocol::RematchEvent>(&event)) {
            start_rematch(rematch->next);
        }
    }
    if (then) {
        then();
    }
    const bool finished = protocol::is_finished(table_.status());
    if (finished) {
        cancel_timers();
    } else {
        arm_deadlines();
        ask_engine();
    }
    // Queued last: with no commit in flight they run at once, and must find this one settled.
    for (auto& next : decision.then) {
        if (auto* offer = std::get_if<command::Offer>(&next);
            offer && offer->kind == protocol::OfferKind::rematch) {
            offer->next_game = new_game_id();
        }
        // An engine's answer is counted as its request; the room's own commands answer nobody.
        std::optional<RequestOrigin> by;
        if (std::holds_alternative<command::Offer>(next)) {
            by = RequestOrigin(context_.time.now(), false);
        }
        enqueue([this, next = std::move(next), by]() mutable { run(std::move(next), by); });
    }
    const bool ended_now = std::any_of(decision.events.begin(), decision.events.end(),
                                       [](const protocol::ServerBody& event) {
                                           return std::holds_alternative<protocol::Ended>(event);
                                       });
    if (ended_now && members_.empty()) {
        // Ended with nobody here (a flag fall, an abandoned game, an engine's last move): as
        // when the last member leaves a finished game, it need not stay in memory.
        leave_memory();
    }
}

void GameRoom::presence(Side side, bool connected) {
    if (busy_) {
        // One write at a time: a write in flight holds the header the next one starts from (a
        // connection holding both seats leaves both at once). This one goes once that one is
        // stored; the table drops it if the seat changed again meanwhile.
        enqueue([this, side, connected] { run(command::Presence{side, connected}, std::nullopt); });
        return;
    }
    run(command::Presence{side, connected}, std::nullopt);
}

}  // namespace arbiter::server::app
