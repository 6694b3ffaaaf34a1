#include "server/app/hub.hpp"

#include <sys/random.h>

#include <algorithm>
#include <vector>

#include "common/protocol/codec.hpp"
#include "server/app/log.hpp"
#include "server/app/seats.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using rules::Side;

namespace {

/// Why a request that needs a read of stored games is refused when too many reads wait.
constexpr const char* busy_reading = "the server is busy reading stored games; try again shortly";

/// The game id a request is about, for those that go to a room.
const std::string* room_game(const protocol::ClientBody& body) {
    return std::visit(
        [](const auto& message) -> const std::string* {
            if constexpr (requires { message.game; }) {
                return &message.game;
            } else {
                return nullptr;
            }
        },
        body);
}

bool random_bit() {
    unsigned char byte = 0;
    while (getrandom(&byte, 1, 0) != 1) {
    }
    return (byte & 1) != 0;
}

}  // namespace

Hub::Hub(HubConfig config, storage::GameRepository& repository, const TimeSource& time,
         Metrics& metrics, ExecutorFactory make_executor, ReadWorker& reads,
         EngineDirectory* engines)
    : config_(std::move(config)),
      repository_(repository),
      time_(time),
      metrics_(metrics),
      make_executor_(std::move(make_executor)),
      reads_(reads),
      room_context_{repository, time, *this, metrics, config_.room, engines} {}

Expected<Hub::Restored, std::string> Hub::restore_games() {
    auto stored = repository_.load_unfinished();
    if (!stored) {
        return unexpected(stored.error().message);
    }
    Restored restored;
    for (auto& game : *stored) {
        const std::string id = game.header.id;
        auto room = GameRoom::restore(room_context_, make_executor_(), std::move(game));
        if (!room) {
            // One game that does not replay (a hand edit, a rules fix that now refuses an old
            // move) must not keep every other game, and the server, down.
            log_event(LogLevel::error, "game_not_restored",
                      {{"game", id}, {"error", room.error()}});
            ++restored.not_restored;
            continue;
        }
        {
            std::lock_guard lock(rooms_mutex_);
            rooms_[id] = *room;
        }
        (*room)->start();
        ++restored.games;
    }
    return restored;
}

// ---- connections --------------------------------------------------------------------------

void Hub::on_open(const std::shared_ptr<net::Peer>& peer) {
    {
        std::lock_guard lock(peers_mutex_);
        PeerState state;
        state.tokens = config_.message_burst;
        state.refilled = time_.now();
        peers_[peer->id()] = std::move(state);
    }
    log_event(LogLevel::info, "connection_opened",
              {{"peer", peer->id()}, {"address", peer->address()}});
}

void Hub::on_close(const std::shared_ptr<net::Peer>& peer) {
    log_event(LogLevel::info, "connection_closed",
              {{"peer", peer->id()}, {"address", peer->address()}});
    if (closed_) {
        // The network is being torn down: its executors no longer run what is posted to them.
        return;
    }
    std::set<std::string> rooms;
    {
        std::lock_guard lock(peers_mutex_);
        auto it = peers_.find(peer->id());
        if (it != peers_.end()) {
            rooms = std::move(it->second.rooms);
            peers_.erase(it);
        }
    }
    {
        std::lock_guard lock(lobby_mutex_);
        lobby_subscribers_.erase(peer->id());
    }
    for (const auto& game : rooms) {
        std::shared_ptr<GameRoom> room;
        {
            std::lock_guard lock(rooms_mutex_);
            auto it = rooms_.find(game);
            if (it != rooms_.end()) {
                room = it->second;
            }
        }
        if (room) {
            room->leave(peer);
        }
    }
}

void Hub::on_too_large(const std::shared_ptr<net::Peer>& peer) {
    refuse(peer, ErrorCode::too_large, "the message is over the size limit", std::nullopt);
}

