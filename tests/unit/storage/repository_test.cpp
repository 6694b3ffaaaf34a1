#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::header_only;
using testing::make_game;
using testing::make_move;
using testing::TempDatabase;
using testing::with_move;
using testing::write_and_wait;

class StorageRepository : public ::testing::Test {
  protected:
    void SetUp() override {
        SqliteOptions options;
        options.synchronous = Synchronous::normal;  // these tests are about content, not fsync
        repository_ = testing::open_or_die(database_.path(), options);
        ASSERT_NE(repository_, nullptr);
    }

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

    TempDatabase database_;
    std::unique_ptr<SqliteRepository> repository_;
};

GameRow full_game() {
    GameRow game;
    game.id = "g-full";
    game.variant = rules::Variant::xiangqi;
    game.initial_position = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    game.is_private = true;
    game.clock_initial_ms = 300000;
    game.clock_increment_ms = 2000;
    game.status = "ended";
    game.result = "0-1";
    game.reason = "checkmate";
    game.seats[0] = SeatRow{"alice", std::string(64, 'a'), "", 0};
    // An engine seat records its engine and level (migration 0002).
    game.seats[1] =
        SeatRow{"Fairy-Stockfish (level 5)", std::string(64, 'b'), "fairy-stockfish", 5};
    game.clock_ms = {123456, 654321};
    game.seq = 42;
    game.ply = 2;
    game.created_ms = 1700000000000;
    game.updated_ms = 1700000005000;
    game.rematch_of = "g-before";
    game.rematch_next = "g-after";
    game.offers = "rematch:second";  // migration 0004
    return game;
}

void expect_same_game(const GameRow& actual, const GameRow& expected) {
    EXPECT_EQ(actual.id, expected.id);
    EXPECT_EQ(actual.variant, expected.variant);
    EXPECT_EQ(actual.initial_position, expected.initial_position);
    EXPECT_EQ(actual.is_private, expected.is_private);
    EXPECT_EQ(actual.clock_initial_ms, expected.clock_initial_ms);
    EXPECT_EQ(actual.clock_increment_ms, expected.clock_increment_ms);
    EXPECT_EQ(actual.status, expected.status);
    EXPECT_EQ(actual.result, expected.result);
    EXPECT_EQ(actual.reason, expected.reason);
    for (std::size_t seat = 0; seat < 2; ++seat) {
        EXPECT_EQ(actual.seats[seat].name, expected.seats[seat].name);
        EXPECT_EQ(actual.seats[seat].token_hash, expected.seats[seat].token_hash);
        EXPECT_EQ(actual.seats[seat].engine, expected.seats[seat].engine);
        EXPECT_EQ(actual.seats[seat].engine_level, expected.seats[seat].engine_level);
        EXPECT_EQ(actual.clock_ms[seat], expected.clock_ms[seat]);
    }
    EXPECT_EQ(actual.seq, expected.seq);
    EXPECT_EQ(actual.ply, expected.ply);
    EXPECT_EQ(actual.created_ms, expected.created_ms);
    EXPECT_EQ(actual.updated_ms, expected.updated_ms);
    EXPECT_EQ(actual.rematch_of, expected.rematch_of);
    EXPECT_EQ(actual.rematch_next, expected.rematch_next);
    EXPECT_EQ(actual.offers, expected.offers);
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
}

TEST_F(StorageRepository, EveryFieldRoundTrips) {
    GameRow game = full_game();
    MoveRow first = make_move(1, "h2e2");
    first.notation = "C2=5";
    first.clock_ms = 299000;
    first.think_ms = 3000;
    MoveRow second = make_move(2, "h9g7");
    second.notation = "H8+7";  // untimed fields left empty: NULL must come back as nullopt
    ASSERT_TRUE(write_and_wait(*repository_, GameWrite{game, {}, first}));
    ASSERT_TRUE(write_and_wait(*repository_, GameWrite{game, {}, second}));

    const StoredGame loaded = load_or_fail(game.id);
    expect_same_game(loaded.header, game);
    ASSERT_EQ(loaded.moves.size(), 2U);
    expect_same_move(loaded.moves[0], first);
    expect_same_move(loaded.moves[1], second);
}

