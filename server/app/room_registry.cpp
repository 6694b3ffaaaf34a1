#include "server/app/room_registry.hpp"

#include "common/core/overloaded.hpp"
#include "common/rules/game.hpp"
#include "server/app/log.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;

namespace {

/// The game id a request is about, for those that go to a room; null for the others. A new
/// message type does not compile until it is named here.
const std::string* room_game(const protocol::ClientBody& body) {
    return std::visit(
        Overloaded{
            [](const OneOf<protocol::Join, protocol::Resume, protocol::Watch, protocol::Unwatch,
                           protocol::MoveRequest, protocol::Resign, protocol::OfferRequest,
                           protocol::Abort, protocol::Claim, protocol::ReplayRequest,
                           protocol::ChatRequest, protocol::ChatMute> auto& request)
                -> const std::string* { return &request.game; },
            [](const OneOf<protocol::Hello, protocol::Create, protocol::LobbySubscribe,
                           protocol::GamesQuery, protocol::Ping> auto&) -> const std::string* {
                return nullptr;
            },
        },
        body);
}

}  // namespace

RoomRegistry::RoomRegistry(RoomContext& context, ExecutorFactory make_executor, ReadQueue& reads,
                           Replies& replies)
    : context_(context),
      make_executor_(std::move(make_executor)),
      reads_(reads),
      replies_(replies) {}

RoomRegistry::~RoomRegistry() {
    close();
}

Expected<RoomRegistry::Restored, std::string> RoomRegistry::restore_unfinished() {
    auto stored = context_.repository.load_unfinished();
    if (!stored) {
        return unexpected(stored.error().message);
    }
    Restored restored;
    for (auto& game : *stored) {
        const std::string id = game.header.id;
        auto room = GameRoom::restore(context_, make_executor_(), std::move(game));
        if (!room) {
            // One game that does not replay (a hand edit, a rules fix that now refuses an old
            // move) must not keep every other game, and the server, down.
            log_event(LogLevel::error, "game_not_restored",
                      {{"game", id}, {"error", room.error()}});
            ++restored.not_restored;
            continue;
        }
        {
            std::lock_guard lock(mutex_);
            rooms_[id] = *room;
        }
        (*room)->start();
        ++restored.games;
    }
    return restored;
}

void RoomRegistry::add(const std::shared_ptr<GameRoom>& room) {
    std::lock_guard lock(mutex_);
    rooms_[room->id()] = room;
}

bool RoomRegistry::route(RoomRequest request) {
    const std::string* game = room_game(request.body);
    if (!game) {
        replies_.refuse(request.peer, ErrorCode::unknown_game, "no game with that id", request.id);
        return false;
    }
    {
        // Found and handed over under the lock that unload() takes: a room with a request on its
        // way stays in memory for it, and one that left is not found, so that this request
        // cannot be routed again behind a later one of its connection.
        std::lock_guard lock(mutex_);
        if (auto it = rooms_.find(*game); it != rooms_.end()) {
            it->second->submit(std::move(request));
            return true;
        }
        // Another node's game: on to it, behind this connection's requests already sent.
        if (claims_ != nullptr && !loading_.contains(*game) && claims_->forward_known(request)) {
            return true;
        }
    }
    std::string id = *game;  // `game` points into the request, which moves
    return route_after_load(id, std::move(request));
}

bool RoomRegistry::route_after_load(const std::string& game, RoomRequest request) {
    {
        std::lock_guard lock(mutex_);
        if (auto it = loading_.find(game); it != loading_.end()) {
            it->second.push_back(std::move(request));
            return true;
        }
        if (auto it = rooms_.find(game); it != rooms_.end()) {
            it->second->submit(std::move(request));  // brought back since route() looked
            return true;
        }
        loading_[game].push_back(std::move(request));
    }
    // Outside the lock: a worker that runs reads at once must be able to take it. A player's
    // read: a game request (join, resume, watch, a move ...) goes ahead of API and replay reads.
    if (reads_.try_post([this, game] { bring_back(game); }, ReadPriority::player)) {
        return true;
    }
    std::vector<RoomRequest> refused;
    {
        std::lock_guard lock(mutex_);
        refused = std::move(loading_[game]);
        loading_.erase(game);
    }
    for (const auto& waiting : refused) {
        if (!std::holds_alternative<protocol::Unwatch>(waiting.body)) {
            replies_.refuse_busy(waiting.peer, waiting.id);
        }
    }
    return false;
}

