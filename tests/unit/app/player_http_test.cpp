// The players' HTTP API (issue 40; player_http.hpp) over in-memory stores, with time as a value:
// what each path answers, which parameters it refuses, and that a rating is shown as it stands
// at the time of the request.

#include "server/app/player_http.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/app/perf.hpp"
#include "server/app/stored_views.hpp"
#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kDay = 24LL * 60 * 60 * 1000;
constexpr std::int64_t kNow = 400 * kDay;

/// Users, their ratings, games and history in memory; records what it was asked.
class MemoryPlayers final : public storage::AccountStore, public storage::PlayerStore {
  public:
    void write_account(storage::AccountIntent, Done done) override { done({}); }
    Expected<std::optional<storage::UserRow>, storage::StorageError> find_user(
        const std::string& key) override {
        for (const auto& user : users) {
            if (user.username_key == key) {
                return std::optional(user);
            }
        }
        return std::optional<storage::UserRow>();
    }
    Expected<std::optional<storage::UserRow>, storage::StorageError> find_user_by_id(
        std::int64_t) override {
        return std::optional<storage::UserRow>();
    }
    Expected<std::optional<storage::SessionRow>, storage::StorageError> find_session(
        const std::string&) override {
        return std::optional<storage::SessionRow>();
    }
    Expected<storage::AccountSnapshot, storage::StorageError> load_accounts() override {
        return storage::AccountSnapshot{};
    }

    Expected<std::vector<storage::RatingRow>, storage::StorageError> ratings_of(
        std::int64_t) override {
        return ratings;
    }
    Expected<storage::GameCounts, storage::StorageError> game_counts(std::int64_t) override {
        return counts;
    }
    Expected<std::vector<storage::GameRow>, storage::StorageError> user_games(
        const storage::UserGamesQuery& query) override {
        queries.push_back(query);
        std::vector<storage::GameRow> page;
        bool after = !query.before;
        for (const auto& game : games) {
            if (after && page.size() < query.limit) {
                page.push_back(game);
            }
            after = after || game.id == query.before;
        }
        return page;
    }
    Expected<std::vector<storage::RatingPoint>, storage::StorageError> rating_history(
        std::int64_t) override {
        return history;
    }
    Expected<void, storage::StorageError> leaderboard(const storage::LeaderboardQuery& query,
                                                      const EachLeader& each) override {
        leaderboard_query = query;
        for (const auto& leader : leaders) {
            if (!each(leader)) {
                break;
            }
        }
        return {};
    }

    std::vector<storage::UserRow> users{{1, "Ann_B", "ann_b", "h", 7, std::nullopt},
                                        {2, "Gone", "gone", "h", 8, 9}};
    std::vector<storage::RatingRow> ratings;
    storage::GameCounts counts;
    std::vector<storage::GameRow> games;  ///< newest first
    std::vector<storage::RatingPoint> history;
    std::vector<storage::LeaderRow> leaders;
    std::vector<storage::UserGamesQuery> queries;
    std::optional<storage::LeaderboardQuery> leaderboard_query;
};

struct PlayerHttpTest : ::testing::Test {
    Json json_of(const std::string& target, unsigned status = 200) {
        const auto response = get(target);
        EXPECT_EQ(response.status, status) << target << " " << response.body;
        EXPECT_EQ(response.content_type, "application/json") << target;
        return Json::parse(response.body, nullptr, false);
    }
    net::HttpResponse get(const std::string& target) {
        const auto question = target.find('?');
        return http.answer(target.substr(0, question),
                           question == std::string::npos ? "" : target.substr(question + 1));
    }

    MemoryPlayers store;
    fakes::FakeRepository repository;
    PlayerHttp http{store, store, repository, [] { return kNow; }};
};

storage::GameRow game_row(const std::string& id) {
    storage::GameRow row;
    row.id = id;
    row.initial_position = "startpos";
    row.status = protocol::GameStatus::ended;
    row.result = rules::Outcome::first_wins;
    row.seats[0].name = "Ann_B";
    row.seats[1].name = "Bob";
    return row;
}

TEST(PlayerPaths, UsersAndLeaderboardOnly) {
    EXPECT_TRUE(is_player_path("/api/users/ann"));
    EXPECT_TRUE(is_player_path("/api/users/ann/games"));
    EXPECT_TRUE(is_player_path("/api/leaderboard"));
    EXPECT_FALSE(is_player_path("/api/games"));
    EXPECT_FALSE(is_player_path("/api/leaderboards"));
}