bool Hub::admit(const std::shared_ptr<net::Peer>& peer, std::string_view text) {
    bool close = false;
    bool first = false;
    {
        std::lock_guard lock(peers_mutex_);
        auto it = peers_.find(peer->id());
        if (it == peers_.end()) {
            return false;
        }
        auto& state = it->second;
        const auto now = time_.now();
        const double seconds = std::chrono::duration<double>(now - state.refilled).count();
        state.tokens =
            std::min(config_.message_burst, state.tokens + seconds * config_.messages_per_second);
        state.refilled = now;
        if (state.tokens >= 1) {
            state.tokens -= 1;
            state.refused_in_row = 0;
            return true;
        }
        close = ++state.refused_in_row > config_.max_refused_in_row;
        first = state.refused_in_row == 1;
    }
    metrics_.rate_limited();
    // One line per burst, not per refused message: a flood must not flood the log too.
    if (first || close) {
        log_event(LogLevel::warn, close ? "flood_closed" : "rate_limited",
                  {{"peer", peer->id()}, {"address", peer->address()}});
    }
    if (close) {
        peer->close(net::CloseCode::policy_violation, "message flood");
    } else {
        // The refusal answers the request by its id, so a client waiting for that answer is
        // not left waiting. Reading the id costs a parse, as admitting the message would have,
        // and refusals in a row are bounded (max_refused_in_row, then the close).
        const auto decoded = protocol::decode(text);
        refuse(peer, ErrorCode::rate_limited, "too many messages; slow down",
               decoded ? decoded->id : decoded.error().id);
    }
    return false;
}

void Hub::on_message(const std::shared_ptr<net::Peer>& peer, std::string_view text) {
    const auto received = time_.now();
    // Rooms time the requests they take (GameRoom::answered); the hub times the rest.
    bool routed = false;
    const auto answered = [&] {
        if (!routed) {
            metrics_.message_latency(
                std::chrono::duration_cast<std::chrono::microseconds>(time_.now() - received)
                    .count());
        }
    };
    if (!admit(peer, text)) {
        return answered();
    }
    auto decoded = protocol::decode(text);
    if (!decoded) {
        refuse(peer, decoded.error().code, decoded.error().message, decoded.error().id);
        return answered();
    }
    auto& message = *decoded;
    std::visit(
        [&](auto& body) {
            using T = std::decay_t<decltype(body)>;
            if constexpr (std::is_same_v<T, protocol::Hello>) {
                {
                    std::lock_guard lock(peers_mutex_);
                    if (auto it = peers_.find(peer->id()); it != peers_.end()) {
                        it->second.name = body.name;
                    }
                }
                reply(peer,
                      protocol::Welcome{config_.server_name, protocol::kProtocolVersion,
                                        room_context_.engines != nullptr
                                            ? room_context_.engines->offered()
                                            : std::vector<protocol::EngineInfo>{}},
                      message.id);
            } else if constexpr (std::is_same_v<T, protocol::Ping>) {
                reply(peer, protocol::Pong{}, message.id);
            } else if constexpr (std::is_same_v<T, protocol::Create>) {
                on_create(peer, body, message.id);
            } else if constexpr (std::is_same_v<T, protocol::LobbySubscribe>) {
                // The first list is the direct reply (it echoes the id); updates follow without.
                // Sent under the lock, like the updates: a later list never arrives before it.
                std::lock_guard lock(lobby_mutex_);
                lobby_subscribers_[peer->id()] = peer;
                auto text_now = lobby_text();
                peer->send(message.id ? std::make_shared<const std::string>(
                                            with_request_id(*text_now, *message.id))
                                      : text_now);
            } else if constexpr (std::is_same_v<T, protocol::GamesQuery>) {
                on_games(peer, body, message.id);
            } else if constexpr (std::is_same_v<T, protocol::ReplayRequest>) {
                on_replay(peer, body.game, message.id);
            } else if constexpr (std::is_same_v<T, protocol::Unwatch>) {
                unwatch(RoomRequest{peer, message.id, std::move(body), {}, received});
            } else {
                routed = route(
                    RoomRequest{peer, message.id, std::move(body), peer_name(*peer), received});
            }
        },
        message.body);
    answered();
}

