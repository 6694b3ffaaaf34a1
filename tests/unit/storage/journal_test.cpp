// The move journal (schema 0003): a move that does not end its game commits as a journal row,
// readers see it at once, and filing moves it into `moves` and `games` without changing what any
// read returns. Checked against the tables themselves, since the journal is invisible through
// the repository's interface by design.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using protocol::EndReason;
using protocol::GameStatus;
using protocol::OfferKind;
using testing::after;
using testing::created;
using testing::make_game;
using testing::make_move;
using testing::TempDatabase;
using testing::write_and_wait;

SqliteOptions journal_options(std::size_t journal_rows) {
    SqliteOptions options;
    options.synchronous = Synchronous::normal;
    options.journal_rows = journal_rows;
    return options;
}

// The next move of `game`, with the columns a move changes moved on as a room does; `game`
// becomes the row after it.
AppendMove next_move(GameRow& game, const std::string& move) {
    std::array<std::int64_t, 2> clock_ms = game.clock_ms;
    clock_ms[(game.ply + 1) % 2] -= 100;
    MoveRow row = make_move(game.ply + 1, move);
    row.seq = game.seq + 1;
    row.clock_ms = clock_ms[(game.ply + 1) % 2];
    row.played_ms = game.updated_ms + 10;
    AppendMove append{game.id, row, clock_ms, row.seq, std::nullopt};
    game = after(game, append);
    return append;
}

GameRow playing_game(const std::string& id) {
    GameRow game = make_game(id, 1);
    game.status = GameStatus::playing;
    game.clock_initial_ms = 60000;
    game.clock_increment_ms = 0;
    game.clock_ms = {60000, 60000};
    return game;
}

// A store filing its journal every `journal_rows` rows, with `games` created; nullptr (and a
// failure) if either step fails.
std::unique_ptr<SqliteRepository> store_with(const TempDatabase& database, std::size_t journal_rows,
                                             const std::vector<GameRow>& games) {
    auto repository = testing::open_or_die(database.path(), journal_options(journal_rows));
    for (const GameRow& game : games) {
        if (repository && !write_and_wait(*repository, created(game))) {
            ADD_FAILURE() << "creating " << game.id;
            return nullptr;
        }
    }
    return repository;
}

// A count read straight from the file, beside the repository's own connections.
std::int64_t count(const std::string& path, const std::string& sql) {
    auto connection = sqlite::Connection::open(path, false);
    EXPECT_TRUE(connection);
    if (!connection) {
        return -1;
    }
    connection->set_busy_timeout(5000);
    auto value = connection->query_int64(sql);
    EXPECT_TRUE(value) << sql;
    return value.value_or(-1);
}

std::int64_t journal_rows(const std::string& path) {
    return count(path, "SELECT count(*) FROM move_journal");
}

std::int64_t filed_moves(const std::string& path, const std::string& game) {
    return count(path, "SELECT count(*) FROM moves WHERE game_id = '" + game + "'");
}

void expect_moves(GameRepository& repository, const GameRow& header,
                  const std::vector<std::string>& moves) {
    auto loaded = repository.load(header.id);
    ASSERT_TRUE(loaded && loaded->has_value());
    const StoredGame& game = **loaded;
    ASSERT_EQ(game.moves.size(), moves.size());
    for (std::size_t i = 0; i < moves.size(); ++i) {
        EXPECT_EQ(game.moves[i].ply, i + 1);
        EXPECT_EQ(game.moves[i].move, moves[i]);
    }
    EXPECT_EQ(game.header.ply, header.ply);
    EXPECT_EQ(game.header.seq, header.seq);
    EXPECT_EQ(game.header.clock_ms, header.clock_ms);
    EXPECT_EQ(game.header.updated_ms, header.updated_ms);
    EXPECT_EQ(game.header.status, header.status);
}