TEST_F(StorageRepository, UntimedPublicGameRoundTrips) {
    GameRow game = make_game("g-plain", 5);
    game.variant = rules::Variant::draughts;
    ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
    expect_same_game(load_or_fail(game.id).header, game);
}

TEST_F(StorageRepository, HeaderUpdateReplacesFieldsButKeepsCreationTime) {
    GameRow game = full_game();
    ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
    GameRow updated = game;
    updated.status = "playing";
    updated.result = "";
    updated.seq = 43;
    updated.clock_ms = {1, 2};
    updated.rematch_next.reset();
    updated.offers.clear();
    updated.updated_ms += 10;
    updated.created_ms += 999;  // ignored: the list order of a game never changes
    ASSERT_TRUE(write_and_wait(*repository_, header_only(updated)));
    GameRow expected = updated;
    expected.created_ms = game.created_ms;
    expect_same_game(load_or_fail(game.id).header, expected);
}

// A write that changes only a move's columns updates just those; any other change must still
// reach the row. Each step changes one field that the short update does not write.
TEST_F(StorageRepository, EveryHeaderChangeAfterMovesIsStored) {
    GameRow game = full_game();
    game.status = "playing";
    game.result = "";
    game.reason = "";
    game.rematch_next.reset();
    ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
    const std::vector<std::function<void(GameRow&)>> changes = {
        [](GameRow& g) { g.seats[1].name = "bob"; },
        [](GameRow& g) { g.seats[0].token_hash = std::string(64, 'c'); },
        [](GameRow& g) { g.seats[1].engine = "stockfish"; },
        [](GameRow& g) { g.seats[1].engine_level = 7; },
        [](GameRow& g) { g.is_private = false; },
        [](GameRow& g) { g.clock_increment_ms = 0; },
        [](GameRow& g) { g.initial_position = "another start"; },
        [](GameRow& g) { g.variant = rules::Variant::chess; },
        [](GameRow& g) { g.rematch_of.reset(); },
        [](GameRow& g) { g.rematch_next = "g-next"; },
        [](GameRow& g) { g.offers = "draw:first,takeback:second"; },
        [](GameRow& g) { g.offers.clear(); },
        [](GameRow& g) {
            g.status = "ended";
            g.result = "1-0";
            g.reason = "resign";
        },
    };
    std::uint32_t ply = 0;
    for (const auto& change : changes) {
        // Two moves first, so that the next write finds this header remembered.
        for (int i = 0; i < 2; ++i) {
            ++ply;
            game.ply = ply;
            game.seq = 100 + ply;
            game.clock_ms = {1000 + ply, 2000 + ply};
            game.updated_ms += 1;
            ASSERT_TRUE(write_and_wait(
                *repository_, GameWrite{game, {}, make_move(ply, "m" + std::to_string(ply))}));
            expect_same_game(load_or_fail(game.id).header, game);
        }
        change(game);
        game.updated_ms += 1;
        ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
        expect_same_game(load_or_fail(game.id).header, game);
    }
    EXPECT_EQ(load_or_fail(game.id).moves.size(), ply);
}

TEST_F(StorageRepository, ProgressWriteRecreatesARowDeletedBehindTheRepository) {
    GameRow game = make_game("g-gone", 1);
    game.status = "playing";
    ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
    {
        auto other = sqlite::Connection::open(database_.path(), false);
        ASSERT_TRUE(other);
        other->set_busy_timeout(5000);
        ASSERT_TRUE(other->exec("DELETE FROM games WHERE id = 'g-gone'"));
    }
    game.ply = 1;
    game.seq = 2;
    game.clock_ms = {5, 6};
    ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
    expect_same_game(load_or_fail(game.id).header, game);
}