std::string Hub::peer_name(const net::Peer& peer) {
    std::lock_guard lock(peers_mutex_);
    auto it = peers_.find(peer.id());
    return it == peers_.end() ? "Anonymous" : it->second.name;
}

void Hub::reply(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
                const std::optional<std::string>& id) {
    peer->send(std::make_shared<const std::string>(
        protocol::encode(protocol::ServerMessage{std::move(body), id})));
}

void Hub::refuse(const std::shared_ptr<net::Peer>& peer, ErrorCode code, std::string message,
                 const std::optional<std::string>& id) {
    metrics_.refused(code);
    if (code != ErrorCode::rate_limited) {
        log_event(LogLevel::info, "request_refused",
                  {{"peer", peer->id()}, {"code", protocol::to_string(code)}});
    }
    peer->send(std::make_shared<const std::string>(protocol::encode_error(code, message, id)));
}

// ---- games --------------------------------------------------------------------------------

void Hub::on_create(const std::shared_ptr<net::Peer>& peer, const protocol::Create& create,
                    const std::optional<std::string>& id) {
    auto game = rules::make_game(create.variant, create.position);
    if (!game) {
        refuse(peer, ErrorCode::bad_request, "position: " + game.error().message, id);
        return;
    }
    if ((*game)->status().over()) {
        refuse(peer, ErrorCode::bad_request, "position: the game is already over there", id);
        return;
    }
    if (auto refusal = open_game_refusal(peer)) {
        refuse(peer, ErrorCode::not_allowed, *refusal, id);
        return;
    }
    storage::GameRow header;
    header.id = new_game_id();
    header.variant = create.variant;
    header.initial_position = (*game)->initial_position();
    header.is_private = create.is_private;
    if (create.clock) {
        header.clock_initial_ms = create.clock->initial_ms;
        header.clock_increment_ms = create.clock->increment_ms;
    }
    header.status = "waiting";
    header.created_ms = time_.unix_ms();
    header.updated_ms = header.created_ms;
    Side side = Side::first;
    if (create.side == protocol::SidePreference::second ||
        (create.side == protocol::SidePreference::random && random_bit())) {
        side = Side::second;
    }
    std::array<std::optional<SeatSpec>, 2> seats;
    seats[seat_index(side)] = SeatSpec{peer_name(*peer), new_seat_token(), {peer}, "", 0};
    if (create.opponent) {
        // The engine takes the other seat and the game starts at once.
        auto name = room_context_.engines != nullptr
                        ? room_context_.engines->seat_name(create.opponent->engine, create.variant,
                                                           create.opponent->level)
                        : Expected<std::string, std::string>(
                              unexpected(std::string("this server offers no engines")));
        if (!name) {
            refuse(peer, ErrorCode::engine_unavailable, name.error(), id);
            return;
        }
        seats[seat_index(rules::opponent(side))] =
            SeatSpec{*name, new_seat_token(), {}, create.opponent->engine, create.opponent->level};
        header.status = "playing";
    }
    auto room = GameRoom::create(room_context_, make_executor_(), header, std::move(game).value(),
                                 std::move(seats), id);
    {
        std::lock_guard lock(rooms_mutex_);
        rooms_[header.id] = room;
    }
    {
        std::lock_guard lock(peers_mutex_);
        if (auto it = peers_.find(peer->id()); it != peers_.end()) {
            it->second.created_open[header.id] = create.opponent.has_value();
        }
    }
    room->begin_creation();
}

