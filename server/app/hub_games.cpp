// Hub: the requests about games that need no room (create, games, replay), and rematches.
#include <sys/random.h>

#include "common/protocol/codec.hpp"
#include "server/app/hub.hpp"
#include "server/app/rated_rules.hpp"
#include "server/app/seats.hpp"
#include "server/app/secrets.hpp"
#include "server/app/stored_views.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using rules::Side;

namespace {

bool random_bit() {
    unsigned char byte = 0;
    while (getrandom(&byte, 1, 0) != 1) {
    }
    return (byte & 1) != 0;
}

}  // namespace

void Hub::on_create(const std::shared_ptr<net::Peer>& peer, const protocol::Create& create,
                    const std::optional<std::string>& id) {
    auto game = rules::make_game(create.variant, create.position);
    if (!game) {
        replies_.refuse(peer, ErrorCode::bad_request, "position: " + game.error().message, id);
        return;
    }
    if ((*game)->status().over()) {
        replies_.refuse(peer, ErrorCode::bad_request, "position: the game is already over there",
                        id);
        return;
    }
    const auto user = connections_.user_of(peer->id());
    if (create.rated) {
        auto standard = rules::make_game(create.variant, "");
        const bool standard_start =
            standard && (*standard)->initial_position() == (*game)->initial_position();
        if (auto refusal = rated_create_refusal(create, user.has_value(), standard_start)) {
            replies_.refuse(peer, ErrorCode::not_allowed, *refusal, id);
            return;
        }
        if (room_context_.ratings == nullptr) {
            replies_.refuse(peer, ErrorCode::not_allowed, "this server rates no games", id);
            return;
        }
    }
    storage::GameRow header;
    header.id = new_game_id();
    const ClientKey client = client_of(*peer);
    const bool against_engine = create.opponent.has_value();
    if (auto refusal = limits_.reserve_open_game(
            client, header.id, against_engine,
            [this](const std::string& open, bool engine) { return still_open(open, engine); })) {
        replies_.refuse(peer, ErrorCode::not_allowed, *refusal, id);
        return;
    }
    // After the open games: a client at that bound is told so, not to slow down.
    if (auto refusal = limits_.take_create(client, time_.now())) {
        limits_.release_open_game(client, header.id);
        replies_.refuse(peer, ErrorCode::rate_limited, *refusal, id);
        return;
    }
    header.variant = create.variant;
    header.initial_position = (*game)->initial_position();
    header.is_private = create.is_private;
    if (create.clock) {
        header.clock_initial_ms = create.clock->initial_ms;
        header.clock_increment_ms = create.clock->increment_ms;
    }
    header.rated = create.rated;
    header.rating_range = create.rating_range;
    header.status = protocol::GameStatus::waiting;
    header.created_ms = time_.unix_ms();
    header.updated_ms = header.created_ms;
    Side side = Side::first;
    if (create.side == protocol::SidePreference::second ||
        (create.side == protocol::SidePreference::random && random_bit())) {
        side = Side::second;
    }
    std::array<std::optional<SeatSpec>, 2> seats;
    seats[seat_index(side)] =
        SeatSpec{connections_.name_of(peer->id()), new_seat_token(), {peer}, "", 0};
    if (user) {
        seats[seat_index(side)]->user_id = user->id;
        if (create.rated) {
            seats[seat_index(side)]->rating = room_context_.ratings->shown(
                user->id, Perf{create.variant, *rated_speed(create.clock)}, time_.unix_ms());
        }
    }
    if (create.opponent) {
        // The engine takes the other seat and the game starts at once.
        auto name = room_context_.engines != nullptr
                        ? room_context_.engines->seat_name(create.opponent->engine, create.variant,
                                                           create.opponent->level)
                        : Expected<std::string, std::string>(
                              unexpected(std::string("this server offers no engines")));
        if (!name) {
            limits_.release_open_game(client, header.id);
            replies_.refuse(peer, ErrorCode::engine_unavailable, name.error(), id);
            return;
        }
        seats[seat_index(rules::opponent(side))] =
            SeatSpec{*name, new_seat_token(), {}, create.opponent->engine, create.opponent->level};
        header.status = protocol::GameStatus::playing;
    }
    auto room = GameRoom::create(room_context_, make_executor_(), header, std::move(game).value(),
                                 std::move(seats), id);
    // Findable, and counted among its creator's open games, before anything of it is answered.
    registry_.add(room);
    limits_.count_open_game(client, header.id, against_engine);
    room->begin_creation();
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
    header.status = protocol::GameStatus::playing;
    header.created_ms = time_.unix_ms();
    header.updated_ms = header.created_ms;
    header.rematch_of = finished.id;
    // A rematch of a rated game is rated (both seats are the same accounts); the seek's range
    // served to find the opponent, and is not carried.
    const auto speed = rated_speed(time_control_of(finished));
    header.rated = finished.rated && speed && room_context_.ratings != nullptr &&
                   seats[0].user_id && seats[1].user_id;
    if (header.rated) {
        for (auto& seat : seats) {
            seat.rating = room_context_.ratings->shown(
                *seat.user_id, Perf{finished.variant, *speed}, time_.unix_ms());
        }
    }
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
    registry_.add(room);
    for (const auto& peer : against_engine) {
        limits_.count_open_game(client_of(*peer), header.id, true);
    }
    room->begin_creation();
}

