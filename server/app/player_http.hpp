#pragma once
/// \file
/// The players' HTTP API (issue 40; schema/protocol.md, "Players"), read-only:
///   GET /api/users/{name}          the profile: ratings as they stand now, won/drawn/lost
///   GET /api/users/{name}/games    ?variant=&before=&limit=  their games, newest first, paged
///   GET /api/users/{name}/export   their ended games as one PGN/PDN text
///   GET /api/users/{name}/history  their ratings after each rated game, per pool
///   GET /api/leaderboard           ?variant=&speed=&limit=  the settled, active players, best
///   first
/// Each answer is made by answer(), synchronously: HttpApi runs it on the reader thread, as the
/// other reads of stored games. Errors are JSON (encode_api_error): 400 with the parameter at
/// fault, 404 for an unknown player or path.

#include <cstdint>
#include <functional>
#include <string_view>

#include "server/net/peer.hpp"
#include "server/storage/account_store.hpp"
#include "server/storage/player_store.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// Whether `path` is one of the players' paths (the API above).
bool is_player_path(std::string_view path);

/// Answers the players' paths. Thread-safe (the stores are).
class PlayerHttp {
  public:
    /// `now_ms`: Unix ms (a rating's deviation grows with the time since its last game, and the
    /// leaderboards keep the players active in the last 30 days).
    PlayerHttp(storage::AccountStore& accounts, storage::PlayerStore& players,
               storage::GameRepository& games, std::function<std::int64_t()> now_ms);

    /// The answer to GET `path` (one of is_player_path()) with the query string `query`.
    net::HttpResponse answer(std::string_view path, std::string_view query);

    /// The most games a page lists, and a page's size when the query says none.
    static constexpr std::size_t kMaxGamesLimit = 100;
    static constexpr std::size_t kDefaultGamesLimit = 20;
    /// The most players a leaderboard lists, and its size when the query says none.
    static constexpr std::size_t kMaxLeaderboardLimit = 200;
    static constexpr std::size_t kDefaultLeaderboardLimit = 50;
    /// A leaderboard keeps the players with a rated game in the pool within this many days.
    static constexpr std::int64_t kActiveDays = 30;
    /// The most games one export holds (the newest): an export runs on the reader thread, and
    /// each game is replayed through the rules (~0.3 ms for 340 plies).
    static constexpr std::size_t kMaxExportGames = 2000;

  private:
    net::HttpResponse profile(const storage::UserRow& user);
    net::HttpResponse games(const storage::UserRow& user, std::string_view query);
    net::HttpResponse export_games(const storage::UserRow& user);
    net::HttpResponse history(const storage::UserRow& user);
    net::HttpResponse leaderboard(std::string_view query);

    storage::AccountStore& accounts_;
    storage::PlayerStore& players_;
    storage::GameRepository& games_;
    std::function<std::int64_t()> now_ms_;
};

}  // namespace arbiter::server::app