TEST_F(StorageRepository, UnknownGameLoadsAsNothing) {
    auto loaded = repository_->load("no-such-game");
    ASSERT_TRUE(loaded);
    EXPECT_FALSE(loaded->has_value());
}

TEST_F(StorageRepository, InvalidHeaderIsRefused) {
    GameRow game = make_game("g-bad", 1);
    game.status = "paused";
    auto written = write_and_wait(*repository_, header_only(game));
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("CHECK"), std::string::npos) << written.error().message;
    GameRow half_clock = make_game("g-half-clock", 1);
    half_clock.clock_initial_ms = 60000;
    EXPECT_FALSE(write_and_wait(*repository_, header_only(half_clock)));
    EXPECT_FALSE(repository_->load("g-bad")->has_value());
    EXPECT_FALSE(repository_->load("g-half-clock")->has_value());
}

TEST_F(StorageRepository, LoadUnfinishedReturnsWaitingAndPlayingGamesWithMoves) {
    GameRow waiting = make_game("waiting", 1);
    GameRow playing = make_game("playing", 2);
    playing.status = "playing";
    GameRow ended = make_game("ended", 3);
    ended.status = "ended";
    GameRow aborted = make_game("aborted", 4);
    aborted.status = "aborted";
    for (const GameRow& game : {waiting, playing, ended, aborted}) {
        ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
    }
    ASSERT_TRUE(write_and_wait(*repository_, with_move(playing, make_move(1, "e2e4"))));
    ASSERT_TRUE(write_and_wait(*repository_, GameWrite{ended, {}, make_move(1, "d2d4")}));

    auto unfinished = repository_->load_unfinished();
    ASSERT_TRUE(unfinished);
    ASSERT_EQ(unfinished->size(), 2U);
    EXPECT_EQ((*unfinished)[0].header.id, "waiting");
    EXPECT_TRUE((*unfinished)[0].moves.empty());
    EXPECT_EQ((*unfinished)[1].header.id, "playing");
    ASSERT_EQ((*unfinished)[1].moves.size(), 1U);
    EXPECT_EQ((*unfinished)[1].moves[0].move, "e2e4");
}

TEST_F(StorageRepository, ReappendingTheSameMoveIsIdempotent) {
    const GameRow game = make_game("g", 1);
    ASSERT_TRUE(write_and_wait(*repository_, with_move(game, make_move(1, "e2e4"))));
    MoveRow again = make_move(1, "e2e4");
    again.notation = "resent";
    ASSERT_TRUE(write_and_wait(*repository_, with_move(game, again)));
    const StoredGame loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 1U);
    EXPECT_EQ(loaded.moves[0].notation, "e2e4");  // the first write stands
}

TEST_F(StorageRepository, DifferentMoveAtAnOccupiedPlyIsRefusedWithItsHeader) {
    GameRow game = make_game("g", 1);
    ASSERT_TRUE(write_and_wait(*repository_, with_move(game, make_move(1, "e2e4"))));
    GameRow changed_header = game;
    changed_header.reason = "should not land";
    auto written = write_and_wait(*repository_, with_move(changed_header, make_move(1, "d2d4")));
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("e2e4"), std::string::npos) << written.error().message;
    const StoredGame loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 1U);
    EXPECT_EQ(loaded.moves[0].move, "e2e4");
    EXPECT_EQ(loaded.header.reason, "");  // the whole write rolled back, header included
}

TEST_F(StorageRepository, TruncateRemovesMovesFromThePlyOnBeforeTheAppend) {
    const GameRow game = make_game("g", 1);
    const char* moves[] = {"e2e4", "e7e5", "g1f3", "b8c6"};
    for (std::uint32_t ply = 1; ply <= 4; ++ply) {
        ASSERT_TRUE(write_and_wait(*repository_, with_move(game, make_move(ply, moves[ply - 1]))));
    }
    // Takeback of two plies, then a different third move.
    ASSERT_TRUE(write_and_wait(*repository_, GameWrite{game, 3U, make_move(3, "f1c4")}));
    StoredGame loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 3U);
    EXPECT_EQ(loaded.moves[2].move, "f1c4");
    // A truncate alone.
    ASSERT_TRUE(write_and_wait(*repository_, GameWrite{game, 2U, std::nullopt}));
    loaded = load_or_fail("g");
    ASSERT_EQ(loaded.moves.size(), 1U);
    EXPECT_EQ(loaded.moves[0].move, "e2e4");
}

