#include "server/app/player_http.hpp"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol/account_api.hpp"
#include "common/protocol/player_api.hpp"
#include "server/app/account_rules.hpp"
#include "server/app/http_api.hpp"
#include "server/app/perf.hpp"
#include "server/app/stored_views.hpp"

namespace arbiter::server::app {

namespace {

constexpr std::string_view kUsersPrefix = "/api/users/";
constexpr std::string_view kLeaderboard = "/api/leaderboard";
constexpr std::int64_t kDayMs = 24LL * 60 * 60 * 1000;

net::HttpResponse json_answer(unsigned status, std::string body) {
    net::HttpResponse response;
    response.status = status;
    response.content_type = "application/json";
    response.body = std::move(body);
    return response;
}

net::HttpResponse refusal(unsigned status, std::string_view code, std::string_view message) {
    return json_answer(status, protocol::encode_api_error(code, message));
}

net::HttpResponse bad_parameter(std::string_view message) {
    return refusal(400, "invalid", message);
}

net::HttpResponse storage_failure(const storage::StorageError& error) {
    return refusal(503, "storage", "storage: " + error.message);
}

// A form's parameters: an empty value is no value ("?variant=", as a form sends "any").
constexpr QueryRules kFormRules{.empty_is_absent = true, .refuse_repeats = false};

// A whole number in [1, max], else nullopt.
std::optional<std::size_t> limit_of(const std::string& text, std::size_t max) {
    std::size_t limit = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), limit);
    if (ec != std::errc{} || end != text.data() + text.size() || limit < 1 || limit > max) {
        return std::nullopt;
    }
    return limit;
}

bool valid_game_id(std::string_view id) {
    return !id.empty() && id.size() <= 32 && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_';
    });
}

glicko2::Rating stored_rating(const storage::RatingRow& row) {
    return glicko2::Rating{row.rating, row.deviation, row.volatility};
}

}  // namespace

bool is_player_path(std::string_view path) {
    return path == kLeaderboard || path.starts_with(kUsersPrefix);
}

PlayerHttp::PlayerHttp(storage::AccountStore& accounts, storage::PlayerStore& players,
                       storage::GameRepository& games, std::function<std::int64_t()> now_ms)
    : accounts_(accounts), players_(players), games_(games), now_ms_(std::move(now_ms)) {}

net::HttpResponse PlayerHttp::answer(std::string_view path, std::string_view query) {
    if (path == kLeaderboard) {
        return leaderboard(query);
    }
    std::string_view rest = path.substr(kUsersPrefix.size());
    const auto slash = rest.find('/');
    const std::string_view name = rest.substr(0, slash);
    const std::string_view what =
        slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (!what.empty() && what != "games" && what != "export" && what != "history") {
        return refusal(404, "not_found", "no such endpoint");
    }
    const auto decoded = url_decode(name, false);
    if (!decoded || decoded->empty() || decoded->size() > kMaxUsernameLength) {
        return refusal(404, "not_found", "no such user");
    }
    auto user = accounts_.find_user(username_key(*decoded));
    if (!user) {
        return storage_failure(user.error());
    }
    if (!*user) {
        return refusal(404, "not_found", "no such user");
    }
    if (what == "games") {
        return games(**user, query);
    }
    // The other answers take no parameters: one that is there is a mistake, said so.
    if (auto none = query_parameters(query, {}, kFormRules); !none) {
        return bad_parameter(none.error());
    }
    if (what == "export") {
        return export_games(**user);
    }
    if (what == "history") {
        return history(**user);
    }
    return profile(**user);
}

net::HttpResponse PlayerHttp::profile(const storage::UserRow& user) {
    protocol::PlayerProfile profile{
        user.username, user.created_ms, user.deleted_ms.has_value(), {}, std::nullopt};
    if (profile.deleted) {
        // A deleted account's ratings and results are hidden; its games stay (listed, exported).
        return json_answer(200, protocol::encode_player_profile(profile));
    }
    auto ratings = players_.ratings_of(user.id);
    if (!ratings) {
        return storage_failure(ratings.error());
    }
    auto counts = players_.game_counts(user.id);
    if (!counts) {
        return storage_failure(counts.error());
    }
    const std::int64_t now = now_ms_();
    for (const storage::RatingRow& row : *ratings) {
        const glicko2::Rating current = rating_at(stored_rating(row), row.updated_ms, now);
        profile.ratings.push_back(
            protocol::PoolRating{row.variant, row.speed, shown(current.rating), current.deviation,
                                 current.volatility, row.games, provisional(current)});
    }
    profile.counts =
        protocol::PlayerCounts{counts->games, counts->won, counts->drawn, counts->lost};
    return json_answer(200, protocol::encode_player_profile(profile));
}

