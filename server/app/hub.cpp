#include "server/app/hub.hpp"

#include "common/core/overloaded.hpp"
#include "common/protocol/codec.hpp"
#include "server/app/cluster_link.hpp"
#include "server/app/hello_identity.hpp"
#include "server/app/log.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;

namespace {

/// The requests a room answers: the hub routes them to their game's room.
template <class T>
concept GameRequest = std::same_as<T, protocol::Join> || std::same_as<T, protocol::Resume> ||
    std::same_as<T, protocol::Watch> || std::same_as<T, protocol::MoveRequest> ||
    std::same_as<T, protocol::Resign> || std::same_as<T, protocol::OfferRequest> ||
    std::same_as<T, protocol::Abort> || std::same_as<T, protocol::Claim> ||
    std::same_as<T, protocol::ChatMute>;

/// Whether a request goes to a room (what a cluster node forwards to a game's owner).
bool is_room_request(const protocol::ClientBody& body) {
    return std::visit(
        Overloaded{
            [](const OneOf<protocol::Join, protocol::Resume, protocol::Watch, protocol::Unwatch,
                           protocol::MoveRequest, protocol::Resign, protocol::OfferRequest,
                           protocol::Abort, protocol::Claim, protocol::ChatRequest,
                           protocol::ChatMute> auto&) { return true; },
            [](const OneOf<protocol::Hello, protocol::Create, protocol::LobbySubscribe,
                           protocol::GamesQuery, protocol::Ping, protocol::ReplayRequest> auto&) {
                return false;
            },
        },
        body);
}

ClientLimitsConfig limits_of(const HubConfig& config) {
    return {config.messages_per_second, config.message_burst, config.max_refused_in_row,
            config.max_open_games, config.max_creates_per_minute};
}

}  // namespace

Hub::Hub(HubConfig config, storage::GameRepository& repository, const TimeSource& time,
         Metrics& metrics, ExecutorFactory make_executor, ReadQueue& reads,
         EngineDirectory* engines, RatingBook* ratings, const AccountDirectory* accounts)
    : config_(std::move(config)),
      time_(time),
      metrics_(metrics),
      make_executor_(std::move(make_executor)),
      reads_(reads),
      accounts_(accounts),
      room_context_{repository, time, *this, metrics, config_.room, engines, ratings},
      replies_(metrics, time),
      limits_(limits_of(config_)),
      chat_rates_(config_.chat_per_second, config_.chat_burst),
      lobby_(config_.lobby_size),
      registry_(room_context_, make_executor_, reads, replies_),
      pruner_(repository, time, config_.prune_aborted_after) {}

Expected<Hub::Restored, std::string> Hub::restore_games() {
    auto restored = registry_.restore_unfinished();
    if (restored) {
        pruner_.start(make_executor_());
    }
    return restored;
}

Expected<Hub::Restored, std::string> Hub::start_without_restore() {
    pruner_.start(make_executor_());
    return Restored{};
}

ClientKey Hub::client_of(const net::Peer& peer) {
    const auto& client = peer.client();
    return client.local ? ClientKey::connection(peer.id()) : ClientKey::address(client.key);
}

// ---- connections --------------------------------------------------------------------------

void Hub::on_open(const std::shared_ptr<net::Peer>& peer) {
    connections_.opened(peer->id());
    limits_.connected(client_of(*peer), time_.now());
    // The upgrade's session cookie signs the connection in; an unknown one leaves a guest.
    std::optional<AccountUser> user;
    if (accounts_ != nullptr) {
        user = cookie_user(peer->upgrade_cookie(), *accounts_);
    }
    log_event(LogLevel::info, "connection_opened",
              {{"peer", peer->id()},
               {"address", peer->address()},
               {"user", user ? user->username : std::string()}});
    if (user) {
        connections_.set_user(peer->id(), std::move(user));
    }
}

