// GameRoom: what members see (state, summaries, clocks) and how it reaches them.
#include <algorithm>
#include <array>

#include "common/core/overloaded.hpp"
#include "common/protocol/codec.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/replies.hpp"
#include "server/app/room.hpp"
#include "server/app/seats.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using rules::Side;

std::optional<Side> GameRoom::seat_of(const net::Peer& peer) const {
    for (const auto& member : members_) {
        if (member.peer.get() == &peer && member.seat) {
            return member.seat;
        }
    }
    return std::nullopt;
}

HeldSeats GameRoom::held_by(const net::Peer& peer) const {
    HeldSeats held;
    for (const auto& member : members_) {
        if (member.peer.get() == &peer && member.seat) {
            (*member.seat == Side::first ? held.first : held.second) = true;
        }
    }
    return held;
}

std::uint32_t GameRoom::spectator_count() const {
    // add_member keeps a connection a spectator at most once.
    return static_cast<std::uint32_t>(std::count_if(
        members_.begin(), members_.end(), [](const Member& member) { return !member.seat; }));
}

protocol::GameStatus GameRoom::listed_status() const noexcept {
    return static_cast<protocol::GameStatus>(listed_status_.load(std::memory_order_relaxed));
}

void GameRoom::after_change() {
    if (protocol::is_finished(table_.status())) {
        close_agents();
    }
    listed_status_.store(static_cast<std::uint8_t>(table_.status()), std::memory_order_relaxed);
    context_.host.listing_changed(table_.summary(), table_.is_private());
}

void GameRoom::note_ended() {
    context_.metrics.game_ended();
    log_event(LogLevel::info, "game_ended",
              {{"game", id_},
               {"variant", rules::to_string(variant_)},
               {"status", protocol::to_string(table_.status())},
               {"result", protocol::result_text(table_.result())},
               {"reason", protocol::to_string(table_.reason())},
               {"plies", table_.ply()}});
}

RequestOrigin::RequestOrigin(const RoomRequest& request)
    : peer(request.peer),
      id(request.id),
      received(request.received),
      move(std::holds_alternative<protocol::MoveRequest>(request.body)) {}

void GameRoom::answered(const RequestOrigin& origin) {
    if (!origin.peer) {
        return;  // an engine's own request: not a message
    }
    context_.metrics.message_latency(
        std::chrono::duration_cast<std::chrono::microseconds>(context_.time.now() - origin.received)
            .count());
}

void GameRoom::send(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
                    std::optional<std::string> id) {
    peer->send(std::make_shared<const std::string>(
        protocol::encode(protocol::ServerMessage{std::move(body), std::move(id)})));
}

void GameRoom::send_state(const std::shared_ptr<net::Peer>& peer, std::optional<std::string> id) {
    protocol::State state = table_.state(seat_of(*peer), spectator_count(), context_.time.now());
    state.chat = table_.chat_for(chat_member(*peer), chat_muted_);
    send(peer, std::move(state), std::move(id));
}

ChatMember GameRoom::chat_member(const net::Peer& peer) const {
    ChatMember member;
    for (const auto& entry : members_) {
        if (entry.peer.get() != &peer) {
            continue;
        }
        if (entry.seat) {
            (*entry.seat == Side::first ? member.held.first : member.held.second) = true;
        } else {
            member.watching = true;
        }
    }
    return member;
}

const protocol::SharedMessage& GameRoom::Event::for_reader(const ChatMember& reader,
                                                           protocol::GameStatus status,
                                                           const std::array<bool, 2>& muted) const {
    if (!chat || may_read_chat(chat->room, chat->seat, reader, status, muted)) {
        return message;
    }
    return chat->hidden;
}

void GameRoom::reply_error(const RequestOrigin& request, ErrorCode code,
                           const std::string& message) {
    context_.metrics.refused(code);
    const bool move = request.move;
    if (move) {
        context_.metrics.move_refused(code);
    }
    if (!request.peer) {
        // An engine's request: counted as a person's, and logged where its failure is.
        return;
    }
    log_refusal(context_.time.now(), code, request.peer->id(), id_, move ? "move" : "game");
    request.peer->send(
        std::make_shared<const std::string>(protocol::encode_error(code, message, request.id)));
}