net::HttpResponse PlayerHttp::games(const storage::UserRow& user, std::string_view query) {
    auto given = query_parameters(query, {"variant", "before", "limit"}, kFormRules);
    if (!given) {
        return bad_parameter(given.error());
    }
    storage::UserGamesQuery filter;
    filter.user_id = user.id;
    std::size_t limit = kDefaultGamesLimit;
    if (const auto found = given->find("variant"); found != given->end()) {
        filter.variant = rules::parse_variant(found->second);
        if (!filter.variant) {
            return bad_parameter("variant must be chess, xiangqi or draughts");
        }
    }
    if (const auto found = given->find("before"); found != given->end()) {
        if (!valid_game_id(found->second)) {
            return bad_parameter("before must be a game id");
        }
        filter.before = found->second;
    }
    if (const auto found = given->find("limit"); found != given->end()) {
        const auto parsed = limit_of(found->second, kMaxGamesLimit);
        if (!parsed) {
            return bad_parameter("limit must be a whole number from 1 to " +
                                 std::to_string(kMaxGamesLimit));
        }
        limit = *parsed;
    }
    // One more than the page: whether there is a next page is known without asking for it.
    filter.limit = limit + 1;
    auto rows = players_.user_games(filter);
    if (!rows) {
        return storage_failure(rows.error());
    }
    std::optional<std::string> next;
    if (rows->size() > limit) {
        rows->resize(limit);
        next = rows->back().id;
    }
    std::vector<protocol::GameSummary> entries;
    entries.reserve(rows->size());
    for (const storage::GameRow& row : *rows) {
        entries.push_back(summary_of(row));
    }
    return json_answer(200, protocol::encode_player_games(entries, next));
}

net::HttpResponse PlayerHttp::export_games(const storage::UserRow& user) {
    storage::UserGamesQuery filter;
    filter.user_id = user.id;
    filter.ended_only = true;
    filter.limit = kMaxGamesLimit;
    std::string text;
    std::size_t exported = 0;
    while (exported < kMaxExportGames) {
        auto rows = players_.user_games(filter);
        if (!rows) {
            return storage_failure(rows.error());
        }
        for (const storage::GameRow& row : *rows) {
            auto stored = games_.load(row.id);
            if (!stored) {
                return storage_failure(stored.error());
            }
            if (!*stored) {
                continue;  // pruned since it was listed
            }
            // Each game exactly as its own export gives it; a blank line between games (PGN
            // export format, 8.2).
            auto game = export_text(**stored);
            if (!game) {
                return refusal(500, "internal", row.id + ": " + game.error());
            }
            if (!text.empty()) {
                text += "\n";
            }
            text += *game;
            if (++exported == kMaxExportGames) {
                break;
            }
        }
        if (rows->size() < filter.limit) {
            break;
        }
        filter.before = rows->back().id;
    }
    net::HttpResponse response;
    response.content_type = "text/plain; charset=utf-8";
    response.body = std::move(text);
    // Usernames are letters, digits, '_' and '-': nothing to quote in a file name.
    response.headers.emplace_back(
        "Content-Disposition", "attachment; filename=\"arbiter-" + user.username + "-games.txt\"");
    return response;
}

net::HttpResponse PlayerHttp::history(const storage::UserRow& user) {
    std::vector<protocol::PoolHistory> pools;
    if (!user.deleted_ms) {
        auto points = players_.rating_history(user.id);
        if (!points) {
            return storage_failure(points.error());
        }
        for (const storage::RatingPoint& point : *points) {
            if (pools.empty() || pools.back().variant != point.variant ||
                pools.back().speed != point.speed) {
                pools.push_back(protocol::PoolHistory{point.variant, point.speed, {}});
            }
            pools.back().points.push_back(
                protocol::HistoryPoint{point.at_ms, shown(point.rating), point.game_id});
        }
    }
    return json_answer(200, protocol::encode_rating_history(pools));
}

net::HttpResponse PlayerHttp::leaderboard(std::string_view query) {
    auto given = query_parameters(query, {"variant", "speed", "limit"}, kFormRules);
    if (!given) {
        return bad_parameter(given.error());
    }
    rules::Variant variant = rules::Variant::chess;
    RatedSpeed speed = RatedSpeed::blitz;
    std::size_t limit = kDefaultLeaderboardLimit;
    if (const auto found = given->find("variant"); found != given->end()) {
        const auto parsed = rules::parse_variant(found->second);
        if (!parsed) {
            return bad_parameter("variant must be chess, xiangqi or draughts");
        }
        variant = *parsed;
    }
    if (const auto found = given->find("speed"); found != given->end()) {
        const auto parsed = parse_rated_speed(found->second);
        if (!parsed) {
            return bad_parameter("speed must be bullet, blitz, rapid or classical");
        }
        speed = *parsed;
    }
    if (const auto found = given->find("limit"); found != given->end()) {
        const auto parsed = limit_of(found->second, kMaxLeaderboardLimit);
        if (!parsed) {
            return bad_parameter("limit must be a whole number from 1 to " +
                                 std::to_string(kMaxLeaderboardLimit));
        }
        limit = *parsed;
    }
    const std::int64_t now = now_ms_();
    // The store keeps the ratings settled when last stored (a deviation only grows with time
    // away); those that have grown provisional since are left out here, as the profile shows
    // them.
    const storage::LeaderboardQuery candidates{variant, std::string(to_string(speed)),
                                               now - kActiveDays * kDayMs, kProvisionalDeviation};
    std::vector<protocol::Leader> players;
    auto read = players_.leaderboard(candidates, [&](const storage::LeaderRow& row) {
        const glicko2::Rating current =
            rating_at(stored_rating(row.rating), row.rating.updated_ms, now);
        if (!provisional(current)) {
            players.push_back(protocol::Leader{row.username, shown(current.rating),
                                               current.deviation, row.rating.games});
        }
        return players.size() < limit;
    });
    if (!read) {
        return storage_failure(read.error());
    }
    return json_answer(200, protocol::encode_leaderboard(variant, to_string(speed), players));
}

}  // namespace arbiter::server::app