std::optional<std::string> Hub::open_game_refusal(const std::shared_ptr<net::Peer>& peer) {
    const auto refusal = [this] {
        return "this connection already has " +
               std::to_string(config_.max_open_games_per_connection) +
               " open games (waiting for an opponent, or against an engine): finish or abort one "
               "first";
    };
    std::map<std::string, bool> created;
    {
        std::lock_guard lock(peers_mutex_);
        auto it = peers_.find(peer->id());
        if (it == peers_.end()) {
            return refusal();  // closed meanwhile
        }
        created = it->second.created_open;
    }
    // A game no longer in memory is over, or nobody is in it (unloaded, or its creation was
    // never stored): it costs nothing.
    std::vector<std::string> closed;
    for (const auto& [game, against_engine] : created) {
        auto room = room_in_memory(game);
        if (!room || (against_engine ? is_finished(room->listed_status())
                                     : room->listed_status() != "waiting")) {
            closed.push_back(game);
        }
    }
    std::lock_guard lock(peers_mutex_);
    auto it = peers_.find(peer->id());
    if (it == peers_.end()) {
        return refusal();
    }
    for (const auto& game : closed) {
        it->second.created_open.erase(game);
    }
    if (it->second.created_open.size() < config_.max_open_games_per_connection) {
        return std::nullopt;
    }
    return refusal();
}

void Hub::start_rematch(const storage::GameRow& finished, const std::string& id,
                        std::array<SeatSpec, 2> seats) {
    storage::GameRow header;
    header.id = id;
    header.variant = finished.variant;
    header.initial_position = finished.initial_position;
    header.is_private = finished.is_private;
    header.clock_initial_ms = finished.clock_initial_ms;
    header.clock_increment_ms = finished.clock_increment_ms;
    header.status = "playing";
    header.created_ms = time_.unix_ms();
    header.updated_ms = header.created_ms;
    header.rematch_of = finished.id;
    auto game = rules::make_game(finished.variant, finished.initial_position);
    // A rematch against an engine is an open game of its players' connections, as one they
    // created (--max-open-games): else create, resign, rematch, create ... piled them up.
    std::vector<std::shared_ptr<net::Peer>> against_engine;
    for (std::size_t i = 0; i < 2; ++i) {
        if (!seats[1 - i].engine.empty()) {
            against_engine = seats[i].peers;
        }
    }
    std::array<std::optional<SeatSpec>, 2> seated = {std::move(seats[0]), std::move(seats[1])};
    auto room = GameRoom::create(room_context_, make_executor_(), header, std::move(game).value(),
                                 std::move(seated), std::nullopt);
    {
        std::lock_guard lock(rooms_mutex_);
        rooms_[header.id] = room;
    }
    {
        std::lock_guard lock(peers_mutex_);
        for (const auto& peer : against_engine) {
            if (auto it = peers_.find(peer->id()); it != peers_.end()) {
                it->second.created_open[header.id] = true;
            }
        }
    }
    room->begin_creation();
}

bool Hub::route_after_load(const std::string& game, RoomRequest request) {
    {
        std::lock_guard lock(loads_mutex_);
        if (auto it = loading_.find(game); it != loading_.end()) {
            it->second.push_back(std::move(request));
            return true;
        }
        std::lock_guard rooms(rooms_mutex_);  // see route()
        if (auto it = rooms_.find(game); it != rooms_.end()) {
            it->second->submit(std::move(request));  // brought back since route() looked
            return true;
        }
        loading_[game].push_back(std::move(request));
    }
    // Outside the lock: a worker that runs reads at once must be able to take it.
    if (reads_.try_post([this, game] { bring_back(game); })) {
        return true;
    }
    std::vector<RoomRequest> refused;
    {
        std::lock_guard lock(loads_mutex_);
        refused = std::move(loading_[game]);
        loading_.erase(game);
    }
    for (const auto& waiting : refused) {
        refuse_busy(waiting.peer, waiting.id);
    }
    return false;
}