void GameRoom::emit(const protocol::ServerBody& event, const RequestOrigin* origin) {
    static const std::optional<std::string> kNoId;
    const std::shared_ptr<net::Peer> requester = origin ? origin->peer : nullptr;
    const std::optional<std::string>& id = origin ? origin->id : kNoId;
    const protocol::SharedMessage message(event);
    const std::shared_ptr<const std::string>& text = message.text();
    Event entry{0, 0, message};
    std::visit(
        Overloaded{
            [&](const protocol::Moved& moved) {
                entry.seq = moved.seq;
                entry.moved_ply = moved.ply;
            },
            [&](const protocol::ChatEvent& chat) {
                entry.seq = chat.seq;
                protocol::ChatEvent hidden = chat;
                hidden.text.reset();
                // The table has just kept the message: its author's seat is its last one's.
                const auto& kept = table_.chat();
                const std::optional<Side> seat = !kept.empty() && kept.back().line.seq == chat.seq
                                                     ? kept.back().seat
                                                     : std::nullopt;
                entry.chat = Event::Chat{protocol::SharedMessage(hidden), chat.room, seat};
            },
            [&](const protocol::GameEvent auto& game_event) { entry.seq = game_event.seq; },
            [&](const protocol::State& state) { entry.seq = state.seq; },
            // No seq: nothing a `since` replay counts.
            [](const OneOf<protocol::Welcome, protocol::SeatGranted, protocol::SpectatorCount,
                           protocol::SeatLost, protocol::LobbyList, protocol::GamesList,
                           protocol::Record, protocol::ErrorMessage, protocol::Pong,
                           protocol::ChatMuted, protocol::AnalysisProgress> auto&) {},
        },
        event);
    history_.push_back(entry);
    while (history_.size() > context_.config.event_history) {
        history_.pop_front();
    }
    if (entry.chat) {
        emit_chat(entry, requester, id);
        return;
    }
    std::shared_ptr<const std::string> own;
    if (requester && id) {
        own = message.with_id(*id);
    }
    bool requester_sent = false;
    for_each_connection([&](const std::shared_ptr<net::Peer>& peer) {
        const bool is_requester = peer == requester;
        requester_sent = requester_sent || is_requester;
        peer->send(is_requester && own ? own : text);
    });
    if (requester && !requester_sent) {
        requester->send(own ? own : text);
    }
}

void GameRoom::emit_chat(const Event& entry, const std::shared_ptr<net::Peer>& requester,
                         const std::optional<std::string>& id) {
    // Both forms were encoded once (Event); each member gets one of them by reference. Seat
    // holders are few: each is looked up; every other connection is a watcher with no seat.
    const protocol::GameStatus status = table_.status();
    bool requester_sent = false;
    const auto deliver = [&](const std::shared_ptr<net::Peer>& peer, const ChatMember& reader) {
        const protocol::SharedMessage& form = entry.for_reader(reader, status, chat_muted_);
        const bool is_requester = peer == requester;
        requester_sent = requester_sent || is_requester;
        peer->send(is_requester ? form.for_request(id) : form.text());
    };
    std::vector<const net::Peer*> seated;
    for (const auto& member : members_) {
        if (member.seat &&
            std::find(seated.begin(), seated.end(), member.peer.get()) == seated.end()) {
            seated.push_back(member.peer.get());
            deliver(member.peer, chat_member(*member.peer));
        }
    }
    const ChatMember watcher{HeldSeats{}, true};
    for (const auto& member : members_) {
        if (!member.seat &&
            std::find(seated.begin(), seated.end(), member.peer.get()) == seated.end()) {
            deliver(member.peer, watcher);
        }
    }
    if (requester && !requester_sent) {
        deliver(requester, chat_member(*requester));
    }
}

bool GameRoom::replay_since(const std::shared_ptr<net::Peer>& peer,
                            std::optional<std::uint64_t> since,
                            const std::optional<std::string>& id) {
    // Nothing missed (since == seq) is answered with a state too: the request has a reply to wait
    // for, as every other.
    if (!since || *since >= table_.seq()) {
        return false;
    }
    if (table_.time_control() && table_.status() == protocol::GameStatus::playing) {
        // Events carry the clocks as they were when they happened, and a clock has run since:
        // only a state says how much time is left now (a client counting down from a replayed
        // move would show time its player no longer has).
        return false;
    }
    const bool covered = !history_.empty() && history_.front().seq <= *since + 1 &&
                         history_.back().seq == table_.seq();
    if (!covered) {
        return false;
    }
    bool first = true;
    const ChatMember reader = chat_member(*peer);
    for (const auto& event : history_) {
        if (event.seq > *since) {
            // The events are direct replies: the first echoes the request's id.
            const protocol::SharedMessage& form =
                event.for_reader(reader, table_.status(), chat_muted_);
            peer->send(first ? form.for_request(id) : form.text());
            first = false;
        }
    }
    return true;
}