TEST_F(PlayerHttpTest, ProfileShowsEachRatingAsItStandsNowAndTheCounts) {
    // Settled when stored, then a year away: the deviation has grown past the provisional bound.
    store.ratings = {{rules::Variant::chess, "blitz", 1512.4, 60, 0.06, 30, kNow - 365 * kDay},
                     {rules::Variant::xiangqi, "rapid", 1650.6, 80.04, 0.059991, 12, kNow}};
    store.counts = {10, 4, 2, 4};
    const Json profile = json_of("/api/users/ANN_b");
    EXPECT_EQ(profile["username"], "Ann_B");
    EXPECT_EQ(profile["created_ms"], 7);
    EXPECT_EQ(profile["deleted"], false);
    const Json& blitz = profile["ratings"]["chess"]["blitz"];
    EXPECT_EQ(blitz["rating"], 1512);
    const double grown = rating_at({1512.4, 60, 0.06}, kNow - 365 * kDay, kNow).deviation;
    EXPECT_GT(grown, kProvisionalDeviation);
    EXPECT_NEAR(blitz["deviation"].get<double>(), grown, 0.05);
    EXPECT_EQ(blitz["provisional"], true);
    EXPECT_EQ(blitz["games"], 30);
    const Json& rapid = profile["ratings"]["xiangqi"]["rapid"];
    EXPECT_EQ(rapid, Json::parse(R"({"rating":1651,"deviation":80.0,"volatility":0.05999,
                                     "games":12,"provisional":false})"));
    EXPECT_EQ(profile["counts"], Json::parse(R"({"games":10,"won":4,"drawn":2,"lost":4})"));
}

TEST_F(PlayerHttpTest, DeletedPlayerShowsNoRatingsNoCountsNoHistory) {
    store.ratings = {{rules::Variant::chess, "blitz", 1500, 60, 0.06, 30, kNow}};
    store.history = {{rules::Variant::chess, "blitz", 5, "g1", 1500, 60}};
    const Json profile = json_of("/api/users/gone");
    EXPECT_EQ(profile["deleted"], true);
    EXPECT_EQ(profile["ratings"], Json::object());
    EXPECT_TRUE(profile["counts"].is_null());
    EXPECT_EQ(json_of("/api/users/gone/history")["history"], Json::array());
}

TEST_F(PlayerHttpTest, UnknownPlayerOrPathIs404) {
    EXPECT_EQ(json_of("/api/users/nobody", 404)["message"], "no such user");
    EXPECT_EQ(json_of("/api/users/nobody/games", 404)["message"], "no such user");
    EXPECT_EQ(json_of("/api/users/" + std::string(21, 'a'), 404)["error"], "not_found");
    EXPECT_EQ(json_of("/api/users/%zz", 404)["error"], "not_found");
    EXPECT_EQ(json_of("/api/users/ann_b/friends", 404)["message"], "no such endpoint");
}

TEST_F(PlayerHttpTest, GamesPageSaysWhereTheNextBeginsOnlyWhenThereIsOne) {
    store.games = {game_row("g5"), game_row("g4"), game_row("g3")};
    const Json first = json_of("/api/users/ann_b/games?limit=2&variant=chess");
    ASSERT_EQ(first["games"].size(), 2U);
    EXPECT_EQ(first["games"][0]["game"], "g5");
    EXPECT_EQ(first["games"][0]["players"]["white"]["name"], "Ann_B");
    EXPECT_EQ(first["next"], "g4");
    EXPECT_EQ(store.queries.back().limit, 3U);  // one more than the page
    EXPECT_EQ(store.queries.back().variant, rules::Variant::chess);
    EXPECT_FALSE(store.queries.back().include_private);
    const Json last = json_of("/api/users/ann_b/games?limit=2&before=g4");
    ASSERT_EQ(last["games"].size(), 1U);
    EXPECT_TRUE(last["next"].is_null());
    EXPECT_EQ(store.queries.back().before, "g4");
    EXPECT_EQ(json_of("/api/users/ann_b/games?variant=")["games"].size(), 3U);  // "any"
    EXPECT_EQ(store.queries.back().limit, 21U);  // the default page, and one more
}

TEST_F(PlayerHttpTest, BadParametersAre400WithTheReason) {
    for (const std::string target :
         {"/api/users/ann_b/games?limit=0", "/api/users/ann_b/games?limit=101",
          "/api/users/ann_b/games?limit=ten", "/api/users/ann_b/games?variant=go",
          "/api/users/ann_b/games?before=no%20such", "/api/users/ann_b/games?page=2",
          "/api/users/ann_b/games?variant=%zz", "/api/users/ann_b?x=1",
          "/api/users/ann_b/export?all=1", "/api/leaderboard?speed=ultrabullet",
          "/api/leaderboard?variant=checkers", "/api/leaderboard?limit=201",
          "/api/leaderboard?limit=0"}) {
        const Json refused = json_of(target, 400);
        EXPECT_EQ(refused["error"], "invalid") << target;
        EXPECT_FALSE(refused["message"].get<std::string>().empty()) << target;
    }
    EXPECT_TRUE(store.queries.empty());
}

