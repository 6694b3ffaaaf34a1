#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "repository_engines.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using protocol::EndReason;
using protocol::GameStatus;
using protocol::OfferKind;
using rules::Outcome;
using rules::Side;
using testing::appended;
using testing::created;
using testing::expect_same_game;
using testing::make_game;
using testing::make_move;
using testing::make_playing_game;
using testing::write_and_wait;

// Every test here runs on each engine of the binary (repository_engines.hpp).
class StorageRepository : public testing::EngineTest {
  protected:
    StoredGame load_or_fail(const std::string& id) {
        auto loaded = repository_->load(id);
        EXPECT_TRUE(loaded) << (loaded ? "" : loaded.error().message);
        if (!loaded || !loaded->has_value()) {
            ADD_FAILURE() << "game " << id << " not found";
            return {};
        }
        return std::move(**loaded);
    }

    std::vector<std::string> listed_ids(const GameQuery& query) {
        auto listed = repository_->list(query);
        EXPECT_TRUE(listed);
        std::vector<std::string> ids;
        for (const GameRow& row : listed.value_or(std::vector<GameRow>{})) {
            ids.push_back(row.id);
        }
        return ids;
    }
};

GameRow full_game() {
    GameRow game;
    game.id = "g-full";
    game.variant = rules::Variant::xiangqi;
    game.initial_position = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    game.is_private = true;
    game.clock_initial_ms = 300000;
    game.clock_increment_ms = 2000;
    game.status = GameStatus::ended;
    game.result = Outcome::second_wins;
    game.reason = EndReason::checkmate;
    game.seats[0] = SeatRow{"alice", std::string(64, 'a'), "", 0};
    // An engine seat records its engine and level (migration 0002).
    game.seats[1] =
        SeatRow{"Fairy-Stockfish (level 5)", std::string(64, 'b'), "fairy-stockfish", 5};
    game.clock_ms = {123456, 654321};
    game.seq = 42;
    game.ply = 0;
    game.created_ms = 1700000000000;
    game.updated_ms = 1700000005000;
    game.rematch_of = "g-before";
    game.rematch_next = "g-after";
    game.offers = {{OfferKind::draw, Side::second}, {OfferKind::rematch, Side::first}};  // 0004
    return game;
}

void expect_same_move(const MoveRow& actual, const MoveRow& expected) {
    EXPECT_EQ(actual.ply, expected.ply);
    EXPECT_EQ(actual.move, expected.move);
    EXPECT_EQ(actual.notation, expected.notation);
    EXPECT_EQ(actual.position, expected.position);
    EXPECT_EQ(actual.clock_ms, expected.clock_ms);
    EXPECT_EQ(actual.think_ms, expected.think_ms);
    EXPECT_EQ(actual.seq, expected.seq);
    EXPECT_EQ(actual.played_ms, expected.played_ms);
    EXPECT_EQ(actual.check, expected.check);
}

TEST_P(StorageRepository, EveryFieldRoundTrips) {
    const GameRow game = full_game();
    ASSERT_TRUE(write_and_wait(*repository_, created(game)));
    expect_same_game(load_or_fail(game.id).header, game);

    MoveRow first = make_move(1, "h2e2");
    first.notation = "C2=5";
    first.clock_ms = 299000;
    first.think_ms = 3000;
    first.check = true;  // the second's stays unset (NULL): each must come back as written
    MoveRow second = make_move(2, "h9g7");
    second.notation = "H8+7";  // untimed fields left empty: NULL must come back as nullopt
    AppendMove append_first = appended(game.id, first);
    append_first.clock_ms = {299000, 300000};
    AppendMove append_second = appended(game.id, second);
    append_second.clock_ms = {299000, 298000};
    ASSERT_TRUE(write_and_wait(*repository_, append_first));
    ASSERT_TRUE(write_and_wait(*repository_, append_second));

    const StoredGame loaded = load_or_fail(game.id);
    expect_same_game(loaded.header,
                     testing::after(testing::after(game, append_first), append_second));
    ASSERT_EQ(loaded.moves.size(), 2U);
    expect_same_move(loaded.moves[0], first);
    expect_same_move(loaded.moves[1], second);
}

