// Rated games (issue 40): who may create and join one (pure rules), the rating book (Glicko-2
// settles, two games of one player ending in turn, undo of a settle whose commit failed), and
// the table's join of a rated seek, with time as a value.
#include <gtest/gtest.h>

#include "server/app/rated_rules.hpp"
#include "server/app/rating_book.hpp"
#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using protocol::ErrorCode;
using protocol::RatingRange;
using rules::Outcome;
using rules::Variant;
using testing::at;

constexpr Perf kChessBlitz{Variant::chess, RatedSpeed::blitz};
constexpr std::int64_t kDayMs = 86'400'000;

protocol::Create rated_create() {
    protocol::Create create;
    create.rated = true;
    create.clock = protocol::ClockSpec{180'000, 2'000};
    return create;
}

// ---- create and join ------------------------------------------------------------------------

TEST(RatedRules, ASignedInPlayerCreatesATimedRatedGameFromTheStart) {
    EXPECT_EQ(rated_create_refusal(rated_create(), true, true), std::nullopt);
    protocol::Create casual;  // not rated: nothing to refuse, signed in or not
    EXPECT_EQ(rated_create_refusal(casual, false, false), std::nullopt);
}

TEST(RatedRules, ARatedGameIsRefusedToAGuestUntimedAgainstAnEngineOrFromASetUpPosition) {
    EXPECT_NE(rated_create_refusal(rated_create(), false, true)->find("sign in"),
              std::string::npos);
    auto untimed = rated_create();
    untimed.clock.reset();
    EXPECT_NE(rated_create_refusal(untimed, true, true)->find("untimed"), std::string::npos);
    auto engine = rated_create();
    engine.opponent = protocol::EngineOpponent{"builtin", 3};
    EXPECT_NE(rated_create_refusal(engine, true, true)->find("engine"), std::string::npos);
    EXPECT_NE(rated_create_refusal(rated_create(), true, false)->find("set-up position"),
              std::string::npos);
}

TEST(RatedRules, JoinIsRefusedToAGuestTheCreatorAndARatingOutsideTheRange) {
    const RatedSeek open{RatedSpeed::blitz, 1, std::nullopt};
    EXPECT_EQ(rated_join_refusal(open, 2, 1500), std::nullopt);
    EXPECT_EQ(rated_join_refusal(open, std::nullopt, 1500), "sign in to join a rated game");
    EXPECT_EQ(rated_join_refusal(open, 1, 1500), "this is your own game");
    const RatedSeek ranged{RatedSpeed::blitz, 1, RatingRange{1500, 1800}};
    EXPECT_EQ(rated_join_refusal(ranged, 2, 1450), "your blitz rating 1450 is outside 1500-1800");
    EXPECT_EQ(rated_join_refusal(ranged, 2, 1801), "your blitz rating 1801 is outside 1500-1800");
    EXPECT_EQ(rated_join_refusal(ranged, 2, 1500), std::nullopt);
    EXPECT_EQ(rated_join_refusal(ranged, 2, 1800), std::nullopt);
    const RatedSeek floor{RatedSpeed::rapid, 1, RatingRange{1500, std::nullopt}};
    EXPECT_EQ(rated_join_refusal(floor, 2, 1499), "your rapid rating 1499 is below 1500");
    EXPECT_EQ(rated_join_refusal(floor, 2, 2900), std::nullopt);
}

// ---- the rating book ------------------------------------------------------------------------

TEST(RatingBook, ANewPlayerHasTheDefaultRatingAndItIsProvisional) {
    const RatingBook book;
    EXPECT_EQ(book.current(7, kChessBlitz, 0).rating, 1500.0);
    EXPECT_EQ(book.current(7, kChessBlitz, 0).deviation, 350.0);
    EXPECT_EQ(book.shown(7, kChessBlitz, 0), (protocol::PlayerRating{1500, true}));
}

