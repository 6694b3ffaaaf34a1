// GameRoom: what members see (state, summaries, clocks) and how it reaches them.
#include <algorithm>
#include <array>

#include "common/protocol/codec.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/app/room.hpp"
#include "server/app/seats.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using rules::Side;

std::string with_request_id(const std::string& text, const std::string& id) {
    std::string out = "{\"id\":\"";
    for (const char c : id) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[byte >> 4];
            out += kHex[byte & 0x0f];
        } else {
            out += c;
        }
    }
    out += "\",";
    out.append(text, 1);
    return out;
}

std::optional<Side> GameRoom::seat_of(const net::Peer& peer) const {
    if (engine_peer_ && &peer == engine_peer_.get()) {
        return agents_[0] ? Side::first : Side::second;
    }
    for (const auto& member : members_) {
        if (member.peer.get() == &peer && member.seat) {
            return member.seat;
        }
    }
    return std::nullopt;
}

std::optional<Side> GameRoom::seat_of(const net::Peer& peer, Side preferred) const {
    const bool holds_preferred =
        std::any_of(members_.begin(), members_.end(), [&](const Member& member) {
            return member.peer.get() == &peer && member.seat == preferred;
        });
    return holds_preferred ? std::optional<Side>(preferred) : seat_of(peer);
}

bool GameRoom::seat_connected(Side side) const {
    // An engine never disconnects.
    return agents_[seat_index(side)] != nullptr ||
           std::any_of(members_.begin(), members_.end(),
                       [&](const Member& member) { return member.seat == side; });
}

std::uint32_t GameRoom::spectator_count() const {
    // add_member keeps a connection a spectator at most once.
    return static_cast<std::uint32_t>(std::count_if(
        members_.begin(), members_.end(), [](const Member& member) { return !member.seat; }));
}

std::optional<std::chrono::milliseconds> GameRoom::claim_opens_in(Side side) const {
    const auto& away = seats_[seat_index(side)].disconnected_since;
    if (!away || seat_connected(side)) {
        return std::nullopt;
    }
    // Rounded up: a part of a millisecond left is not yet open, as the claim reckoned it before.
    const auto waited = context_.time.now() - *away;
    return std::chrono::ceil<std::chrono::milliseconds>(
        std::max(context_.config.disconnect_timeout - waited, decltype(waited)::zero()));
}

std::optional<protocol::PlayerInfo> GameRoom::player(Side side) const {
    const auto& seat = header_.seats[seat_index(side)];
    if (seat.name.empty() && seat.token_hash.empty()) {
        return std::nullopt;
    }
    return protocol::PlayerInfo{seat.name, seat_connected(side), !seat.engine.empty()};
}

std::vector<std::string> GameRoom::legal_now() const {
    if (header_.status != "playing") {
        return {};
    }
    return game_->legal_moves();
}

std::optional<protocol::ClockState> GameRoom::clock_now() const {
    if (!clock_) {
        return std::nullopt;
    }
    const Clocks clocks = clock_->at(context_.time.now());
    return protocol::ClockState{clocks[0], clocks[1],
                                clock_->running() && header_.status == "playing"};
}

std::optional<protocol::ClockState> GameRoom::clock_reading() const {
    if (!clock_) {
        return std::nullopt;
    }
    const Clocks& clocks = clock_->stored();
    return protocol::ClockState{clocks[0], clocks[1],
                                clock_->running() && header_.status == "playing"};
}

protocol::State GameRoom::state_for(std::optional<Side> you) const {
    protocol::State state;
    state.game = id_;
    state.seq = header_.seq;
    state.variant = header_.variant;
    state.status = status_of(header_);
    state.you = you;
    state.first = player(Side::first);
    state.second = player(Side::second);
    if (header_.status == "playing") {
        // A player who comes back (a reload, a server restart) learns when a claim opens, as the
        // presence event told those who were there.
        for (auto [side, info] :
             {std::pair{Side::first, &state.first}, {Side::second, &state.second}}) {
            if (const auto left = claim_opens_in(side); left && *info) {
                (*info)->claim_after_ms = left->count();
            }
        }
    }
    state.initial_position = header_.initial_position;
    state.position = game_->position();
    state.moves = game_->moves();
    state.notation = notation_;
    state.ply = header_.ply;
    state.turn = game_->turn();
    state.legal = legal_now();
    state.check = game_->in_check();
    state.clock = clock_now();
    state.time_control = time_control_of(header_);
    state.result = result_of(header_);
    state.reason = reason_of(header_);
    for (const Offer& offer : open_offers()) {
        state.offers.push_back({offer.kind, offer.by});
    }
    state.spectators = spectator_count();
    state.rematch = header_.rematch_next;
    return state;
}