TEST_P(StorageRepository, UntimedPublicGameRoundTrips) {
    GameRow game = make_game("g-plain", 5);
    game.variant = rules::Variant::draughts;
    ASSERT_TRUE(write_and_wait(*repository_, created(game)));
    expect_same_game(load_or_fail(game.id).header, game);
}

TEST_P(StorageRepository, UnknownGameLoadsAsNothing) {
    auto loaded = repository_->load("no-such-game");
    ASSERT_TRUE(loaded);
    EXPECT_FALSE(loaded->has_value());
}

TEST_P(StorageRepository, InvalidHeaderIsRefused) {
    GameRow half_clock = make_game("g-half-clock", 1);
    half_clock.clock_initial_ms = 60000;
    auto written = write_and_wait(*repository_, created(half_clock));
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("CHECK"), std::string::npos) << written.error().message;
    GameRow huge_seq = make_game("g-huge-seq", 1);
    huge_seq.seq = std::uint64_t{1} << 63;  // beyond INT64_MAX: refused, not stored negative
    EXPECT_FALSE(write_and_wait(*repository_, created(huge_seq)));
    EXPECT_FALSE(repository_->load("g-half-clock")->has_value());
    EXPECT_FALSE(repository_->load("g-huge-seq")->has_value());
}

TEST_P(StorageRepository, ASecondGameWithTheSameIdIsRefused) {
    const GameRow game = make_game("g-twice", 1);
    ASSERT_TRUE(write_and_wait(*repository_, created(game)));
    GameRow again = make_game("g-twice", 999);
    again.seats[0].name = "intruder";
    EXPECT_FALSE(write_and_wait(*repository_, created(again)));
    expect_same_game(load_or_fail("g-twice").header, game);
}

TEST_P(StorageRepository, LoadUnfinishedReturnsWaitingAndPlayingGamesWithMoves) {
    GameRow waiting = make_game("waiting", 1);
    GameRow playing = make_playing_game("playing", 2);
    GameRow ended = make_game("ended", 3);
    ended.status = GameStatus::ended;
    GameRow aborted = make_game("aborted", 4);
    aborted.status = GameStatus::aborted;
    for (const GameRow& game : {waiting, playing, ended, aborted}) {
        ASSERT_TRUE(write_and_wait(*repository_, created(game)));
    }
    ASSERT_TRUE(write_and_wait(*repository_, appended("playing", make_move(1, "e2e4"))));
    ASSERT_TRUE(write_and_wait(*repository_, appended("ended", make_move(1, "d2d4"))));

    auto unfinished = repository_->load_unfinished();
    ASSERT_TRUE(unfinished);
    const auto& games = *unfinished;
    ASSERT_EQ(games.size(), 2U);
    EXPECT_EQ(games[0].header.id, "waiting");
    EXPECT_TRUE(games[0].moves.empty());
    EXPECT_EQ(games[1].header.id, "playing");
    ASSERT_EQ(games[1].moves.size(), 1U);
    EXPECT_EQ(games[1].moves[0].move, "e2e4");
}