TEST(RatingBook, ASettleRatesEachAgainstTheOtherAndTheBookTakesIt) {
    RatingBook book;
    const auto settled = book.settle({1, 2}, kChessBlitz, Outcome::first_wins, 1000);
    const glicko2::GameResult win{glicko2::Rating{}, 1.0};
    const auto expected = glicko2::rate(glicko2::Rating{}, std::span(&win, 1), {});
    EXPECT_DOUBLE_EQ(settled.after[0].rating.rating, expected.rating);
    EXPECT_DOUBLE_EQ(settled.after[1].rating.rating, 3000.0 - expected.rating);
    EXPECT_EQ(settled.after[0].games, 1);
    EXPECT_EQ(book.current(1, kChessBlitz, 1000), settled.after[0].rating);
    // Another pool is untouched.
    EXPECT_EQ(book.current(1, Perf{Variant::chess, RatedSpeed::rapid}, 1000).rating, 1500.0);
    const auto shown = settled.shown();
    EXPECT_EQ(shown.first.before, 1500);
    EXPECT_EQ(shown.first.diff, shown.first.after - 1500);
    EXPECT_GT(shown.first.diff, 0);
    EXPECT_EQ(shown.second.diff, -shown.first.diff);
    EXPECT_TRUE(shown.first.provisional);
    const auto stored = settled.stored();
    EXPECT_EQ(stored.speed, "blitz");
    EXPECT_EQ(stored.seats[1].user_id, 2);
    EXPECT_EQ(stored.seats[0].diff, shown.first.diff);
}

TEST(RatingBook, TwoGamesOfOnePlayerEndingInTurnBothCount) {
    RatingBook book;
    const auto first = book.settle({1, 2}, kChessBlitz, Outcome::first_wins, 1000);
    const auto second = book.settle({3, 1}, kChessBlitz, Outcome::second_wins, 2000);
    // Player 1's second game starts from the first's result, not from the default.
    EXPECT_EQ(second.before[1], rating_at(first.after[0].rating, 1000, 2000));
    EXPECT_EQ(second.after[1].games, 2);
    EXPECT_GT(second.after[1].rating.rating, first.after[0].rating.rating);
}

TEST(RatingBook, DeviationGrowsWithTimeAway) {
    RatingBook book;
    const auto settled = book.settle({1, 2}, kChessBlitz, Outcome::draw, 0);
    const auto later = book.current(1, kChessBlitz, 100 * kDayMs);
    EXPECT_EQ(later.rating, settled.after[0].rating.rating);
    EXPECT_GT(later.deviation, settled.after[0].rating.deviation);
}

TEST(RatingBook, UndoRestoresTheRatingsBeforeAFailedSettle) {
    RatingBook book;
    book.load({storage::RatingRow{Variant::chess, "blitz", 1700.0, 80.0, 0.06, 30, 0, 1}});
    const auto settled = book.settle({1, 2}, kChessBlitz, Outcome::second_wins, 1000);
    book.undo(settled);
    EXPECT_EQ(book.current(1, kChessBlitz, 0), (glicko2::Rating{1700.0, 80.0, 0.06}));
    EXPECT_EQ(book.shown(1, kChessBlitz, 0), (protocol::PlayerRating{1700, false}));
    EXPECT_EQ(book.current(2, kChessBlitz, 0), glicko2::Rating{});  // no entry again
    // A settle undone after another changed the same player leaves that one's result.
    const auto failed = book.settle({1, 2}, kChessBlitz, Outcome::first_wins, 2000);
    const auto kept = book.settle({1, 3}, kChessBlitz, Outcome::draw, 3000);
    book.undo(failed);
    EXPECT_EQ(book.current(1, kChessBlitz, 3000), kept.after[0].rating);
    EXPECT_EQ(book.current(2, kChessBlitz, 0), glicko2::Rating{});
}

// A stale end (another node, or a settle whose own commit failed) is rated again from the stored
// rows: they replace the book's entries in that pool, even one that counts more games, and a
// player with no stored row there has none; other pools are left as they are.
TEST(RatingBook, ARefreshTakesTheStoredRowsOfItsPoolAsTheTruth) {
    RatingBook book;
    book.load({storage::RatingRow{Variant::chess, "blitz", 1700.0, 80.0, 0.06, 30, 0, 1},
               storage::RatingRow{Variant::chess, "rapid", 1600.0, 90.0, 0.06, 5, 0, 1}});
    EXPECT_FALSE(book.refresh({1, 2}, kChessBlitz)) << "no source to read";
    book.settle({1, 2}, kChessBlitz, Outcome::first_wins, 1000);  // book: 31 and 1 games
    int reads = 0;
    book.set_source([&](std::int64_t user) {
        ++reads;
        std::vector<storage::RatingRow> rows;
        if (user == 1) {
            rows.push_back(
                storage::RatingRow{Variant::chess, "blitz", 1650.0, 70.0, 0.06, 30, 0, 1});
        }
        return Expected<std::vector<storage::RatingRow>, storage::StorageError>(std::move(rows));
    });
    EXPECT_TRUE(book.refresh({1, 2}, kChessBlitz));
    EXPECT_EQ(reads, 2);
    EXPECT_EQ(book.entry(1, kChessBlitz)->games, 30);
    EXPECT_EQ(book.current(1, kChessBlitz, 0), (glicko2::Rating{1650.0, 70.0, 0.06}));
    EXPECT_FALSE(book.entry(2, kChessBlitz).has_value());
    EXPECT_EQ(book.entry(1, Perf{Variant::chess, RatedSpeed::rapid})->games, 5);
    book.set_source([](std::int64_t) {
        return Expected<std::vector<storage::RatingRow>, storage::StorageError>(
            unexpected(storage::StorageError{"connection lost"}));
    });
    EXPECT_FALSE(book.refresh({1, 2}, kChessBlitz));
}