void RoomRegistry::bring_back(const std::string& game) {
    std::uint64_t departures_before = 0;
    {
        std::lock_guard lock(mutex_);
        departures_before = departures_;
    }
    // The read and the replay run without the lock, which every request's lookup takes, unless
    // rooms keep leaving memory meanwhile (then once under it, so that this ends). Only a room in
    // memory writes its game, and it leaves memory after its last write: with no room gone during
    // the read, this game had none, and the read is current; otherwise it may lack the last
    // writes of the room that left.
    for (int attempt = 1;; ++attempt) {
        const bool under_lock = attempt > kMaxUnlockedLoads;
        std::unique_lock lock(mutex_, std::defer_lock);
        std::shared_ptr<GameRoom> room;
        if (under_lock) {
            lock.lock();
            if (auto it = rooms_.find(game); it != rooms_.end()) {
                room = it->second;
            }
        }
        std::string failure;  // why the requests are refused when there is no room
        ErrorCode code = ErrorCode::unknown_game;
        std::shared_ptr<GameRoom> restored;
        std::optional<std::string> elsewhere;  // the node that owns the game, if another does
        if (!room) {
            auto stored = read_or_claim(game);
            if (!stored) {
                code = ErrorCode::unavailable;
                failure = "storage: " + stored.error().message;
            } else if (auto* owner = std::get_if<GameClaims::Elsewhere>(&*stored)) {
                elsewhere = std::move(owner->node);
            } else if (auto& found = std::get<std::optional<storage::StoredGame>>(*stored);
                       !found) {
                failure = "no game with that id";
            } else if (auto made =
                           GameRoom::restore(context_, make_executor_(), std::move(*found))) {
                restored = *made;
            } else {
                code = ErrorCode::unavailable;
                failure = "the stored game does not load";
                log_event(LogLevel::error, "game_not_restored",
                          {{"game", game}, {"error", made.error()}});
            }
        }
        if (!under_lock) {
            lock.lock();
            if (auto it = rooms_.find(game); it != rooms_.end()) {
                room = it->second;  // brought back meanwhile: the restored copy is dropped unused
            } else if (departures_ != departures_before) {
                departures_before = departures_;
                continue;
            }
        }
        auto waiting = std::move(loading_[game]);
        loading_.erase(game);
        if (!room && elsewhere) {
            // Under the lock, in arrival order: a request that comes after these goes the same
            // way (forward_known) and cannot overtake them.
            for (auto& request : waiting) {
                claims_->forward(std::move(request), *elsewhere);
            }
            return;
        }
        if (room || restored) {
            if (!room) {
                room = restored;
                rooms_[game] = room;
                parked_.remove(game);  // its room arms its own flag timer now
                room->start();
            }
            // Under the lock: a request that finds the room from now on queues behind these.
            hand_over(*room, std::move(waiting));
            return;
        }
        lock.unlock();
        for (const auto& request : waiting) {
            if (!std::holds_alternative<protocol::Unwatch>(request.body)) {
                replies_.refuse(request.peer, code, failure, request.id);
            }
        }
        return;
    }
}

Expected<GameClaims::Claim, storage::StorageError> RoomRegistry::read_or_claim(
    const std::string& game) {
    if (claims_ != nullptr) {
        return claims_->claim(game);
    }
    auto stored = context_.repository.load(game);
    if (!stored) {
        return unexpected(std::move(stored).error());
    }
    return GameClaims::Claim(std::move(*stored));
}

bool RoomRegistry::adopt(storage::StoredGame game) {
    const std::string id = game.header.id;
    auto made = GameRoom::restore(context_, make_executor_(), std::move(game));
    if (!made) {
        log_event(LogLevel::error, "game_not_restored", {{"game", id}, {"error", made.error()}});
        return false;
    }
    std::lock_guard lock(mutex_);
    if (closed_ || rooms_.contains(id) || loading_.contains(id)) {
        return true;  // in memory, or read by a request that will find it ours
    }
    rooms_[id] = *made;
    parked_.remove(id);
    (*made)->start();
    return true;
}

std::vector<std::string> RoomRegistry::evict_all(const std::string& reason) {
    std::unordered_map<std::string, std::shared_ptr<GameRoom>> rooms;
    {
        std::lock_guard lock(mutex_);
        rooms.swap(rooms_);
        // One more than the rooms: a claim under way (bring_back) read the ownership before.
        departures_ += rooms.size() + 1;
        // Their flags are the new owners' to call now.
        parked_ = FlagDeadlines{};
    }
    std::vector<std::string> games;
    games.reserve(rooms.size());
    for (auto& [id, room] : rooms) {
        room->evict(reason);
        games.push_back(id);
    }
    return games;
}

bool RoomRegistry::evict(const std::string& game, const GameRoom* room, const std::string& reason) {
    std::shared_ptr<GameRoom> evicted;
    {
        std::lock_guard lock(mutex_);
        auto it = rooms_.find(game);
        if (keep_rooms_ || it == rooms_.end() || it->second.get() != room) {
            return false;
        }
        evicted = std::move(it->second);
        rooms_.erase(it);
        departures_ += 1;
        parked_.remove(game);
    }
    evicted->evict(reason);
    return true;
}

void RoomRegistry::keep_rooms_until_stop() {
    std::lock_guard lock(mutex_);
    keep_rooms_ = true;
}

void RoomRegistry::hand_over(GameRoom& room, std::vector<RoomRequest> waiting) {
    for (auto& request : waiting) {
        if (std::holds_alternative<protocol::Unwatch>(request.body)) {
            room.unwatch(request.peer);
        } else {
            room.submit(std::move(request));
        }
    }
}