// Chat (migration 0012): messages come back with their game, in seq order, on load() and
// load_unfinished(), the seat of a player's and none for a spectator's.
TEST_P(StorageRepository, ChatMessagesComeBackWithTheirGame) {
    const GameRow playing = make_playing_game("chatty", 1);
    ASSERT_TRUE(write_and_wait(*repository_, created(playing)));
    const ChatRow spectator{
        playing.seq + 2, protocol::ChatRoom::spectators, "Cy", std::nullopt, "<b>nice</b> 王",
        1700000000500};
    const ChatRow player{playing.seq + 1, protocol::ChatRoom::players, "bob", Side::second, "gl",
                         1700000000400};
    ASSERT_TRUE(write_and_wait(*repository_, PostChat{"chatty", player, {1, 2}, player.seq}));
    ASSERT_TRUE(write_and_wait(*repository_, PostChat{"chatty", spectator, {3, 4}, spectator.seq}));
    const StoredGame loaded = load_or_fail("chatty");
    EXPECT_EQ(loaded.chat, (std::vector<ChatRow>{player, spectator}));
    EXPECT_EQ(loaded.header.seq, spectator.seq);
    EXPECT_EQ(loaded.header.clock_ms, (std::array<std::int64_t, 2>{3, 4}));
    auto unfinished = repository_->load_unfinished();
    ASSERT_TRUE(unfinished);
    ASSERT_EQ(unfinished->size(), 1U);
    EXPECT_EQ(unfinished->front().chat, loaded.chat);
}

TEST_P(StorageRepository, AChatMessageForAGameNotStoredOrAtATakenSeqIsRefused) {
    const ChatRow line{5, protocol::ChatRoom::players, "bob", Side::second, "hi", 1};
    EXPECT_FALSE(write_and_wait(*repository_, PostChat{"nope", line, {}, 5}));
    ASSERT_TRUE(write_and_wait(*repository_, created(make_playing_game("g", 1))));
    ASSERT_TRUE(write_and_wait(*repository_, PostChat{"g", line, {}, 5}));
    EXPECT_FALSE(write_and_wait(*repository_, PostChat{"g", line, {}, 5}))
        << "two messages cannot share a seq";
    EXPECT_EQ(load_or_fail("g").chat.size(), 1U);
}

TEST_P(StorageRepository, ReappendingTheSameMoveIsIdempotent) {
    ASSERT_TRUE(write_and_wait(*repository_, created(make_playing_game("g", 1))));
    ASSERT_TRUE(write_and_wait(*repository_, appended("g", make_move(1, "e2e4"))));
    const GameRow stored = load_or_fail("g").header;
    MoveRow again = make_move(1, "e2e4");
    again.notation = "resent";
    AppendMove resend = appended("g", again);
    resend.seq = 99;
    resend.clock_ms = {5, 6};
    ASSERT_TRUE(write_and_wait(*repository_, resend));
    const StoredGame loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 1U);
    EXPECT_EQ(loaded.moves[0].notation, "e2e4");  // the first write stands
    expect_same_game(loaded.header, stored);      // and nothing else changed
}

TEST_P(StorageRepository, DifferentMoveAtAnOccupiedPlyIsRefusedAndChangesNothing) {
    ASSERT_TRUE(write_and_wait(*repository_, created(make_playing_game("g", 1))));
    ASSERT_TRUE(write_and_wait(*repository_, appended("g", make_move(1, "e2e4"))));
    const GameRow stored = load_or_fail("g").header;
    AppendMove other = appended("g", make_move(1, "d2d4"));
    other.seq = 50;
    other.clock_ms = {7, 8};
    other.ending = GameEnding{GameStatus::ended, Outcome::draw, EndReason::stalemate};
    auto written = write_and_wait(*repository_, other);
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("e2e4"), std::string::npos) << written.error().message;
    const StoredGame loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 1U);
    EXPECT_EQ(loaded.moves[0].move, "e2e4");
    expect_same_game(loaded.header, stored);  // the whole write rolled back, row included
}

TEST_P(StorageRepository, AMoveThatDoesNotFollowTheLastPlyIsRefused) {
    ASSERT_TRUE(write_and_wait(*repository_, created(make_playing_game("g", 1))));
    ASSERT_TRUE(write_and_wait(*repository_, appended("g", make_move(1, "e2e4"))));
    auto gap = write_and_wait(*repository_, appended("g", make_move(3, "g1f3")));
    ASSERT_FALSE(gap);
    EXPECT_NE(gap.error().message.find("at ply 1"), std::string::npos) << gap.error().message;
    const StoredGame loaded = load_or_fail("g");
    EXPECT_EQ(loaded.header.ply, 1U);
    EXPECT_EQ(loaded.moves.size(), 1U);
}