// ---- the table ------------------------------------------------------------------------------

Table rated_seek(std::optional<RatingRange> range) {
    auto setup = testing::waiting_game();
    setup.clock = protocol::ClockSpec{180'000, 2'000};
    auto header = testing::header_of(setup);
    header.rated = true;
    header.rating_range = range;
    header.seats[0].user_id = 1;
    header.seats[0].rating = protocol::PlayerRating{1500, true};
    Table table = Table::open(header, rules::make_game(Variant::chess, "").value(), {});
    table.set_seat_connected(testing::kWhite, true);
    auto created = table.decide(command::Create{}, at(0));
    table.apply(*created, at(0));
    return table;
}

command::Join join_as(std::optional<std::int64_t> user, int rating) {
    return command::Join{"Bo", "hash-bo", {}, user, protocol::PlayerRating{rating, false}};
}

TEST(TableRated, AJoinInsideTheRangeSeatsTheAccountWithItsRating) {
    Table table = rated_seek(RatingRange{1400, 1600});
    auto decision = testing::commit(table, join_as(2, 1550), at(10));
    const auto& seated = testing::intent_as<storage::SeatPlayer>(decision);
    EXPECT_EQ(seated.seat.user_id, 2);
    EXPECT_EQ(seated.seat.rating, (protocol::PlayerRating{1550, false}));
    EXPECT_EQ(table.seat(testing::kBlack).user_id, 2);
    const auto state = table.state(std::nullopt, 0, at(10).steady);
    EXPECT_TRUE(state.rated);
    EXPECT_EQ(state.rating_range, (RatingRange{1400, 1600}));
    EXPECT_EQ(state.second->rating, (protocol::PlayerRating{1550, false}));
    EXPECT_FALSE(state.second->guest);
    EXPECT_EQ(table.row().seats[1].user_id, 2);
    EXPECT_TRUE(table.row().rated);
}

TEST(TableRated, AJoinIsRefusedToAGuestTheCreatorAndOutsideTheRange) {
    Table table = rated_seek(RatingRange{1400, 1600});
    for (const auto& join : {join_as(std::nullopt, 1500), join_as(1, 1500), join_as(2, 1399)}) {
        const auto refused = testing::refusal(table, join, at(10));
        EXPECT_EQ(refused.code, ErrorCode::forbidden) << refused.message;
    }
    EXPECT_EQ(table.status(), protocol::GameStatus::waiting);
}

TEST(TableRated, AGuestSeatIsMarkedAndAnUnratedGameShowsNoRating) {
    Table table = testing::new_table();
    const auto state = table.state(std::nullopt, 0, at(0).steady);
    EXPECT_TRUE(state.first->guest);
    EXPECT_EQ(state.first->rating, std::nullopt);
    EXPECT_FALSE(state.rated);
}

TEST(TableRated, TheEndedEventNamesItsVariantForTheSeatsOfItsRatings) {
    auto setup = testing::variant_game(Variant::xiangqi);
    Table table = testing::new_table(setup);
    auto decision = testing::commit(
        table, command::Resign{HeldSeats::only(testing::kWhite), testing::steady(5)}, at(5));
    const auto& ended = testing::event_as<protocol::Ended>(decision, 0);
    EXPECT_EQ(ended.variant, Variant::xiangqi);
    EXPECT_EQ(ended.ratings, std::nullopt);  // the room attaches them (room_test)
}

}  // namespace
}  // namespace arbiter::server::app