void GameRoom::broadcast_spectators() {
    // Watchers come and go in bursts (a popular game, a game that ends and its watchers follow the
    // next one) and in churn (a client watching and unwatching in a loop): a count to every member
    // for each change was quadratic, 40,000 messages when 200 watchers moved to a new game. The
    // count goes out after the requests already on the strand, at most once per interval, and
    // only if it changed.
    const auto delay = spectator_notices_.changed(context_.time.now());
    if (!delay) {
        return;
    }
    auto send = [weak = weak_from_this()] {
        if (auto self = weak.lock()) {
            self->send_spectator_count();
        }
    };
    if (delay->count() == 0) {
        executor_->post(std::move(send));
    } else {
        spectator_timer_ = executor_->post_after(*delay, std::move(send));
    }
}

protocol::SpectatorCount GameRoom::spectator_list() const {
    protocol::SpectatorCount list{id_, spectator_count()};
    for (const Member& member : members_) {
        if (!member.seat && list.watchers.size() < protocol::kMaxListedWatchers) {
            list.watchers.push_back(member.watcher);
        }
    }
    return list;
}

void GameRoom::send_spectator_count() {
    protocol::SpectatorCount list = spectator_list();
    if (!spectator_notices_.send(context_.time.now(), list.count, list.watchers)) {
        return;
    }
    auto text = std::make_shared<const std::string>(
        protocol::encode(protocol::ServerMessage{std::move(list), std::nullopt}));
    for_each_connection([&](const std::shared_ptr<net::Peer>& peer) { peer->send(text); });
}

bool GameRoom::add_member(const std::shared_ptr<net::Peer>& peer, std::optional<Side> seat,
                          protocol::Watcher watcher) {
    const bool present = std::any_of(members_.begin(), members_.end(), [&](const Member& member) {
        return member.peer.get() == peer.get() && member.seat == seat;
    });
    if (present) {
        return true;
    }
    // Asked first: a request that waited (a game brought back from storage) may find its
    // connection closed, and a member that no close will ever remove would hold the seat as
    // connected, and the room in memory, for good.
    if (!context_.host.member_joined(peer, id_, seat.has_value(), rematch_of_)) {
        return false;
    }
    members_.push_back({peer, seat, std::move(watcher)});
    publish_presence();
    return true;
}

void GameRoom::publish_presence() {
    std::uint8_t bits = 0;
    for (Side side : {Side::first, Side::second}) {
        table_.set_seat_connected(
            side, std::any_of(members_.begin(), members_.end(),
                              [&](const Member& member) { return member.seat == side; }));
        if (table_.seat_connected(side)) {
            bits |= static_cast<std::uint8_t>(1U << seat_index(side));
        }
    }
    seats_present_.store(bits, std::memory_order_relaxed);
}

std::array<bool, 2> GameRoom::seats_present() const noexcept {
    const auto bits = seats_present_.load(std::memory_order_relaxed);
    return {(bits & 1U) != 0, (bits & 2U) != 0};
}

void GameRoom::for_each_connection(
    const std::function<void(const std::shared_ptr<net::Peer>&)>& visit) const {
    // A connection may be a member more than once: in each seat it holds, and as a spectator
    // (at most once: add_member). Seat entries are few, so only they are remembered; comparing
    // every member with every other was quadratic, 20,000 comparisons per event for a game
    // with 200 watchers, and the leaves of a crowd that went away cost as much each.
    std::vector<const net::Peer*> seated;
    for (const auto& member : members_) {
        if (member.seat &&
            std::find(seated.begin(), seated.end(), member.peer.get()) == seated.end()) {
            seated.push_back(member.peer.get());
            visit(member.peer);
        }
    }
    for (const auto& member : members_) {
        if (!member.seat &&
            std::find(seated.begin(), seated.end(), member.peer.get()) == seated.end()) {
            visit(member.peer);
        }
    }
}

}  // namespace arbiter::server::app
