// GameRoom: engine seats. The engine is asked when its turn starts; its answer comes back on
// the room's executor and is played through on_move like a person's request (same checks, same
// commit before broadcast, same ply check, so an answer for an old ply is refused and dropped).

#include <atomic>

#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/room.hpp"
#include "server/app/seats.hpp"

namespace arbiter::server::app {

using protocol::OfferAction;
using protocol::OfferKind;
using rules::Side;

namespace {

// Stands for the engine seat in requests. What the room sends it is dropped, except errors:
// an error is the room refusing the engine's request, which the room must hear about.
class EnginePeer final : public net::Peer {
  public:
    explicit EnginePeer(std::function<void(std::string)> on_error)
        : id_(next_id_.fetch_add(1)), on_error_(std::move(on_error)) {}

    std::uint64_t id() const noexcept override { return id_; }
    const std::string& address() const noexcept override { return address_; }
    bool send(std::shared_ptr<const std::string> text) override {
        if (text->find("\"type\":\"error\"") != std::string::npos) {
            on_error_(*text);
        }
        return true;
    }
    void close(net::CloseCode /*code*/, std::string_view /*reason*/) override {}

  private:
    // Far above the network's connection ids, so the two never meet.
    static inline std::atomic<std::uint64_t> next_id_{std::uint64_t{1} << 62};
    std::uint64_t id_;
    std::string address_ = "engine";
    std::function<void(std::string)> on_error_;
};

}  // namespace

void GameRoom::make_agents() {
    if (context_.engines == nullptr) {
        return;
    }
    for (Side side : {Side::first, Side::second}) {
        const auto& seat = header_.seats[seat_index(side)];
        if (!seat.engine.empty()) {
            agents_[seat_index(side)] = context_.engines->make_agent(seat.engine, header_.variant,
                                                                     seat.engine_level, executor_);
        }
    }
    if (!agents_[0] && !agents_[1]) {
        return;
    }
    // The peer's errors are posted, never handled inside the request that caused them.
    engine_peer_ = std::make_shared<EnginePeer>([this](std::string text) {
        const std::uint32_t ply = engine_move_ply_.value_or(UINT32_MAX);
        std::weak_ptr<GameRoom> weak = weak_from_this();
        executor_->post([weak, ply, text = std::move(text)] {
            if (auto self = weak.lock()) {
                GameRoom* room = self.get();
                room->enqueue([room, ply, text] { room->on_engine_refused(ply, text); });
            }
        });
    });
}

void GameRoom::ask_engine() {
    if (header_.status != "playing") {
        return;
    }
    const Side side = game_->turn();
    const auto& agent = agents_[seat_index(side)];
    if (!agent) {
        return;
    }
    if (header_.ply != engine_failure_ply_) {
        engine_failure_ply_ = header_.ply;
        engine_failures_ = 0;
    }
    MoveQuestion question;
    question.initial_position = header_.initial_position;
    question.moves = game_->moves();
    // A copy: the room plays each move on its own game before the commit (room_play.cpp), so
    // the agent must not hold that one.
    question.game = game_->clone();
    question.side = side;
    if (clock_) {
        question.remaining_ms = clock_->at(context_.time.now());
        question.increment_ms = header_.clock_increment_ms.value_or(0);
    }
    const std::uint32_t ply = header_.ply;
    std::weak_ptr<GameRoom> weak = weak_from_this();
    agent->ask(std::move(question), [weak, ply](MoveAnswer answer) {
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
    if (header_.status != "playing" || header_.ply != ply || !agents_[seat_index(game_->turn())]) {
        return;  // a late answer: the game moved on (takeback, timeout, end)
    }
    if (!answer) {
        engine_trouble(answer.error());
        return;
    }
    const Side side = game_->turn();
    RoomRequest request{engine_peer_, std::nullopt, protocol::MoveRequest{id_, *answer, ply},
                        header_.seats[seat_index(side)].name, context_.time.now()};
    engine_move_ply_ = ply;
    on_move(request, std::get<protocol::MoveRequest>(request.body));
}

void GameRoom::on_engine_refused(std::uint32_t ply, const std::string& why) {
    if (header_.status != "playing" || header_.ply != ply || !agents_[seat_index(game_->turn())]) {
        return;  // not about a move the engine still owes
    }
    if (why.find(R"("code":"unavailable")") != std::string::npos) {
        // The server could not store the move (storage failed, or the database is at its
        // bound): not the engine's fault, so it is not counted against it. The engine is asked
        // again a little later, as a person would send the move again.
        log_event(LogLevel::warn, "engine_move_not_stored",
                  {{"game", id_}, {"ply", std::to_string(ply)}, {"why", why}});
        arm_timer(engine_retry_timer_, engine_retry_delay, [ply](GameRoom& room) {
            if (room.header_.status == "playing" && room.header_.ply == ply) {
                room.ask_engine();
            }
        });
        return;
    }
    engine_trouble("its move was refused: " + why);
}

void GameRoom::engine_trouble(const std::string& why) {
    const Side side = game_->turn();
    auto& agent = agents_[seat_index(side)];
    context_.metrics.engine_failed();
    log_event(LogLevel::warn, "engine_failed",
              {{"game", id_},
               {"ply", std::to_string(header_.ply)},
               {"failure", std::to_string(engine_failures_ + 1) + " of 2"},
               {"why", why}});
    agent->restart();
    if (++engine_failures_ < 2) {
        ask_engine();
        return;
    }
    // Failed twice on one move: the game ends instead of waiting for an engine that cannot
    // move. A loss for the engine, or an abort if it never moved (protocol.md, "Failures").
    agent->close();
    if (header_.ply >= 2) {
        end_game(std::nullopt, win_for(rules::opponent(side)), "engine_failure");
    } else {
        end_game(std::nullopt, rules::Outcome::ongoing, "engine_failure", "aborted");
    }
}

void GameRoom::engine_reply_to(const protocol::OfferEvent& offer) {
    if (offer.action != OfferAction::offer || !agents_[seat_index(rules::opponent(offer.by))]) {
        return;
    }
    // protocol.md, "Playing the computer": draws and takebacks are declined, a rematch accepted.
    const OfferAction reply =
        offer.kind == OfferKind::rematch ? OfferAction::accept : OfferAction::decline;
    const Side engine = rules::opponent(offer.by);
    RoomRequest request{engine_peer_, std::nullopt, protocol::OfferRequest{id_, offer.kind, reply},
                        header_.seats[seat_index(engine)].name, context_.time.now()};
    enqueue([this, request]() mutable { handle(request); });
}

void GameRoom::close_agents() {
    for (auto& agent : agents_) {
        if (agent) {
            agent->close();
        }
    }
}

}  // namespace arbiter::server::app
