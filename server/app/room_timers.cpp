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

// A timed game whose clock runs stays in memory: its flag falls if nobody comes back, and an
// ended game leaves memory. Before both sides have moved its clock does not run, so it is
// unloaded like an untimed one.
bool GameRoom::clock_keeps_it_loaded() const {
    return table_.time_control() && table_.ply() >= 2;
}

void GameRoom::arm_unload_timer() {
    if (clock_keeps_it_loaded()) {
        return;
    }
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
    if (clock_keeps_it_loaded()) {
        return;  // the engine moved meanwhile and the clock runs: its flag timer ends it
    }
    if (!pending_.empty()) {
        arm_unload_timer();  // someone's request is queued: it is served here, not reloaded
        return;
    }
    // A task runs only when no commit is in flight (run_next), so storage has all of the game.
    if (leave_memory()) {
        log_event(LogLevel::info, "game_unloaded", {{"game", id_}, {"plies", table_.ply()}});
    } else {
        arm_unload_timer();  // a request is on its way here: look again after it
    }
}

}  // namespace arbiter::server::app