class StorageList : public StorageRepository {
  protected:
    void SetUp() override {
        StorageRepository::SetUp();
        struct Spec {
            const char* id;
            std::int64_t created_ms;
            const char* status;
            rules::Variant variant;
            bool is_private;
        };
        const Spec specs[] = {
            {"a", 100, "waiting", rules::Variant::chess, false},
            {"b", 200, "playing", rules::Variant::xiangqi, false},
            {"c", 200, "ended", rules::Variant::chess, false},  // same ms as b: id breaks ties
            {"d", 300, "ended", rules::Variant::draughts, false},
            {"e", 400, "waiting", rules::Variant::chess, true},
            {"f", 500, "ended", rules::Variant::chess, false},
        };
        for (const Spec& spec : specs) {
            GameRow game = make_game(spec.id, spec.created_ms);
            game.status = spec.status;
            game.variant = spec.variant;
            game.is_private = spec.is_private;
            repository_->write(header_only(game), {});
        }
        repository_->flush();
    }
};

using Ids = std::vector<std::string>;

TEST_F(StorageList, NewestFirstWithoutPrivateGamesByDefault) {
    EXPECT_EQ(listed_ids({}), (Ids{"f", "d", "c", "b", "a"}));
}

TEST_F(StorageList, IncludePrivateShowsThem) {
    GameQuery query;
    query.include_private = true;
    EXPECT_EQ(listed_ids(query), (Ids{"f", "e", "d", "c", "b", "a"}));
}

TEST_F(StorageList, FiltersByStatusAndVariant) {
    GameQuery ended;
    ended.status = "ended";
    EXPECT_EQ(listed_ids(ended), (Ids{"f", "d", "c"}));
    GameQuery chess_ended = ended;
    chess_ended.variant = rules::Variant::chess;
    EXPECT_EQ(listed_ids(chess_ended), (Ids{"f", "c"}));
    GameQuery xiangqi;
    xiangqi.variant = rules::Variant::xiangqi;
    EXPECT_EQ(listed_ids(xiangqi), (Ids{"b"}));
    GameQuery unknown_status;
    unknown_status.status = "nonsense";
    EXPECT_TRUE(listed_ids(unknown_status).empty());
}

TEST_F(StorageList, KeysetPagingVisitsEveryGameOnce) {
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

TEST_F(StorageList, BeforeCombinesWithFilters) {
    GameQuery query;
    query.status = "ended";
    query.before = "d";
    EXPECT_EQ(listed_ids(query), (Ids{"c"}));
}

TEST_F(StorageList, UnknownBeforeGivesAnEmptyPage) {
    GameQuery query;
    query.before = "no-such-game";
    auto listed = repository_->list(query);
    ASSERT_TRUE(listed);
    EXPECT_TRUE(listed->empty());
}

TEST_F(StorageList, LimitIsCappedAndZeroGivesNothing) {
    for (int i = 0; i < 250; ++i) {
        repository_->write(header_only(make_game("bulk" + std::to_string(i), 1000 + i)), {});
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

TEST_F(StorageRepository, SizeGrowsWithWritesAndWritableHoldsWhenIdle) {
    const std::uint64_t before = repository_->size_bytes();
    EXPECT_GT(before, 0U);
    GameRow game = make_game("big", 1);
    game.initial_position = std::string(200000, 'x');
    ASSERT_TRUE(write_and_wait(*repository_, header_only(game)));
    EXPECT_GT(repository_->size_bytes(), before + 100000);
    EXPECT_TRUE(repository_->writable());
}

}  // namespace
}  // namespace arbiter::server::storage