void Hub::bring_back(const std::string& game) {
    std::uint64_t dropped_before = 0;
    {
        std::lock_guard lock(rooms_mutex_);
        dropped_before = rooms_dropped_;
    }
    // The read and the replay run without the locks, which every request's lookup takes, unless
    // rooms keep leaving memory meanwhile (then once under them, so that this ends). Only a room
    // in memory writes its game, and it leaves memory after its last write: with no room gone
    // during the read, this game had none, and the read is current; otherwise it may lack the
    // last writes of the room that left.
    for (int attempt = 1;; ++attempt) {
        const bool under_locks = attempt > max_unlocked_loads;
        std::unique_lock loads(loads_mutex_, std::defer_lock);
        std::unique_lock rooms(rooms_mutex_, std::defer_lock);
        std::shared_ptr<GameRoom> room;
        if (under_locks) {
            loads.lock();
            rooms.lock();
            if (auto it = rooms_.find(game); it != rooms_.end()) {
                room = it->second;
            }
        }
        std::string failure;  // why the requests are refused when there is no room
        ErrorCode code = ErrorCode::unknown_game;
        std::shared_ptr<GameRoom> restored;
        if (!room) {
            auto stored = repository_.load(game);
            if (!stored) {
                code = ErrorCode::unavailable;
                failure = "storage: " + stored.error().message;
            } else if (!*stored) {
                failure = "no game with that id";
            } else if (auto made = GameRoom::restore(room_context_, make_executor_(),
                                                     std::move(**stored))) {
                restored = *made;
            } else {
                code = ErrorCode::unavailable;
                failure = "the stored game does not load";
                log_event(LogLevel::error, "game_not_restored",
                          {{"game", game}, {"error", made.error()}});
            }
        }
        if (!under_locks) {
            loads.lock();
            rooms.lock();
            if (auto it = rooms_.find(game); it != rooms_.end()) {
                room = it->second;  // brought back meanwhile: the restored copy is dropped unused
            } else if (rooms_dropped_ != dropped_before) {
                dropped_before = rooms_dropped_;
                continue;
            }
        }
        auto waiting = std::move(loading_[game]);
        loading_.erase(game);
        if (room || restored) {
            if (!room) {
                room = restored;
                rooms_[game] = room;
                room->start();
            }
            // Under the locks: a request that finds the room from now on queues behind these.
            for (auto& request : waiting) {
                if (std::holds_alternative<protocol::Unwatch>(request.body)) {
                    stop_watching(request.peer, *room);
                } else {
                    room->submit(std::move(request));
                }
            }
            return;
        }
        rooms.unlock();
        loads.unlock();
        for (const auto& request : waiting) {
            if (!std::holds_alternative<protocol::Unwatch>(request.body)) {
                refuse(request.peer, code, failure, request.id);
            }
        }
        return;
    }
}

bool Hub::unload_room(const std::string& game, const GameRoom* room) {
    std::lock_guard lock(rooms_mutex_);
    auto it = rooms_.find(game);
    if (it == rooms_.end() || it->second.get() != room || room->requests_in_flight() > 0) {
        return false;
    }
    rooms_.erase(it);
    rooms_dropped_ += 1;
    return true;
}

bool Hub::route(RoomRequest request) {
    const std::string* game = room_game(request.body);
    if (!game) {
        refuse(request.peer, ErrorCode::unknown_game, "no game with that id", request.id);
        return false;
    }
    {
        // Found and handed over under the lock that unload_room() takes: a room with a request on
        // its way stays in memory for it, and one that left is not found, so that this request
        // cannot be routed again behind a later one of its connection.
        std::lock_guard lock(rooms_mutex_);
        if (auto it = rooms_.find(*game); it != rooms_.end()) {
            it->second->submit(std::move(request));
            return true;
        }
    }
    std::string id = *game;  // `game` points into the request, which moves
    return route_after_load(id, std::move(request));
}

void Hub::refuse_busy(const std::shared_ptr<net::Peer>& peer,
                      const std::optional<std::string>& id) {
    metrics_.refused(ErrorCode::unavailable);
    // A flood is refused by the thousand: one line a second says so, not one per request
    // (arbiter_reads_total counts them all).
    if (busy_log_.allow(time_.now())) {
        log_event(LogLevel::warn, "reads_refused",
                  {{"peer", peer->id()}, {"address", peer->address()}});
    }
    peer->send(std::make_shared<const std::string>(
        protocol::encode_error(ErrorCode::unavailable, busy_reading, id)));
}