bool Hub::still_open(const std::string& game, bool against_engine) const {
    const auto room = registry_.find(game);
    return room && (against_engine ? !protocol::is_finished(room->listed_status())
                                   : room->listed_status() == protocol::GameStatus::waiting);
}

void Hub::read_stored(const std::shared_ptr<net::Peer>& peer, const std::optional<std::string>& id,
                      std::function<void()> read) {
    if (!reads_.try_post(std::move(read))) {
        replies_.refuse_busy(peer, id);
    }
}

void Hub::on_lobby(const std::shared_ptr<net::Peer>& peer, const protocol::LobbySubscribe& lobby,
                   const std::optional<std::string>& id) {
    if (!lobby.paged()) {
        lobby_.subscribe(peer, id);
        return;
    }
    const auto limit = lobby.limit ? static_cast<std::size_t>(*lobby.limit) : config_.lobby_size;
    auto page = lobby_.page(limit, lobby.after);
    if (!page) {
        replies_.refuse(peer, protocol::ErrorCode::unknown_game,
                        "that game is not in the lobby any more: ask for the first page", id);
        return;
    }
    replies_.reply(peer, std::move(*page), id);
}

void Hub::on_games(const std::shared_ptr<net::Peer>& peer, const protocol::GamesQuery& query,
                   const std::optional<std::string>& id) {
    storage::GameQuery filter;
    filter.status = query.status;
    filter.variant = query.variant;
    filter.limit = static_cast<std::size_t>(query.limit);
    filter.before = query.before;
    read_stored(peer, id, [this, peer, filter, id] {
        auto rows = room_context_.repository.list(filter);
        if (!rows) {
            replies_.refuse(peer, ErrorCode::unavailable, "storage: " + rows.error().message, id);
            return;
        }
        protocol::GamesList list;
        for (const auto& row : *rows) {
            list.games.push_back(summary_of(row, registry_.seats_present(row.id)));
        }
        replies_.reply(peer, std::move(list), id);
    });
}

void Hub::on_replay(const std::shared_ptr<net::Peer>& peer, const std::string& game,
                    const std::optional<std::string>& id) {
    read_stored(peer, id, [this, peer, game, id] {
        auto stored = room_context_.repository.load(game);
        if (!stored) {
            replies_.refuse(peer, ErrorCode::unavailable, "storage: " + stored.error().message, id);
            return;
        }
        if (!*stored) {
            replies_.refuse(peer, ErrorCode::unknown_game, "no game with that id", id);
            return;
        }
        protocol::Record record = record_of(**stored, registry_.seats_present(game));
        const auto user = connections_.user_of(peer->id());
        record.chat = record_chat(**stored, user ? std::optional(user->id) : std::nullopt);
        replies_.reply(peer, std::move(record), id);
        replay_watchers_.watch(peer, game);
    });
}

void Hub::analysis_progress(const protocol::AnalysisProgress& progress) {
    if (closed_) {
        return;
    }
    // Pushed, never an answer: no request id.
    replay_watchers_.send(progress.game, protocol::SharedMessage(progress).text());
}

}  // namespace arbiter::server::app