TEST_P(StorageRepository, ATakeBackPastTheGamesPlyIsRefused) {
    ASSERT_TRUE(write_and_wait(*repository_, created(make_playing_game("g", 1))));
    ASSERT_TRUE(write_and_wait(*repository_, appended("g", make_move(1, "e2e4"))));
    auto ahead = write_and_wait(*repository_, TakeBack{"g", 3, {10, 20}, 4, 2000});
    ASSERT_FALSE(ahead);
    EXPECT_NE(ahead.error().message.find("at ply 1"), std::string::npos) << ahead.error().message;
    const StoredGame loaded = load_or_fail("g");
    EXPECT_EQ(loaded.header.ply, 1U);
    EXPECT_EQ(loaded.header.seq, make_move(1, "e2e4").seq);
    ASSERT_EQ(loaded.moves.size(), 1U);
    EXPECT_FALSE(write_and_wait(*repository_, TakeBack{"missing", 0, {10, 20}, 4, 2000}));
}

TEST_P(StorageRepository, TakeBackRemovesTheMovesAfterItsPly) {
    ASSERT_TRUE(write_and_wait(*repository_, created(make_playing_game("g", 1))));
    const char* moves[] = {"e2e4", "e7e5", "g1f3", "b8c6"};
    for (std::uint32_t ply = 1; ply <= 4; ++ply) {
        ASSERT_TRUE(write_and_wait(*repository_, appended("g", make_move(ply, moves[ply - 1]))));
    }
    // Takeback of two plies, then a different third move.
    ASSERT_TRUE(write_and_wait(*repository_, TakeBack{"g", 2, {10, 20}, 6, 2000}));
    ASSERT_TRUE(write_and_wait(*repository_, appended("g", make_move(3, "f1c4"))));
    StoredGame loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 3U);
    EXPECT_EQ(loaded.moves[2].move, "f1c4");
    EXPECT_EQ(loaded.header.ply, 3U);
    // A takeback alone.
    ASSERT_TRUE(write_and_wait(*repository_, TakeBack{"g", 1, {10, 20}, 8, 3000}));
    loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 1U);
    EXPECT_EQ(loaded.moves[0].move, "e2e4");
    EXPECT_EQ(loaded.header.ply, 1U);
}

class StorageList : public StorageRepository {
  protected:
    void SetUp() override {
        StorageRepository::SetUp();
        if (HasFatalFailure()) {
            return;
        }
        struct Spec {
            const char* id;
            std::int64_t created_ms;
            GameStatus status;
            rules::Variant variant;
            bool is_private;
        };
        const Spec specs[] = {
            {"a", 100, GameStatus::waiting, rules::Variant::chess, false},
            {"b", 200, GameStatus::playing, rules::Variant::xiangqi, false},
            // Same ms as b: the id breaks ties.
            {"c", 200, GameStatus::ended, rules::Variant::chess, false},
            {"d", 300, GameStatus::ended, rules::Variant::draughts, false},
            {"e", 400, GameStatus::waiting, rules::Variant::chess, true},
            {"f", 500, GameStatus::ended, rules::Variant::chess, false},
        };
        for (const Spec& spec : specs) {
            GameRow game = make_game(spec.id, spec.created_ms);
            game.status = spec.status;
            game.variant = spec.variant;
            game.is_private = spec.is_private;
            repository_->write(created(game), {});
        }
        repository_->flush();
    }
};

using Ids = std::vector<std::string>;

TEST_P(StorageList, NewestFirstWithoutPrivateGamesByDefault) {
    EXPECT_EQ(listed_ids({}), (Ids{"f", "d", "c", "b", "a"}));
}