TEST_F(PlayerHttpTest, ExportIsEachEndedGameAsItsOwnExportNewestFirst) {
    storage::StoredGame first{game_row("g1"), {}};
    first.header.created_ms = 1'000'000;
    for (const auto& [ply, move] :
         {std::pair<std::uint32_t, std::string>{1, "e2e4"}, {2, "e7e5"}}) {
        storage::MoveRow row;
        row.ply = ply;
        row.move = move;
        first.moves.push_back(row);
    }
    storage::StoredGame second{game_row("g2"), {}};
    second.header.variant = rules::Variant::draughts;
    second.header.initial_position = "";
    repository.store(first);
    repository.store(second);
    store.games = {second.header, first.header};
    const auto exported = get("/api/users/ann_b/export");
    ASSERT_EQ(exported.status, 200U) << exported.body;
    EXPECT_EQ(exported.content_type, "text/plain; charset=utf-8");
    const auto one = export_text(first);
    const auto two = export_text(second);
    ASSERT_TRUE(one && two);
    EXPECT_NE(one->find("1. e4 e5"), std::string::npos) << *one;
    EXPECT_EQ(exported.body, *two + "\n" + *one);
    EXPECT_TRUE(store.queries.back().ended_only);
}

TEST_F(PlayerHttpTest, ExportOfNoGamesIsEmpty) {
    const auto exported = get("/api/users/ann_b/export");
    EXPECT_EQ(exported.status, 200U);
    EXPECT_EQ(exported.body, "");
}

TEST_F(PlayerHttpTest, HistoryIsGroupedByPoolWithRoundedRatings) {
    store.history = {{rules::Variant::chess, "blitz", 100, "g1", 1510.4, 90},
                     {rules::Variant::chess, "blitz", 300, "g3", 1529.6, 80},
                     {rules::Variant::chess, "bullet", 200, "g2", 1490, 70}};
    EXPECT_EQ(json_of("/api/users/ann_b/history"), Json::parse(R"({"history":[
        {"variant":"chess","speed":"blitz","points":[{"at_ms":100,"rating":1510,"game":"g1"},
                                                     {"at_ms":300,"rating":1530,"game":"g3"}]},
        {"variant":"chess","speed":"bullet","points":[{"at_ms":200,"rating":1490,"game":"g2"}]}
        ]})"));
}

TEST_F(PlayerHttpTest, LeaderboardLeavesOutRatingsGrownProvisionalAndStopsAtTheLimit) {
    store.leaders = {
        {"Top", {rules::Variant::xiangqi, "rapid", 2000.4, 50, 0.06, 40, kNow}},
        // Settled when stored 29 days ago, but with a high volatility its deviation
        // has grown past the bound since.
        {"Drifted", {rules::Variant::xiangqi, "rapid", 1900, 109, 0.5, 9, kNow - 29 * kDay}},
        {"Next", {rules::Variant::xiangqi, "rapid", 1800, 100, 0.06, 20, kNow}},
        {"Third", {rules::Variant::xiangqi, "rapid", 1700, 100, 0.06, 20, kNow}}};
    ASSERT_TRUE(provisional(rating_at({1900, 109, 0.5}, kNow - 29 * kDay, kNow)));
    const Json board = json_of("/api/leaderboard?variant=xiangqi&speed=rapid&limit=2");
    EXPECT_EQ(board, Json::parse(R"({"variant":"xiangqi","speed":"rapid","players":[
        {"username":"Top","rating":2000,"deviation":50.0,"games":40},
        {"username":"Next","rating":1800,"deviation":100.0,"games":20}]})"));
    ASSERT_TRUE(store.leaderboard_query);
    EXPECT_EQ(store.leaderboard_query->speed, "rapid");
    EXPECT_EQ(store.leaderboard_query->active_since_ms, kNow - 30 * kDay);
    EXPECT_EQ(store.leaderboard_query->max_deviation, kProvisionalDeviation);
    const Json defaults = json_of("/api/leaderboard");
    EXPECT_EQ(defaults["variant"], "chess");
    EXPECT_EQ(defaults["speed"], "blitz");
}

}  // namespace
}  // namespace arbiter::server::app