void Hub::on_hello(const std::shared_ptr<net::Peer>& peer, const protocol::Hello& hello,
                   const std::optional<std::string>& id) {
    if (accounts_ == nullptr) {
        if (hello.token) {
            return replies_.refuse(peer, ErrorCode::unauthorized,
                                   "this server has no accounts: sign-in is not possible", id);
        }
        connections_.set_name(peer->id(), hello.name);
    } else {
        const auto outcome = decide_hello(connections_.user_of(peer->id()), hello, *accounts_);
        if (const auto* refused = std::get_if<HelloOutcome::Refused>(&outcome.result)) {
            return replies_.refuse(peer, refused->code, refused->message, id);
        }
        if (const auto* signed_in = std::get_if<HelloOutcome::SignedIn>(&outcome.result)) {
            connections_.set_user(peer->id(), signed_in->user);
        } else {
            connections_.set_name(peer->id(), std::get<HelloOutcome::Guest>(outcome.result).name);
        }
    }
    const auto user = connections_.user_of(peer->id());
    replies_.reply(peer,
                   protocol::Welcome{
                       config_.server_name, protocol::kProtocolVersion,
                       room_context_.engines != nullptr ? room_context_.engines->offered()
                                                        : std::vector<protocol::EngineInfo>{},
                       user ? std::optional(protocol::SignedInUser{user->username}) : std::nullopt},
                   id);
}

void Hub::drop_deleted_account(const net::Peer& peer) {
    if (accounts_ == nullptr) {
        return;
    }
    if (const auto user = connections_.user_of(peer.id()); user && accounts_->deleted(user->id)) {
        connections_.set_user(peer.id(), std::nullopt);
    }
}

void Hub::on_close(const std::shared_ptr<net::Peer>& peer) {
    log_event(LogLevel::info, "connection_closed",
              {{"peer", peer->id()}, {"address", peer->address()}});
    if (closed_) {
        // The network is being torn down: its executors no longer run what is posted to them.
        return;
    }
    const auto now = time_.now();
    limits_.disconnected(client_of(*peer), now);
    limits_.forget_idle(now, [this](const std::string& game, bool against_engine) {
        return still_open(game, against_engine);
    });
    lobby_.unsubscribe(peer->id());
    replay_watchers_.forget(peer->id());
    if (link_ != nullptr && !ClusterLink::is_remote(*peer)) {
        link_->connection_closed(*peer);  // the nodes its requests went to hear of it
    }
    for (const auto& game : connections_.closed(peer->id())) {
        if (auto room = registry_.find(game)) {
            room->leave(peer);
        }
    }
}

void Hub::on_too_large(const std::shared_ptr<net::Peer>& peer) {
    replies_.refuse(peer, ErrorCode::too_large, "the message is over the size limit", std::nullopt);
}

bool Hub::admit(const std::shared_ptr<net::Peer>& peer, std::string_view text) {
    const auto admission = limits_.admit(client_of(*peer), time_.now());
    switch (admission) {
        case Admission::admitted:
            return true;
        case Admission::unknown:
            return false;
        case Admission::close:
            metrics_.rate_limited();
            log_event(LogLevel::warn, "flood_closed",
                      {{"peer", peer->id()}, {"address", peer->address()}});
            peer->close(net::CloseCode::policy_violation, "message flood");
            return false;
        case Admission::first_refused:
        case Admission::refused:
            break;
    }
    metrics_.rate_limited();
    // One line per burst, not per refused message: a flood must not flood the log too.
    if (admission == Admission::first_refused) {
        log_event(LogLevel::warn, "rate_limited",
                  {{"peer", peer->id()}, {"address", peer->address()}});
    }
    // The refusal answers the request by its id, so a client waiting for that answer is not left
    // waiting. Reading the id costs a parse, as admitting the message would have, and refusals
    // in a row are bounded (max_refused_in_row, then the close).
    const auto decoded = protocol::decode(text);
    replies_.refuse(peer, ErrorCode::rate_limited, "too many messages; slow down",
                    decoded ? decoded->id : decoded.error().id);
    return false;
}

void Hub::on_message(const std::shared_ptr<net::Peer>& peer, std::string_view text) {
    const auto received = time_.now();
    // Rooms time the requests they take (GameRoom::answered); the hub times the rest.
    bool routed = false;
    // A deleted account's connections are guests from their next message on.
    drop_deleted_account(*peer);
    if (admit(peer, text)) {
        if (auto decoded = protocol::decode(text)) {
            routed = dispatch(peer, std::move(*decoded), received);
        } else {
            replies_.refuse(peer, decoded.error().code, decoded.error().message,
                            decoded.error().id);
        }
    }
    if (!routed) {
        metrics_.message_latency(
            std::chrono::duration_cast<std::chrono::microseconds>(time_.now() - received).count());
    }
}

