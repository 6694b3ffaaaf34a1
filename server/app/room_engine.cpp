// GameRoom: engine seats. The engine is asked when the table says it is to move; its answer comes
// back on the room's executor and is the table's command like a person's move (same checks, same
// commit before broadcast, same ply check, so an answer for an old ply is dropped).
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/room.hpp"
#include "server/app/seats.hpp"

namespace arbiter::server::app {

using protocol::GameStatus;
using rules::Side;

void GameRoom::make_agents() {
    if (context_.engines == nullptr) {
        return;
    }
    for (Side side : {Side::first, Side::second}) {
        const auto& seat = table_.seat(side);
        if (!seat.engine.empty()) {
            agents_[seat_index(side)] =
                context_.engines->make_agent(seat.engine, variant_, seat.engine_level, executor_);
        }
    }
}

void GameRoom::ask_engine(bool again) {
    const auto turn = table_.engine_turn();
    if (!turn || (!again && turn == engine_asked_)) {
        return;
    }
    const auto& agent = agents_[seat_index(turn->side)];
    if (!agent) {
        return;
    }
    engine_asked_ = turn;
    MoveQuestion question;
    question.initial_position = table_.initial_position();
    question.moves = table_.game().moves();
    // A copy: the table plays each move on its own game before the commit, so the agent must not
    // hold that one.
    question.game = table_.game().clone();
    question.side = turn->side;
    if (const auto& control = table_.time_control()) {
        question.remaining_ms = table_.clocks_at(context_.time.now());
        question.increment_ms = control->increment_ms;
    }
    std::weak_ptr<GameRoom> weak = weak_from_this();
    agent->ask(std::move(question), [weak, ply = turn->ply](MoveAnswer answer) {
        auto self = weak.lock();
        if (!self) {
            return;
        }
        // Through the room's queue, after whatever commit is in flight.
        self->executor_->post([self, ply, answer = std::move(answer)] {
            GameRoom* room = self.get();
            room->enqueue([room, ply, answer] { room->on_engine_answer(ply, answer); });
        });
    });
}

void GameRoom::on_engine_answer(std::uint32_t ply, MoveAnswer answer) {
    if (!answer) {
        run(command::EngineFailure{ply, answer.error()}, std::nullopt);
        return;
    }
    // Its refusals are counted as a person's move's would be, and told to nobody.
    run(command::EngineMove{ply, *answer}, RequestOrigin(context_.time.now(), true));
}

void GameRoom::engine_trouble(const EngineTrouble& trouble) {
    auto& agent = agents_[seat_index(trouble.side)];
    context_.metrics.engine_failed();
    log_event(LogLevel::warn, "engine_failed",
              {{"game", id_},
               {"ply", std::to_string(table_.ply())},
               {"failure", std::to_string(trouble.failures) + " of 2"},
               {"why", trouble.why}});
    if (!agent) {
        return;
    }
    agent->restart();
    if (trouble.failures < 2) {
        ask_engine(/*again=*/true);
        return;
    }
    // Failed twice on one move: the game ends (the table's decision) instead of waiting for an
    // engine that cannot move.
    agent->close();
}

void GameRoom::retry_engine(std::uint32_t ply) {
    // The server could not store the move (storage failed, or the database is at its bound):
    // not the engine's fault, so it is not counted against it.
    log_event(LogLevel::warn, "engine_move_not_stored",
              {{"game", id_}, {"ply", std::to_string(ply)}});
    arm_timer(engine_retry_timer_, kEngineRetryDelay, [ply](GameRoom& room) {
        if (room.table_.status() == GameStatus::playing && room.table_.ply() == ply) {
            room.ask_engine(/*again=*/true);
        }
    });
}

void GameRoom::close_agents() {
    for (auto& agent : agents_) {
        if (agent) {
            agent->close();
        }
    }
}

}  // namespace arbiter::server::app