protocol::GameSummary GameRoom::summary() const {
    return protocol::GameSummary{id_,
                                 header_.variant,
                                 status_of(header_),
                                 player(Side::first),
                                 player(Side::second),
                                 time_control_of(header_),
                                 header_.ply,
                                 result_of(header_),
                                 reason_of(header_),
                                 header_.created_ms};
}

namespace {
constexpr std::array<std::string_view, 4> kStatusNames = {"waiting", "playing", "ended", "aborted"};
}  // namespace

std::string_view GameRoom::listed_status() const noexcept {
    return kStatusNames[listed_status_.load(std::memory_order_relaxed)];
}

void GameRoom::after_change() {
    if (is_finished(header_.status)) {
        close_agents();
    }
    const auto found = std::find(kStatusNames.begin(), kStatusNames.end(), header_.status);
    if (found != kStatusNames.end()) {
        listed_status_.store(static_cast<std::uint8_t>(found - kStatusNames.begin()),
                             std::memory_order_relaxed);
    }
    context_.host.listing_changed(summary(), header_.is_private);
}

void GameRoom::note_ended() {
    context_.metrics.game_ended();
    log_event(LogLevel::info, "game_ended",
              {{"game", id_},
               {"variant", rules::to_string(header_.variant)},
               {"status", header_.status},
               {"result", header_.result},
               {"reason", header_.reason},
               {"plies", header_.ply}});
}

RequestOrigin::RequestOrigin(const RoomRequest& request)
    : peer(request.peer),
      id(request.id),
      received(request.received),
      move(std::holds_alternative<protocol::MoveRequest>(request.body)) {}

void GameRoom::answered(std::chrono::steady_clock::time_point received) {
    context_.metrics.message_latency(
        std::chrono::duration_cast<std::chrono::microseconds>(context_.time.now() - received)
            .count());
}

void GameRoom::send(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
                    std::optional<std::string> id) {
    peer->send(std::make_shared<const std::string>(
        protocol::encode(protocol::ServerMessage{std::move(body), std::move(id)})));
}

void GameRoom::send_state(const std::shared_ptr<net::Peer>& peer, std::optional<std::string> id) {
    send(peer, state_for(seat_of(*peer)), std::move(id));
}

void GameRoom::reply_error(const RequestOrigin& request, ErrorCode code, std::string message) {
    context_.metrics.refused(code);
    const bool move = request.move;
    if (move) {
        context_.metrics.move_refused(code);
    }
    log_event(LogLevel::info, "request_refused",
              {{"peer", request.peer->id()},
               {"game", id_},
               {"request", move ? "move" : "game"},
               {"code", protocol::to_string(code)}});
    request.peer->send(
        std::make_shared<const std::string>(protocol::encode_error(code, message, request.id)));
}