bool Hub::dispatch(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                   std::chrono::steady_clock::time_point received, std::uint64_t hops) {
    const auto& id = message.id;
    const auto route = [&](RoomRequest request) {
        request.hops = hops;
        return registry_.route(std::move(request));
    };
    // One case per message type, and no default: a new type does not compile until it is
    // handled here.
    return std::visit(
        Overloaded{
            [&](protocol::Hello& hello) {
                on_hello(peer, hello, id);
                return false;
            },
            [&](protocol::Ping&) {
                replies_.reply(peer, protocol::Pong{}, id);
                return false;
            },
            [&](protocol::Create& create) {
                on_create(peer, create, id);
                return false;
            },
            [&](protocol::LobbySubscribe& lobby) {
                on_lobby(peer, lobby, id);
                return false;
            },
            [&](protocol::GamesQuery& query) {
                on_games(peer, query, id);
                return false;
            },
            [&](protocol::ReplayRequest& replay) {
                on_replay(peer, replay.game, id);
                return false;
            },
            [&](protocol::Unwatch& unwatch) {
                RoomRequest request{peer, id, std::move(unwatch), {}, received};
                request.hops = hops;
                registry_.unwatch(std::move(request));
                return false;
            },
            // Only a join and a watch take the connection's name (a seat and `spectators` show
            // it); a move need not pay for the lookup's lock and copy.
            [&](protocol::Join& join) {
                return route(RoomRequest{peer, id, std::move(join),
                                         connections_.name_of(peer->id()), received,
                                         connections_.user_of(peer->id())});
            },
            // A watcher is named in `spectators`, marked a guest unless signed in.
            [&](protocol::Watch& watch) {
                return route(RoomRequest{peer, id, std::move(watch),
                                         connections_.name_of(peer->id()), received,
                                         connections_.user_of(peer->id())});
            },
            // A resume may find its seat by the connection's account (issue 40).
            [&](protocol::Resume& resume) {
                return route(RoomRequest{
                    peer, id, std::move(resume), {}, received, connections_.user_of(peer->id())});
            },
            [&](protocol::ChatRequest& chat) { return on_chat(peer, chat, id, received, hops); },
            [&]<GameRequest Request>(Request& request) {
                return route(RoomRequest{peer, id, std::move(request), {}, received});
            },
        },
        message.body);
}

bool Hub::on_chat(const std::shared_ptr<net::Peer>& peer, protocol::ChatRequest& chat,
                  const std::optional<std::string>& id,
                  std::chrono::steady_clock::time_point received, std::uint64_t hops) {
    if (const auto wait = chat_rates_.take(std::to_string(peer->id()), received)) {
        const auto wait_ms =
            std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::milliseconds>(*wait).count());
        metrics_.rate_limited();
        replies_.refuse(peer, ErrorCode::rate_limited,
                        "too many chat messages; try again in " + std::to_string(wait_ms) + " ms",
                        id);
        return false;
    }
    RoomRequest request{peer, id, std::move(chat), connections_.name_of(peer->id()), received};
    request.hops = hops;
    return registry_.route(std::move(request));
}

// ---- what the rooms report ----------------------------------------------------------------

void Hub::listing_changed(const protocol::GameSummary& summary, bool is_private) {
    lobby_.changed(summary, is_private);
}

std::optional<std::string> Hub::open_game_refusal(const std::shared_ptr<net::Peer>& peer) {
    return limits_.open_game_refusal(client_of(*peer),
                                     [this](const std::string& game, bool against_engine) {
                                         return still_open(game, against_engine);
                                     });
}

bool Hub::member_joined(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                        bool seated, const std::string& rematch_of) {
    auto before = connections_.joined(peer->id(), game, seated);
    if (!before) {
        return false;
    }
    connections_.mark_player(*peer);
    leave_finished(peer, game, rematch_of, *before);
    return true;
}

void Hub::member_left(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                      bool still_seated, bool still_member) {
    connections_.left(peer->id(), game, still_seated, still_member);
    connections_.mark_player(*peer);
}

