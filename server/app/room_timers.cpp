// GameRoom: timers. The flag and abandon deadlines are the table's (a timer firing is one more
// command); the unload timer is the room's own (nobody is in it).
#include "server/app/log.hpp"
#include "server/app/room.hpp"

namespace arbiter::server::app {

using protocol::GameStatus;

namespace {

// The delay from `now` to just after `deadline`: the table decides at the deadline itself, so a
// timer that fires a millisecond late finds it passed.
std::chrono::milliseconds delay_after(Table::TimePoint deadline, Table::TimePoint now) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
    return std::max(left, std::chrono::milliseconds::zero()) + std::chrono::milliseconds(1);
}

}  // namespace

void GameRoom::arm_deadlines() {
    const auto now = context_.time.now();
    if (const auto flag = table_.flag_falls_at(); flag != flag_armed_) {
        flag_armed_ = flag;
        if (flag) {
            arm_timer(flag_timer_, delay_after(*flag, now), [](GameRoom& room) {
                room.flag_armed_.reset();  // fired: armed again if the flag has not fallen
                room.run(command::FlagFall{}, std::nullopt);
            });
        } else if (flag_timer_) {
            flag_timer_->cancel();
            flag_timer_.reset();
        }
    }
    if (const auto abandon = table_.abandon_at(); abandon != abandon_armed_) {
        abandon_armed_ = abandon;
        if (abandon) {
            arm_timer(abandon_timer_, delay_after(*abandon, now), [](GameRoom& room) {
                room.abandon_armed_.reset();
                room.run(command::AbandonCheck{}, std::nullopt, {},
                         [self = &room](const std::string&) { self->on_abort_failed(); });
            });
        } else if (abandon_timer_) {
            abandon_timer_->cancel();
            abandon_timer_.reset();
        }
    }
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

void GameRoom::cancel_timers() {
    for (auto* timer : {&flag_timer_, &abandon_timer_, &unload_timer_, &engine_retry_timer_}) {
        if (*timer) {
            (*timer)->cancel();
            timer->reset();
        }
    }
    flag_armed_.reset();
    abandon_armed_.reset();
}

void GameRoom::arm_unload_timer() {
    arm_timer(unload_timer_, context_.config.disconnect_timeout + std::chrono::milliseconds(1),
              [](GameRoom& room) { room.on_unload_timer(); });
}

void GameRoom::on_unload_timer() {
    if (table_.status() != GameStatus::playing || !members_.empty()) {
        return;  // over, or someone came (their leave arms the timer again)
    }
    if (table_.engine_turn()) {
        arm_unload_timer();  // the engine owes a move: look again once it has played
        return;
    }
    if (!pending_.empty()) {
        arm_unload_timer();  // someone's request is queued: it is served here, not reloaded
        return;
    }
    if (auto clocks = table_.clocks_to_park(instant())) {
        park(std::move(*clocks));
        return;
    }
    // A task runs only when no commit is in flight (run_next), so storage has all of the game.
    if (leave_memory()) {
        log_event(LogLevel::info, "game_unloaded", {{"game", id_}, {"plies", table_.ply()}});
    } else {
        arm_unload_timer();  // a request is on its way here: look again after it
    }
}

void GameRoom::park(storage::StoreClocks clocks) {
    // Held like a commit: nothing else runs until the deadline is stored, so the game leaves
    // memory as storage has it. Requests that arrive meanwhile are served after, here.
    busy_ = true;
    auto self = shared_from_this();
    context_.repository.write(
        std::move(clocks), [self](const Expected<void, storage::StorageError>& done) {
            const bool stored = done.has_value();
            const std::string error = stored ? "" : done.error().message;
            self->executor_->post([self, stored, error] {
                self->busy_ = false;
                if (!stored) {
                    // Kept in memory, its flag timer armed; tried again after another timeout.
                    log_event(LogLevel::warn, "game_not_parked",
                              {{"game", self->id_}, {"error", error}});
                    self->arm_unload_timer();
                } else if (self->table_.status() == GameStatus::playing && self->members_.empty()) {
                    if (self->leave_memory(self->table_.flag_falls_at())) {
                        log_event(LogLevel::info, "game_unloaded",
                                  {{"game", self->id_}, {"plies", self->table_.ply()}});
                    } else {
                        self->arm_unload_timer();  // a request is on its way: look again after
                    }
                }
                self->run_next();
            });
        });
}

void GameRoom::flag_if_due() {
    if (const auto flag = table_.flag_falls_at(); flag && *flag <= context_.time.now()) {
        run(command::FlagFall{}, std::nullopt);
    }
}

}  // namespace arbiter::server::app
