#include "common/protocol/player_api.hpp"

#include "common/protocol/api_json.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "common/protocol/codec.hpp"

namespace arbiter::protocol {

namespace {

using Json = nlohmann::json;

// Deviations to a tenth and volatilities to a hundred-thousandth: what a person reads, and
// stable digits in the answer (a double's last bits change nothing a client shows).
// Divided by a whole scale, the result is the double nearest the decimal, which JSON writes
// as its shortest form ("180.3").
double rounded(double value, double scale) {
    return std::round(value * scale) / scale;
}

}  // namespace

std::string encode_player_profile(const PlayerProfile& profile) {
    Json ratings = Json::object();
    for (const PoolRating& pool : profile.ratings) {
        ratings[std::string(rules::to_string(pool.variant))][pool.speed] = {
            {"rating", pool.rating},
            {"deviation", rounded(pool.deviation, 10)},
            {"volatility", rounded(pool.volatility, 100000)},
            {"games", pool.games},
            {"provisional", pool.provisional}};
    }
    Json counts = nullptr;
    if (profile.counts) {
        counts = {{"games", profile.counts->games},
                  {"won", profile.counts->won},
                  {"drawn", profile.counts->drawn},
                  {"lost", profile.counts->lost}};
    }
    return detail::dumped(Json{{"username", profile.username},
                               {"created_ms", profile.created_ms},
                               {"deleted", profile.deleted},
                               {"ratings", std::move(ratings)},
                               {"counts", std::move(counts)}});
}

std::string encode_player_games(const std::vector<GameSummary>& games,
                                const std::optional<std::string>& next) {
    // The entries exactly as GET /api/games and the `games` message write them: one encoder.
    Json list = Json::parse(encode(ServerMessage{GamesList{games}, std::nullopt}));
    return detail::dumped(
        Json{{"games", std::move(list["games"])}, {"next", next ? Json(*next) : Json(nullptr)}});
}

std::string encode_rating_history(const std::vector<PoolHistory>& history) {
    Json pools = Json::array();
    for (const PoolHistory& pool : history) {
        Json points = Json::array();
        for (const HistoryPoint& point : pool.points) {
            points.push_back(
                {{"at_ms", point.at_ms}, {"rating", point.rating}, {"game", point.game}});
        }
        pools.push_back({{"variant", rules::to_string(pool.variant)},
                         {"speed", pool.speed},
                         {"points", std::move(points)}});
    }
    return detail::dumped(Json{{"history", std::move(pools)}});
}

std::string encode_leaderboard(rules::Variant variant, std::string_view speed,
                               const std::vector<Leader>& players) {
    Json lines = Json::array();
    for (const Leader& leader : players) {
        lines.push_back({{"username", leader.username},
                         {"rating", leader.rating},
                         {"deviation", rounded(leader.deviation, 10)},
                         {"games", leader.games}});
    }
    return detail::dumped(Json{
        {"variant", rules::to_string(variant)}, {"speed", speed}, {"players", std::move(lines)}});
}

}  // namespace arbiter::protocol