void Hub::unwatch(RoomRequest request) {
    const std::string game = std::get<protocol::Unwatch>(request.body).game;
    {
        std::lock_guard lock(loads_mutex_);
        if (auto it = loading_.find(game); it != loading_.end()) {
            it->second.push_back(std::move(request));  // after the watch that is bringing it back
            return;
        }
    }
    // A game not in memory has nobody in it: there is nothing to leave.
    if (auto room = room_in_memory(game)) {
        stop_watching(request.peer, *room);
    }
}

void Hub::stop_watching(const std::shared_ptr<net::Peer>& peer, GameRoom& room) {
    room.unwatch(peer);
    std::lock_guard lock(peers_mutex_);
    // find, not []: an unwatch that waited for a game's read may come after the close, and the
    // closed connection must not come back as an entry nobody removes.
    if (auto it = peers_.find(peer->id());
        it != peers_.end() && !it->second.seated_in.contains(room.id())) {
        it->second.rooms.erase(room.id());
    }
}

std::array<bool, 2> Hub::seats_present(const std::string& game) const {
    const auto room = room_in_memory(game);
    return room ? room->seats_present() : std::array<bool, 2>{};
}

void Hub::read_stored(const std::shared_ptr<net::Peer>& peer, const std::optional<std::string>& id,
                      std::function<void()> read) {
    if (!reads_.try_post(std::move(read))) {
        refuse_busy(peer, id);
    }
}

void Hub::reroute(RoomRequest request) {
    log_event(LogLevel::debug, "request_rerouted", {{"peer", request.peer->id()}});
    route(std::move(request));
}

std::shared_ptr<GameRoom> Hub::room_in_memory(const std::string& game) const {
    std::lock_guard lock(rooms_mutex_);
    auto it = rooms_.find(game);
    return it != rooms_.end() ? it->second : nullptr;
}

bool Hub::member_joined(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                        bool seated, const std::string& rematch_of) {
    std::set<std::string> before;
    {
        // on_close takes the peer's rooms under this lock: a room added before it is left at the
        // close, and after it the peer is gone and the room is told so.
        std::lock_guard lock(peers_mutex_);
        auto it = peers_.find(peer->id());
        if (it == peers_.end()) {
            return false;
        }
        before = it->second.rooms;
        it->second.rooms.insert(game);
        if (seated) {
            it->second.seated_in.insert(game);
        }
    }
    leave_finished(peer, game, rematch_of, before);
    return true;
}

void Hub::member_left(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                      bool still_seated, bool still_member) {
    std::lock_guard lock(peers_mutex_);
    if (auto it = peers_.find(peer->id()); it != peers_.end()) {
        if (!still_seated) {
            it->second.seated_in.erase(game);
        }
        if (!still_member) {
            it->second.rooms.erase(game);
        }
    }
}

void Hub::leave_finished(const std::shared_ptr<net::Peer>& peer, const std::string& entered,
                         const std::string& keep, const std::set<std::string>& rooms) {
    // A finished room leaves memory once nobody is in it (GameRoom::leave_memory), but a connection
    // stayed in every game it played or watched until it closed: a player who plays game after game
    // on one connection kept each finished room (its game, history and last events, ~230 KB after
    // a ~330-ply game) alive, and the server grew by ~16 MB/s under arbiter-load (issue 9).
    // Entering another game is the sign that a connection is done with the finished ones. The
    // game this one is the rematch of stays: its members hear the `rematch` event there after
    // they have been seated here.
    std::vector<std::shared_ptr<GameRoom>> finished;
    for (const auto& game : rooms) {
        if (game == entered || game == keep) {
            continue;
        }
        if (auto room = room_in_memory(game); room && is_finished(room->listed_status())) {
            finished.push_back(std::move(room));
        }
    }
    if (finished.empty()) {
        return;
    }
    {
        std::lock_guard lock(peers_mutex_);
        if (auto it = peers_.find(peer->id()); it != peers_.end()) {
            for (const auto& room : finished) {
                it->second.rooms.erase(room->id());
                it->second.seated_in.erase(room->id());
            }
        }
    }
    for (const auto& room : finished) {
        room->leave(peer);
    }
}