void RoomRegistry::unwatch(RoomRequest request) {
    const std::string game = std::get<protocol::Unwatch>(request.body).game;
    std::lock_guard lock(mutex_);
    if (auto it = loading_.find(game); it != loading_.end()) {
        it->second.push_back(std::move(request));  // after the watch that is bringing it back
    } else if (auto room = rooms_.find(game); room != rooms_.end()) {
        room->second->unwatch(request.peer);
    } else if (claims_ != nullptr) {
        claims_->forward_known(request);  // watched on another node
    }
}

bool RoomRegistry::unload(const std::string& game, const GameRoom* room,
                          std::optional<FlagDeadlines::TimePoint> flag_at) {
    std::lock_guard lock(mutex_);
    auto it = rooms_.find(game);
    if (it == rooms_.end() || it->second.get() != room || room->requests_in_flight() > 0) {
        return false;
    }
    rooms_.erase(it);
    departures_ += 1;
    if (flag_at) {
        parked_.add(game, *flag_at);
        arm_deadline_timer();
    }
    return true;
}

std::size_t RoomRegistry::parked() const {
    std::lock_guard lock(mutex_);
    return parked_.size();
}

void RoomRegistry::arm_deadline_timer() {
    const auto next = parked_.next();
    if (closed_ || !next || (timer_due_ && *timer_due_ <= *next)) {
        return;  // nothing to wait for, or armed for this deadline or an earlier one
    }
    if (deadline_timer_) {
        deadline_timer_->cancel();
    }
    timer_due_ = next;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*next - context_.time.now());
    if (!timer_executor_) {
        // Made at the first deadline, not with the registry: the server's executors come from its
        // network, which is made after the hub.
        timer_executor_ = make_executor_();
    }
    deadline_timer_ = timer_executor_->post_after(
        std::max(left, std::chrono::milliseconds::zero()) + std::chrono::milliseconds(1),
        [this] { on_deadline_timer(); });
}

void RoomRegistry::on_deadline_timer() {
    std::vector<std::string> due;
    {
        std::lock_guard lock(mutex_);
        if (closed_) {
            return;
        }
        timer_due_.reset();
        deadline_timer_.reset();
        for (auto& game : parked_.take_due(context_.time.now())) {
            // In memory or on its way there: its room flags it (GameRoom::flag_if_due).
            if (!rooms_.contains(game) && !loading_.contains(game)) {
                loading_[game];  // requests that come meanwhile wait for this read
                due.push_back(std::move(game));
            }
        }
        arm_deadline_timer();
    }
    for (const auto& game : due) {
        // Ahead of reads for the API: a flag that falls late is a result that is wrong.
        if (reads_.try_post([this, game] { bring_back(game); }, ReadPriority::player)) {
            continue;
        }
        std::vector<RoomRequest> refused;
        {
            std::lock_guard lock(mutex_);
            refused = std::move(loading_[game]);
            loading_.erase(game);
            parked_.add(game, context_.time.now() + kDeadlineRetry);
            arm_deadline_timer();
        }
        for (const auto& waiting : refused) {
            if (!std::holds_alternative<protocol::Unwatch>(waiting.body)) {
                replies_.refuse_busy(waiting.peer, waiting.id);
            }
        }
    }
}

std::shared_ptr<GameRoom> RoomRegistry::find(const std::string& game) const {
    std::lock_guard lock(mutex_);
    auto it = rooms_.find(game);
    return it != rooms_.end() ? it->second : nullptr;
}

std::array<bool, 2> RoomRegistry::seats_present(const std::string& game) const {
    const auto room = find(game);
    return room ? room->seats_present() : std::array<bool, 2>{};
}

std::size_t RoomRegistry::size() const {
    std::lock_guard lock(mutex_);
    return rooms_.size();
}

std::map<std::pair<std::string, std::string>, std::size_t> RoomRegistry::by_status_and_variant()
    const {
    std::map<std::pair<std::string, std::string>, std::size_t> games;
    std::lock_guard lock(mutex_);
    for (const auto& [game, room] : rooms_) {
        ++games[{std::string(protocol::to_string(room->listed_status())),
                 std::string(rules::to_string(room->variant()))}];
    }
    return games;
}

void RoomRegistry::store_clocks_at_stop() {
    std::lock_guard lock(mutex_);
    for (auto& [id, room] : rooms_) {
        room->store_clocks_at_stop();
    }
}

void RoomRegistry::close() {
    std::unordered_map<std::string, std::shared_ptr<GameRoom>> rooms;
    {
        std::lock_guard lock(mutex_);
        rooms.swap(rooms_);
        closed_ = true;
        if (deadline_timer_) {
            deadline_timer_->cancel();
            deadline_timer_.reset();
        }
        // The executor holds the network's shared state, which holds the hub that holds this
        // registry: kept, it would keep all of them alive after the server stopped.
        timer_executor_.reset();
    }
    for (auto& [id, room] : rooms) {
        room->detach();
    }
}

}  // namespace arbiter::server::app