void Hub::leave_finished(const std::shared_ptr<net::Peer>& peer, const std::string& entered,
                         const std::string& keep, const std::vector<std::string>& games) {
    // A finished room leaves memory once nobody is in it (GameRoom::leave_memory), but a
    // connection would stay in every game it played or watched until it closed: a player who
    // plays game after game on one connection would keep each finished room (its game, history
    // and last events) alive. Entering another game is the sign that a connection is done with
    // the finished ones. The game this one is the rematch of stays: its members hear the
    // `rematch` event there after they have been seated here. Each room reports the leave back
    // (member_left) when it has made it.
    for (const auto& game : games) {
        if (game == entered || game == keep) {
            continue;
        }
        if (auto room = registry_.find(game);
            room && protocol::is_finished(room->listed_status())) {
            room->leave(peer);
        }
    }
}

bool Hub::unload_room(const std::string& game, const GameRoom* room,
                      std::optional<std::chrono::steady_clock::time_point> flag_at) {
    if (!registry_.unload(game, room, flag_at)) {
        return false;
    }
    // Only a game in memory is listed: one that left it has nobody in it to play.
    lobby_.removed(game);
    return true;
}

void Hub::reroute(RoomRequest request) {
    log_event(LogLevel::debug, "request_rerouted", {{"peer", request.peer->id()}});
    registry_.route(std::move(request));
}

void Hub::disown_room(const std::string& game, const GameRoom* room) {
    if (registry_.evict(game, room, "this node no longer owns the game; reconnect and resume")) {
        log_event(LogLevel::warn, "cluster_room_disowned", {{"game", game}});
        lobby_.removed(game);
    }
}

// ---- a cluster node (cluster_link.hpp) ----------------------------------------------------

void Hub::set_cluster(GameClaims* claims, ClusterLink* link) {
    registry_.set_claims(claims);
    link_ = link;
}

bool Hub::adopt(storage::StoredGame game) {
    return registry_.adopt(std::move(game));
}

std::size_t Hub::evict_all(const std::string& reason) {
    const auto games = registry_.evict_all(reason);
    for (const auto& game : games) {
        lobby_.removed(game);
    }
    return games.size();
}

void Hub::keep_rooms_until_stop() {
    registry_.keep_rooms_until_stop();
}

void Hub::remote_opened(const std::shared_ptr<net::Peer>& peer) {
    on_open(peer);
}

void Hub::remote_closed(const std::shared_ptr<net::Peer>& peer) {
    on_close(peer);
}

void Hub::remote_request(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                         std::string name, std::optional<AccountUser> user, std::uint64_t hops) {
    if (closed_) {
        return;
    }
    // Only game requests are forwarded: the rest (hello, create, lobby, replay ...) its holder
    // answers itself. Anything else came from a stranger on the bus.
    if (!is_room_request(message.body)) {
        return replies_.refuse(peer, ErrorCode::not_allowed,
                               "only game requests are forwarded between nodes", message.id);
    }
    if (!name.empty()) {
        connections_.set_name(peer->id(), std::move(name));
    }
    if (user) {
        connections_.set_user(peer->id(), std::move(user));
    }
    dispatch(peer, std::move(message), time_.now(), hops);
}

void Hub::request_again(const std::shared_ptr<net::Peer>& peer, protocol::ClientMessage message,
                        std::uint64_t hops) {
    if (!closed_) {
        dispatch(peer, std::move(message), time_.now(), hops);
    }
}

// ---- lifetime and gauges ------------------------------------------------------------------

void Hub::store_clocks_at_stop() {
    registry_.store_clocks_at_stop();
}

void Hub::close() {
    closed_ = true;
    pruner_.stop();
    registry_.close();
    lobby_.clear();
}

std::size_t Hub::room_count() const {
    return registry_.size();
}

std::size_t Hub::connection_count() const {
    return connections_.size();
}

ConnectionRoles Hub::connection_roles() const {
    return connections_.roles(lobby_.subscribers());
}

std::map<std::pair<std::string, std::string>, std::size_t> Hub::games_in_memory() const {
    return registry_.by_status_and_variant();
}

}  // namespace arbiter::server::app