void Hub::on_games(const std::shared_ptr<net::Peer>& peer, const protocol::GamesQuery& query,
                   const std::optional<std::string>& id) {
    storage::GameQuery filter;
    if (query.status) {
        filter.status = std::string(protocol::to_string(*query.status));
    }
    filter.variant = query.variant;
    filter.limit = static_cast<std::size_t>(query.limit);
    filter.before = query.before;
    read_stored(peer, id, [this, peer, filter, id] {
        auto rows = repository_.list(filter);
        if (!rows) {
            refuse(peer, ErrorCode::unavailable, "storage: " + rows.error().message, id);
            return;
        }
        protocol::GamesList list;
        for (const auto& row : *rows) {
            list.games.push_back(summary_of(row, seats_present(row.id)));
        }
        reply(peer, std::move(list), id);
    });
}

void Hub::on_replay(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                    const std::optional<std::string>& id) {
    read_stored(peer, id, [this, peer, game, id] {
        auto stored = repository_.load(game);
        if (!stored) {
            refuse(peer, ErrorCode::unavailable, "storage: " + stored.error().message, id);
            return;
        }
        if (!*stored) {
            refuse(peer, ErrorCode::unknown_game, "no game with that id", id);
            return;
        }
        reply(peer, record_of(**stored, seats_present(game)), id);
    });
}

// ---- lobby --------------------------------------------------------------------------------

std::shared_ptr<const std::string> Hub::lobby_text() const {
    protocol::LobbyList list;
    for (const auto& [id, summary] : open_games_) {
        list.games.push_back(summary);
    }
    std::sort(list.games.begin(), list.games.end(),
              [](const auto& a, const auto& b) { return a.created_ms > b.created_ms; });
    if (list.games.size() > config_.lobby_size) {
        list.games.resize(config_.lobby_size);
    }
    return std::make_shared<const std::string>(
        protocol::encode(protocol::ServerMessage{std::move(list), std::nullopt}));
}

void Hub::listing_changed(const protocol::GameSummary& summary, bool is_private) {
    // Rooms change on several threads. Each list is sent under the lock that made it: sent
    // after the lock, two rooms' lists could reach a subscriber in reverse order and leave it
    // holding the older one. send() only queues, so the lock is held for an append per
    // subscriber.
    std::lock_guard lock(lobby_mutex_);
    const bool listed = open_games_.count(summary.game) != 0;
    const bool open = !is_private && summary.status == protocol::GameStatus::waiting;
    if (!open && !listed) {
        return;
    }
    if (open) {
        open_games_[summary.game] = summary;
    } else {
        open_games_.erase(summary.game);
    }
    const auto text = lobby_text();
    for (auto it = lobby_subscribers_.begin(); it != lobby_subscribers_.end();) {
        if (auto peer = it->second.lock()) {
            peer->send(text);
            ++it;
        } else {
            it = lobby_subscribers_.erase(it);
        }
    }
}

void Hub::store_clocks_at_stop() {
    std::lock_guard lock(rooms_mutex_);
    for (auto& [id, room] : rooms_) {
        room->store_clocks_at_stop();
    }
}

void Hub::close() {
    closed_ = true;
    std::unordered_map<std::string, std::shared_ptr<GameRoom>> rooms;
    {
        std::lock_guard lock(rooms_mutex_);
        rooms.swap(rooms_);
    }
    for (auto& [id, room] : rooms) {
        room->detach();
    }
    std::lock_guard lock(lobby_mutex_);
    lobby_subscribers_.clear();
    open_games_.clear();
}

}  // namespace arbiter::server::app