TEST_P(StorageList, IncludePrivateShowsThem) {
    GameQuery query;
    query.include_private = true;
    EXPECT_EQ(listed_ids(query), (Ids{"f", "e", "d", "c", "b", "a"}));
}

TEST_P(StorageList, FiltersByStatusAndVariant) {
    GameQuery ended;
    ended.status = GameStatus::ended;
    EXPECT_EQ(listed_ids(ended), (Ids{"f", "d", "c"}));
    GameQuery chess_ended = ended;
    chess_ended.variant = rules::Variant::chess;
    EXPECT_EQ(listed_ids(chess_ended), (Ids{"f", "c"}));
    GameQuery xiangqi;
    xiangqi.variant = rules::Variant::xiangqi;
    EXPECT_EQ(listed_ids(xiangqi), (Ids{"b"}));
    GameQuery aborted;  // a status no game has
    aborted.status = GameStatus::aborted;
    EXPECT_TRUE(listed_ids(aborted).empty());
}

TEST_P(StorageList, KeysetPagingVisitsEveryGameOnce) {
    GameQuery query;
    query.limit = 2;
    Ids all;
    for (int page = 0; page < 10; ++page) {
        const Ids ids = listed_ids(query);
        if (ids.empty()) {
            break;
        }
        EXPECT_LE(ids.size(), 2U);
        all.insert(all.end(), ids.begin(), ids.end());
        query.before = ids.back();
    }
    EXPECT_EQ(all, (Ids{"f", "d", "c", "b", "a"}));
}

TEST_P(StorageList, BeforeCombinesWithFilters) {
    GameQuery query;
    query.status = GameStatus::ended;
    query.before = "d";
    EXPECT_EQ(listed_ids(query), (Ids{"c"}));
}

TEST_P(StorageList, UnknownBeforeGivesAnEmptyPage) {
    GameQuery query;
    query.before = "no-such-game";
    auto listed = repository_->list(query);
    ASSERT_TRUE(listed);
    EXPECT_TRUE(listed->empty());
}

TEST_P(StorageList, LimitIsCappedAndZeroGivesNothing) {
    for (int i = 0; i < 250; ++i) {
        repository_->write(created(make_game("bulk" + std::to_string(i), 1000 + i)), {});
    }
    repository_->flush();
    GameQuery huge;
    huge.limit = 100000;
    EXPECT_EQ(listed_ids(huge).size(), 200U);
    GameQuery none;
    none.limit = 0;
    EXPECT_TRUE(listed_ids(none).empty());
    GameQuery three;
    three.limit = 3;
    EXPECT_EQ(listed_ids(three), (Ids{"bulk249", "bulk248", "bulk247"}));
}

TEST_P(StorageRepository, SizeGrowsWithWritesAndWritableHoldsWhenIdle) {
    const std::uint64_t before = repository_->size_bytes();
    EXPECT_GT(before, 0U);
    GameRow game = make_game("big", 1);
    // Letters that do not compress: PostgreSQL compresses a long text before it stores it (200 kB
    // of one letter take 2 kB), and the size must grow by what a write really adds.
    game.initial_position.resize(200000);
    std::uint32_t state = 12345;
    for (char& letter : game.initial_position) {
        state = state * 1103515245U + 12345U;
        letter = static_cast<char>('a' + (state >> 16) % 26);
    }
    ASSERT_TRUE(write_and_wait(*repository_, created(game)));
    EXPECT_GT(repository_->size_bytes(), before + 100000);
    EXPECT_TRUE(repository_->writable());
}

INSTANTIATE_TEST_SUITE_P(Engines, StorageRepository,
                         ::testing::ValuesIn(testing::engines_under_test()), testing::engine_name);
INSTANTIATE_TEST_SUITE_P(Engines, StorageList, ::testing::ValuesIn(testing::engines_under_test()),
                         testing::engine_name);

}  // namespace
}  // namespace arbiter::server::storage