void GameRoom::emit(const protocol::ServerBody& event, const std::shared_ptr<net::Peer>& requester,
                    const std::optional<std::string>& id) {
    auto text = std::make_shared<const std::string>(
        protocol::encode(protocol::ServerMessage{event, std::nullopt}));
    Event entry{0, 0, text};
    std::visit(
        [&](const auto& body) {
            using T = std::decay_t<decltype(body)>;
            if constexpr (requires { body.seq; }) {
                entry.seq = body.seq;
            }
            if constexpr (std::is_same_v<T, protocol::Moved>) {
                entry.moved_ply = body.ply;
            }
        },
        event);
    history_.push_back(entry);
    while (history_.size() > context_.config.event_history) {
        history_.pop_front();
    }
    std::shared_ptr<const std::string> own;
    if (requester && id) {
        own = std::make_shared<const std::string>(with_request_id(*text, *id));
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

std::shared_ptr<const std::string> GameRoom::moved_again(
    std::uint32_t ply, const std::optional<std::string>& id) const {
    // Newest first: after a takeback the history still holds the taken-back move's event (a
    // `since` replay needs it), and the move now at that ply came after it.
    for (auto event = history_.rbegin(); event != history_.rend(); ++event) {
        if (event->moved_ply == ply) {
            return id ? std::make_shared<const std::string>(with_request_id(*event->text, *id))
                      : event->text;
        }
    }
    // Not in memory: the server restarted since (the move was committed, its answer lost with
    // the connection), the history was cleared, or the move is older than it keeps. The event
    // is rebuilt from the moves; every field is what was sent the first time.
    // Replaying costs O(ply) rule checks; re-sends are bounded by the rate limit like any request.
    if (ply > move_seq_.size()) {
        return nullptr;
    }
    const auto game = replayed(ply);
    if (!game) {
        return nullptr;
    }
    // The game was playing after this move unless the move ended it (a resignation or a flag
    // since then came in an event of its own).
    const bool playing = !game->status().over();
    std::optional<protocol::ClockState> clock;
    if (clock_) {
        const Clocks& clocks = clock_history_[ply];
        // Clocks run from each side's first move on (start_turn), until the game ends.
        clock = protocol::ClockState{clocks[0], clocks[1], playing && ply >= 2};
    }
    return std::make_shared<const std::string>(protocol::encode(protocol::ServerMessage{
        moved_event(*game, game->position(), move_seq_[ply - 1], playing, clock), id}));
}

protocol::Moved GameRoom::moved_event(const rules::Game& after, std::string position,
                                      std::uint64_t seq, bool playing,
                                      std::optional<protocol::ClockState> clock) const {
    const auto ply = static_cast<std::uint32_t>(after.moves().size());
    return protocol::Moved{id_,
                           seq,
                           header_.variant,
                           ply,
                           after.moves().back(),
                           notation_[ply - 1],
                           std::move(position),
                           after.turn(),
                           playing ? after.legal_moves() : std::vector<std::string>{},
                           after.in_check(),
                           std::move(clock)};
}

bool GameRoom::replay_since(const std::shared_ptr<net::Peer>& peer,
                            std::optional<std::uint64_t> since,
                            const std::optional<std::string>& id) {
    // Nothing missed (since == seq) is answered with a state too: the request has a reply to wait
    // for, as every other.
    if (!since || *since >= header_.seq) {
        return false;
    }
    if (clock_ && header_.status == "playing") {
        // Events carry the clocks as they were when they happened, and a clock has run since:
        // only a state says how much time is left now (a client counting down from a replayed
        // move would show time its player no longer has).
        return false;
    }
    const bool covered = !history_.empty() && history_.front().seq <= *since + 1 &&
                         history_.back().seq == header_.seq;
    if (!covered) {
        return false;
    }
    bool first = true;
    for (const auto& event : history_) {
        if (event.seq > *since) {
            // The events are direct replies: the first echoes the request's id.
            peer->send(first && id
                           ? std::make_shared<const std::string>(with_request_id(*event.text, *id))
                           : event.text);
            first = false;
        }
    }
    return true;
}

void GameRoom::broadcast_spectators() {
    // Watchers come and go in bursts (a popular game, a game that ends and its watchers follow the
    // next one): a count to every member for each of them was quadratic, 40,000 messages when 200
    // watchers moved to a new game. The count goes out once, after the requests already on the
    // strand, and only if it changed.
    if (spectator_count_posted_) {
        return;
    }
    spectator_count_posted_ = true;
    executor_->post([weak = weak_from_this()] {
        if (auto self = weak.lock()) {
            self->send_spectator_count();
        }
    });
}

void GameRoom::send_spectator_count() {
    spectator_count_posted_ = false;
    const std::uint32_t count = spectator_count();
    if (count == spectator_count_sent_) {
        return;
    }
    spectator_count_sent_ = count;
    auto text = std::make_shared<const std::string>(protocol::encode(
        protocol::ServerMessage{protocol::SpectatorCount{id_, count}, std::nullopt}));
    for_each_connection([&](const std::shared_ptr<net::Peer>& peer) { peer->send(text); });
}

bool GameRoom::add_member(const std::shared_ptr<net::Peer>& peer, std::optional<Side> seat) {
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
    members_.push_back({peer, seat});
    publish_presence();
    return true;
}

void GameRoom::publish_presence() {
    std::uint8_t bits = 0;
    for (Side side : {Side::first, Side::second}) {
        if (seat_connected(side)) {
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