TEST(StorageJournal, JournaledMovesAreReadAsStoredAndFiledWhenTheStoreCloses) {
    TempDatabase database;
    GameRow game = playing_game("j");
    const std::vector<std::string> moves = {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5"};
    {
        auto repository = testing::open_or_die(database.path(), journal_options(1000));
        ASSERT_NE(repository, nullptr);
        ASSERT_TRUE(write_and_wait(*repository, created(game)));
        for (const std::string& move : moves) {
            ASSERT_TRUE(write_and_wait(*repository, next_move(game, move)));
        }
        // Every move after the header went to the journal; reads merge it.
        EXPECT_EQ(journal_rows(database.path()), 5);
        EXPECT_EQ(filed_moves(database.path(), "j"), 0);
        expect_moves(*repository, game, moves);
        auto listed = repository->list(GameQuery{});
        ASSERT_TRUE(listed);
        ASSERT_EQ(listed->size(), 1U);
        EXPECT_EQ(listed->front().ply, 5U);
        EXPECT_EQ(listed->front().clock_ms, game.clock_ms);
        auto unfinished = repository->load_unfinished();
        ASSERT_TRUE(unfinished);
        ASSERT_EQ(unfinished->size(), 1U);
        EXPECT_EQ(unfinished->front().moves.size(), 5U);
        EXPECT_EQ(unfinished->front().header.seq, game.seq);
    }
    // Closed: filed into `moves`, and the header row took the last move's columns.
    EXPECT_EQ(journal_rows(database.path()), 0);
    EXPECT_EQ(filed_moves(database.path(), "j"), 5);
    EXPECT_EQ(count(database.path(), "SELECT ply FROM games WHERE id = 'j'"), 5);
    EXPECT_EQ(count(database.path(), "SELECT second_clock_ms FROM games WHERE id = 'j'"),
              game.clock_ms[1]);
    auto reopened = testing::open_or_die(database.path(), journal_options(1000));
    ASSERT_NE(reopened, nullptr);
    expect_moves(*reopened, game, moves);
}

// Writes one optional field of five moves (`set`), and checks that each reads back as written
// (`get`): from the journal, once filed into `moves`, from `moves` written directly (no journal),
// and after a reopen. `filed` is a query on `moves` once filed, and `filed_value` its answer.
template <typename T, typename Set, typename Get>
void expect_field_read_back(const std::vector<std::optional<T>>& values, Set set, Get get,
                            const std::string& filed, std::int64_t filed_value) {
    const auto expect_values = [&](GameRepository& repository, const std::string& id) {
        auto loaded = repository.load(id);
        ASSERT_TRUE(loaded && loaded->has_value());
        ASSERT_EQ((*loaded)->moves.size(), values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            EXPECT_EQ(get((*loaded)->moves[i]), values[i]) << id << " ply " << i + 1;
        }
    };
    for (const std::size_t journal : {std::size_t{1000}, std::size_t{0}}) {
        TempDatabase database;
        GameRow game = playing_game("c");
        {
            auto repository = store_with(database, journal, {game});
            ASSERT_NE(repository, nullptr);
            for (const auto& value : values) {
                AppendMove write = next_move(game, "m" + std::to_string(game.ply + 1));
                set(write.move, value);
                ASSERT_TRUE(write_and_wait(*repository, std::move(write)));
            }
            EXPECT_EQ(journal_rows(database.path()), journal > 0 ? 5 : 0);
            expect_values(*repository, "c");
        }
        EXPECT_EQ(journal_rows(database.path()), 0);
        EXPECT_EQ(count(database.path(), filed), filed_value);
        auto reopened = testing::open_or_die(database.path(), journal_options(journal));
        ASSERT_NE(reopened, nullptr);
        expect_values(*reopened, "c");
    }
}

// A move's check flag (schema version 5) is read back as written; a row without one (as rows
// from before version 5 are) reads back without one.
TEST(StorageJournal, EachMovesCheckFlagIsReadBackAsWrittenBeforeAndAfterFiling) {
    expect_field_read_back<bool>(
        {false, true, std::nullopt, false, true},
        [](auto& move, std::optional<bool> flag) { move.check = flag; },
        [](const auto& move) { return move.check; },
        "SELECT count(*) FROM moves WHERE in_check IS NULL", 1);
}

// A move's lag credit (schema version 7, protocol.md, Lag compensation) is read back as written;
// a row without one (an untimed move) reads back without one.
TEST(StorageJournal, EachMovesLagCreditIsReadBackAsWrittenBeforeAndAfterFiling) {
    expect_field_read_back<std::int64_t>(
        {0, 180, std::nullopt, 0, 2'730},
        [](auto& move, std::optional<std::int64_t> credit) { move.lag_ms = credit; },
        [](const auto& move) { return move.lag_ms; }, "SELECT sum(lag_ms) FROM moves", 180 + 2'730);
}

TEST(StorageJournal, FilingAtTheThresholdKeepsTheJournalShortAndTheGameWhole) {
    TempDatabase database;
    GameRow first = playing_game("a");
    GameRow second = playing_game("b");
    auto repository = store_with(database, 4, {first, second});
    ASSERT_NE(repository, nullptr);
    std::vector<std::string> moves;
    for (int i = 0; i < 11; ++i) {
        moves.push_back("m" + std::to_string(i));
        ASSERT_TRUE(write_and_wait(*repository, next_move(first, moves.back())));
        ASSERT_TRUE(write_and_wait(*repository, next_move(second, moves.back())));
    }
    repository->flush();
    EXPECT_GE(repository->stats().filings, 5U);
    EXPECT_LT(journal_rows(database.path()), 4);
    EXPECT_EQ(filed_moves(database.path(), "a") + filed_moves(database.path(), "b") +
                  journal_rows(database.path()),
              22);
    expect_moves(*repository, first, moves);
    expect_moves(*repository, second, moves);
}

// Filing sets each game's row from what the writer remembers of its journal rows. A rolled-back
// batch makes it forget, while rows committed before stay in the journal: it must then read
// those games' last rows from the journal itself.
TEST(StorageJournal, AfterARollbackTheFilingReadsTheHeadersFromTheJournal) {
    TempDatabase database;
    GameRow quiet = playing_game("q");
    GameRow busy = playing_game("b");
    auto repository = store_with(database, 6, {quiet, busy});
    ASSERT_NE(repository, nullptr);
    ASSERT_TRUE(write_and_wait(*repository, next_move(quiet, "e2e4")));
    ASSERT_TRUE(write_and_wait(*repository, next_move(quiet, "e7e5")));
    ASSERT_TRUE(write_and_wait(*repository, next_move(busy, "d2d4")));
    EXPECT_EQ(journal_rows(database.path()), 3);

    // A faulty write: its batch is rolled back and replayed without it.
    GameRow faulty = playing_game("x");
    faulty.clock_increment_ms.reset();  // a clock is both values or neither (CHECK)
    ASSERT_FALSE(write_and_wait(*repository, created(faulty)));

    // Only the busy game moves on, until the journal is filed (at its sixth row) with the quiet
    // game's rows in it.
    const std::uint64_t filings_before = repository->stats().filings;
    std::vector<std::string> busy_moves = {"d2d4"};
    for (const char* move : {"d7d5", "c2c4", "e7e6"}) {
        busy_moves.push_back(move);
        ASSERT_TRUE(write_and_wait(*repository, next_move(busy, move)));
    }
    // The writer files after the last batch's callbacks: any later write waits for the filing.
    ASSERT_TRUE(write_and_wait(*repository, created(playing_game("later"))));
    EXPECT_GT(repository->stats().filings, filings_before);
    EXPECT_EQ(journal_rows(database.path()), 0);
    EXPECT_EQ(filed_moves(database.path(), "q"), 2);
    EXPECT_EQ(count(database.path(), "SELECT ply FROM games WHERE id = 'q'"), 2);
    EXPECT_EQ(count(database.path(), "SELECT seq FROM games WHERE id = 'q'"),
              static_cast<std::int64_t>(quiet.seq));
    EXPECT_EQ(count(database.path(), "SELECT first_clock_ms FROM games WHERE id = 'q'"),
              quiet.clock_ms[0]);
    EXPECT_EQ(count(database.path(), "SELECT updated_ms FROM games WHERE id = 'q'"),
              quiet.updated_ms);
    EXPECT_EQ(count(database.path(), "SELECT ply FROM games WHERE id = 'b'"), 4);
    expect_moves(*repository, quiet, {"e2e4", "e7e5"});
    expect_moves(*repository, busy, busy_moves);
}

// A filing goes by parts of a few games and commits part way when a write is waiting, so that a
// move waits for one part, not the whole filing. Here each write's callback queues its game's
// next move (as a room does once a move is acknowledged), so a write is waiting after every
// part: the filings yield, and reads between their parts, with rows both filed and still in the
// journal, show each move once.
TEST(StorageJournal, AFilingInPartsLetsWritesInAndShowsEveryMoveOnce) {
    TempDatabase database;
    constexpr int games = 12;
    constexpr int moves_each = 30;
    SqliteOptions options = journal_options(24);
    options.filing_part_games = 2;
    std::vector<GameRow> headers;
    for (int g = 0; g < games; ++g) {
        headers.push_back(playing_game("p" + std::to_string(g)));
    }
    std::vector<std::vector<std::string>> played(games);
    std::vector<GameRow> games_now = headers;
    {
        auto repository = testing::open_or_die(database.path(), options);
        ASSERT_NE(repository, nullptr);
        for (const GameRow& header : headers) {
            ASSERT_TRUE(write_and_wait(*repository, created(header)));
        }
        std::atomic<int> failed{0};
        std::function<void(int)> play = [&](int g) {
            played[g].push_back("m" + std::to_string(played[g].size() + 1));
            repository->write(next_move(games_now[g], played[g].back()),
                              [&, g](const Expected<void, StorageError>& result) {
                                  failed += result ? 0 : 1;
                                  if (result && played[g].size() < moves_each) {
                                      play(g);
                                  }
                              });
        };
        for (int g = 0; g < games; ++g) {
            play(g);
        }
        // Reads while the games play: plies 1, 2, 3 ... whatever part a filing is at.
        for (int round = 0; round < 40; ++round) {
            for (const GameRow& header : headers) {
                auto loaded = repository->load(header.id);
                ASSERT_TRUE(loaded && loaded->has_value());
                const auto& moves = (*loaded)->moves;
                for (std::size_t i = 0; i < moves.size(); ++i) {
                    ASSERT_EQ(moves[i].ply, i + 1) << header.id;
                    ASSERT_EQ(moves[i].move, "m" + std::to_string(i + 1)) << header.id;
                }
            }
        }
        // Until the last moves are stored (a callback queues the next move before flush() could
        // see it), then once more, so that their callbacks have run.
        for (const GameRow& header : headers) {
            for (;;) {
                auto loaded = repository->load(header.id);
                ASSERT_TRUE(loaded && loaded->has_value());
                if ((*loaded)->moves.size() >= moves_each) {
                    break;
                }
                ASSERT_EQ(failed.load(), 0);  // a failed write ends its game's moves
                repository->flush();
            }
        }
        repository->flush();
        for (int g = 0; g < games; ++g) {
            expect_moves(*repository, games_now[g], played[g]);
        }
        EXPECT_EQ(failed.load(), 0);
        EXPECT_GT(repository->stats().filing_yields, 0U);
        EXPECT_GT(repository->stats().filings, 0U);
    }
    // Closed: everything filed once, and each header took its last move's columns.
    EXPECT_EQ(journal_rows(database.path()), 0);
    for (int g = 0; g < games; ++g) {
        EXPECT_EQ(filed_moves(database.path(), headers[g].id), moves_each);
        EXPECT_EQ(
            count(database.path(), "SELECT seq FROM games WHERE id = '" + headers[g].id + "'"),
            static_cast<std::int64_t>(games_now[g].seq));
    }
    auto reopened = testing::open_or_die(database.path(), options);
    ASSERT_NE(reopened, nullptr);
    for (int g = 0; g < games; ++g) {
        expect_moves(*reopened, games_now[g], played[g]);
    }
}

// Any other write to a game files its journal rows and deletes them. When they were the
// journal's last rows, a move journaled next must still not take a rowid that a filing begun
// before counts as its own, or the filing's end would delete it unfiled.
TEST(StorageJournal, AMoveJournaledDuringAFilingIsNotDeletedWithIt) {
    TempDatabase database;
    SqliteOptions options = journal_options(6);
    options.filing_part_games = 1;
    std::vector<GameRow> others;
    for (int g = 0; g < 5; ++g) {
        others.push_back(playing_game("o" + std::to_string(g)));
    }
    GameRow last = playing_game("last");
    std::vector<GameRow> all = others;
    all.push_back(last);
    auto repository = testing::open_or_die(database.path(), options);
    ASSERT_NE(repository, nullptr);
    for (const GameRow& game : all) {
        ASSERT_TRUE(write_and_wait(*repository, created(game)));
    }
    for (GameRow& game : others) {
        ASSERT_TRUE(write_and_wait(*repository, next_move(game, "e2e4")));
    }
    // The sixth row, the journal's last, reaches the threshold: the filing begins after this
    // batch's callbacks, and the writes queued by the callback are waiting when its first part
    // ("last", first in id order) ends. They delete that row and journal the game's next move
    // while the filing goes on.
    std::promise<void> queued;
    GameRow renamed = last;
    repository->write(next_move(last, "d2d4"), [&](const Expected<void, StorageError>&) {
        // Not a move: the game's journal rows are filed first.
        const RecordEvent presence{last.id, {59000, 58000}, last.seq + 1};
        renamed = after(last, presence);
        repository->write(presence, {});
        repository->write(next_move(renamed, "d7d5"),
                          [&](const Expected<void, StorageError>&) { queued.set_value(); });
    });
    queued.get_future().wait();
    repository->flush();
    EXPECT_GT(repository->stats().filing_yields, 0U);
    repository.reset();  // files what is left
    auto reopened = testing::open_or_die(database.path(), options);
    ASSERT_NE(reopened, nullptr);
    expect_moves(*reopened, renamed, {"d2d4", "d7d5"});
    EXPECT_EQ(filed_moves(database.path(), "last"), 2);
}

TEST(StorageJournal, AnyOtherWriteToAGameComesAfterItsJournaledMoves) {
    TempDatabase database;
    GameRow game = playing_game("t");
    GameRow other = playing_game("o");
    auto repository = store_with(database, 1000, {game, other});
    ASSERT_NE(repository, nullptr);
    for (const char* move : {"e2e4", "e7e5", "g1f3", "b8c6"}) {
        ASSERT_TRUE(write_and_wait(*repository, next_move(game, move)));
    }
    ASSERT_TRUE(write_and_wait(*repository, next_move(other, "d2d4")));
    EXPECT_EQ(journal_rows(database.path()), 5);

    // A takeback of two plies files the game's journal first, then deletes: nothing of the
    // taken-back plies may come back from the journal later.
    const TakeBack take_back{game.id, 2, {59800, 59900}, game.seq + 1, game.updated_ms + 5};
    game = after(game, take_back);
    ASSERT_TRUE(write_and_wait(*repository, take_back));
    EXPECT_EQ(journal_rows(database.path()), 1);  // the other game's move stays journaled
    EXPECT_EQ(filed_moves(database.path(), "t"), 2);
    // The game goes on through the journal from its new ply.
    ASSERT_TRUE(write_and_wait(*repository, next_move(game, "f1c4")));
    EXPECT_EQ(journal_rows(database.path()), 2);
    expect_moves(*repository, game, {"e2e4", "e7e5", "f1c4"});

    // Its last move with the result: written after the journaled moves, not journaled.
    GameRow before_last = game;
    AppendMove last = next_move(before_last, "g8f6");
    last.seq += 1;
    last.ending = GameEnding{GameStatus::ended, rules::Outcome::first_wins, EndReason::checkmate};
    game = after(game, last);
    ASSERT_TRUE(write_and_wait(*repository, last));
    EXPECT_EQ(filed_moves(database.path(), "t"), 4);
    expect_moves(*repository, game, {"e2e4", "e7e5", "f1c4", "g8f6"});
    auto loaded = repository->load("t");
    ASSERT_TRUE(loaded && loaded->has_value());
    EXPECT_EQ((*loaded)->header.result, rules::Outcome::first_wins);
    EXPECT_EQ((*loaded)->header.reason, EndReason::checkmate);
    repository.reset();
    EXPECT_EQ(journal_rows(database.path()), 0);
    EXPECT_EQ(filed_moves(database.path(), "o"), 1);
}

TEST(StorageJournal, AResentMoveIsIdempotentAndAnotherAtItsPlyIsRefused) {
    TempDatabase database;
    auto repository = testing::open_or_die(database.path(), journal_options(1000));
    ASSERT_NE(repository, nullptr);
    GameRow game = playing_game("r");
    ASSERT_TRUE(write_and_wait(*repository, created(game)));
    ASSERT_TRUE(write_and_wait(*repository, next_move(game, "e2e4")));
    const GameRow after_first = game;
    const AppendMove second = next_move(game, "e7e5");
    ASSERT_TRUE(write_and_wait(*repository, second));
    EXPECT_EQ(journal_rows(database.path()), 2);

    // The same write again (a resend after a lost answer): accepted, stored once.
    ASSERT_TRUE(write_and_wait(*repository, second));
    // Another move at the taken ply: refused, naming the move that stands.
    GameRow replaced = after_first;
    const AppendMove conflicting = next_move(replaced, "c7c5");
    auto refused = write_and_wait(*repository, conflicting);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("e7e5"), std::string::npos) << refused.error().message;
    expect_moves(*repository, game, {"e2e4", "e7e5"});
    // Only the first write of ply 2 is anywhere in the file.
    EXPECT_EQ(journal_rows(database.path()) + filed_moves(database.path(), "r"), 2);
}

TEST(StorageJournal, JournaledMovesSurviveSigkillAndAreFiledAtTheNextOpen) {
    TempDatabase database;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        auto repository = SqliteRepository::open(database.path(), journal_options(1000));
        if (!repository) {
            ::_exit(2);
        }
        GameRow game = playing_game("k");
        if (!write_and_wait(**repository, created(game))) {
            ::_exit(3);
        }
        for (int i = 1; i <= 20; ++i) {
            if (!write_and_wait(**repository, next_move(game, "m" + std::to_string(i)))) {
                ::_exit(4);
            }
        }
        ::kill(::getpid(), SIGKILL);  // no destructor: the journal is not filed
        ::_exit(5);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    EXPECT_EQ(journal_rows(database.path()), 20);
    EXPECT_EQ(filed_moves(database.path(), "k"), 0);

    auto repository = testing::open_or_die(database.path(), journal_options(1000));
    ASSERT_NE(repository, nullptr);
    EXPECT_EQ(journal_rows(database.path()), 0);
    EXPECT_EQ(filed_moves(database.path(), "k"), 20);
    EXPECT_EQ(count(database.path(), "SELECT ply FROM games WHERE id = 'k'"), 20);
}

// A move lapses every open offer (protocol.md), and a journal row has no offers column: readers
// merging a journaled move, and its filing, give the game no offers. The `games` row keeps its
// offers until the filing.
TEST(StorageJournal, AJournaledMoveLapsesTheOpenOffersForReadersAndWhenFiled) {
    TempDatabase database;
    GameRow game = playing_game("f");
    {
        auto repository = store_with(database, 1000, {game});
        ASSERT_NE(repository, nullptr);
        const SetOffers offer{
            game.id,
            {{OfferKind::draw, rules::Side::first}, {OfferKind::rematch, rules::Side::second}},
            game.clock_ms,
            game.seq + 1};
        game = after(game, offer);
        ASSERT_TRUE(write_and_wait(*repository, offer));
        auto offered = repository->load(game.id);
        ASSERT_TRUE(offered && offered->has_value());
        EXPECT_EQ(testing::offers_of((*offered)->header), "draw:first,rematch:second");

        ASSERT_TRUE(write_and_wait(*repository, next_move(game, "e2e4")));
        EXPECT_EQ(journal_rows(database.path()), 1);
        EXPECT_EQ(count(database.path(), "SELECT count(*) FROM games WHERE offers = ''"), 0);
        auto loaded = repository->load(game.id);
        ASSERT_TRUE(loaded && loaded->has_value());
        EXPECT_TRUE((*loaded)->header.offers.empty());
        auto listed = repository->list(GameQuery{});
        ASSERT_TRUE(listed && listed->size() == 1U);
        EXPECT_TRUE(listed->front().offers.empty());
        auto unfinished = repository->load_unfinished();
        ASSERT_TRUE(unfinished && unfinished->size() == 1U);
        EXPECT_TRUE(unfinished->front().header.offers.empty());

        // An offer after the move is the game's again (the move is filed first).
        const SetOffers again{
            game.id, {{OfferKind::takeback, rules::Side::second}}, game.clock_ms, game.seq + 1};
        game = after(game, again);
        ASSERT_TRUE(write_and_wait(*repository, again));
        EXPECT_EQ(journal_rows(database.path()), 0);
        auto reoffered = repository->load(game.id);
        ASSERT_TRUE(reoffered && reoffered->has_value());
        EXPECT_EQ(testing::offers_of((*reoffered)->header), "takeback:second");
        ASSERT_TRUE(write_and_wait(*repository, next_move(game, "e7e5")));
    }
    // Filed at the close: the row took the move's columns and no offers.
    EXPECT_EQ(journal_rows(database.path()), 0);
    EXPECT_EQ(count(database.path(), "SELECT count(*) FROM games WHERE offers = ''"), 1);
    EXPECT_EQ(count(database.path(), "SELECT ply FROM games WHERE id = 'f'"), 2);
    auto reopened = testing::open_or_die(database.path(), journal_options(1000));
    ASSERT_NE(reopened, nullptr);
    expect_moves(*reopened, game, {"e2e4", "e7e5"});
}

}  // namespace
}  // namespace arbiter::server::storage
