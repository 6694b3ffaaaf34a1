#include "server/app/client_limits.hpp"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;
using TimePoint = ClientLimits::TimePoint;

const TimePoint start{std::chrono::hours(1)};

ClientLimitsConfig bounds(double rate, double burst, unsigned refused_in_row = 200,
                          std::size_t open_games = 8, unsigned creates_per_minute = 20) {
    return {rate, burst, refused_in_row, open_games, creates_per_minute};
}

/// Games open while listed here: the rooms' answer, as the hub gives it.
struct OpenRooms {
    std::set<std::string> open;
    int asked = 0;
    ClientLimits::StillOpen still_open() {
        return [this](const std::string& game, bool) {
            ++asked;
            return open.contains(game);
        };
    }
};

TEST(ClientLimits, ABurstIsAdmittedAndTheMessageBeyondItRefused) {
    ClientLimits limits(bounds(1, 3));
    const auto client = ClientKey::connection(1);
    limits.connected(client, start);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(limits.admit(client, start), Admission::admitted) << i;
    }
    EXPECT_EQ(limits.admit(client, start), Admission::first_refused);
    EXPECT_EQ(limits.admit(client, start), Admission::refused);
}

TEST(ClientLimits, TokensComeBackAtTheRateUpToTheBurst) {
    ClientLimits limits(bounds(2, 3));
    const auto client = ClientKey::connection(1);
    limits.connected(client, start);
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(limits.admit(client, start), Admission::admitted);
    }
    EXPECT_EQ(limits.admit(client, start + 250ms), Admission::first_refused);  // half a token
    EXPECT_EQ(limits.admit(client, start + 500ms), Admission::admitted);       // one
    // An hour idle refills the bucket, not more: three, then a refusal.
    const auto later = start + 1h;
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(limits.admit(client, later), Admission::admitted) << i;
    }
    EXPECT_EQ(limits.admit(client, later), Admission::first_refused);
}

TEST(ClientLimits, TooManyRefusalsInARowCloseAndAnAdmittedMessageEndsTheRun) {
    ClientLimits limits(bounds(1, 1, 2));
    const auto client = ClientKey::connection(1);
    limits.connected(client, start);
    ASSERT_EQ(limits.admit(client, start), Admission::admitted);
    EXPECT_EQ(limits.admit(client, start), Admission::first_refused);
    EXPECT_EQ(limits.admit(client, start), Admission::refused);
    // A token later the run starts again.
    EXPECT_EQ(limits.admit(client, start + 1s), Admission::admitted);
    EXPECT_EQ(limits.admit(client, start + 1s), Admission::first_refused);
    EXPECT_EQ(limits.admit(client, start + 1s), Admission::refused);
    EXPECT_EQ(limits.admit(client, start + 1s), Admission::close);
}

TEST(ClientLimits, AClientWithNoConnectionOpenIsNotAdmitted) {
    ClientLimits limits(bounds(1, 3));
    const auto client = ClientKey::connection(1);
    EXPECT_EQ(limits.admit(client, start), Admission::unknown);
    limits.connected(client, start);
    limits.disconnected(client, start);
    EXPECT_EQ(limits.admit(client, start), Admission::unknown);
}

TEST(ClientLimits, ConnectionsAreCountedApart) {
    ClientLimits limits(bounds(1, 1));
    const auto first = ClientKey::connection(1);
    const auto second = ClientKey::connection(2);
    limits.connected(first, start);
    limits.connected(second, start);
    EXPECT_EQ(limits.admit(first, start), Admission::admitted);
    EXPECT_EQ(limits.admit(first, start), Admission::first_refused);
    EXPECT_EQ(limits.admit(second, start), Admission::admitted);
}

TEST(ClientLimits, ConnectionsOfOneKeyShareItsCountsUntilTheLastCloses) {
    // Keyed by address, a client's second connection finds its bucket as the first left it, and
    // closing one of them refills nothing.
    ClientLimits limits(bounds(1, 2, 200, 1));
    const auto client = ClientKey::address("203.0.113.7");
    OpenRooms rooms;
    limits.connected(client, start);
    ASSERT_EQ(limits.admit(client, start), Admission::admitted);
    ASSERT_EQ(limits.reserve_open_game(client, "g1", false, rooms.still_open()), std::nullopt);
    limits.count_open_game(client, "g1", false);
    rooms.open.insert("g1");

    limits.connected(client, start);  // a second connection
    EXPECT_EQ(limits.admit(client, start), Admission::admitted);
    EXPECT_EQ(limits.admit(client, start), Admission::first_refused);
    EXPECT_NE(limits.reserve_open_game(client, "g2", false, rooms.still_open()), std::nullopt);
    limits.disconnected(client, start);
    EXPECT_EQ(limits.admit(client, start), Admission::refused) << "still the same run";
    EXPECT_NE(limits.reserve_open_game(client, "g2", false, rooms.still_open()), std::nullopt);
    limits.disconnected(client, start);
    EXPECT_EQ(limits.admit(client, start), Admission::unknown);
    EXPECT_NE(ClientKey::address("203.0.113.7"), ClientKey::address("203.0.113.8"));
    EXPECT_NE(ClientKey::connection(7), ClientKey::address("7"));
}

TEST(ClientLimits, ReconnectingFromOneAddressRefillsNothing) {
    // Connect, create, close, repeat: while the counts were forgotten with the last connection,
    // one client made 14,000 games in 100 s.
    ClientLimits limits(bounds(1, 2, 200, 1));
    const auto client = ClientKey::address("203.0.113.7");
    OpenRooms rooms;
    limits.connected(client, start);
    ASSERT_EQ(limits.admit(client, start), Admission::admitted);
    ASSERT_EQ(limits.admit(client, start), Admission::admitted);
    ASSERT_EQ(limits.reserve_open_game(client, "g1", false, rooms.still_open()), std::nullopt);
    limits.count_open_game(client, "g1", false);
    rooms.open.insert("g1");
    limits.disconnected(client, start);

    limits.connected(client, start + 100ms);
    EXPECT_EQ(limits.admit(client, start + 100ms), Admission::first_refused);
    const auto refusal = limits.reserve_open_game(client, "g2", false, rooms.still_open());
    ASSERT_TRUE(refusal);
    EXPECT_EQ(*refusal,
              "your address already has 1 open games (waiting for an opponent, or against an "
              "engine): finish or abort one first");
    EXPECT_EQ(limits.admit(client, start + 1s), Admission::admitted) << "the rate, no more";
}

TEST(ClientLimits, CreatesAreCountedAMinuteAcrossConnections) {
    ClientLimits limits(bounds(1, 1, 200, 8, 2));
    const auto client = ClientKey::address("198.51.100.5");
    limits.connected(client, start);
    EXPECT_EQ(limits.take_create(client, start), std::nullopt);
    EXPECT_EQ(limits.take_create(client, start), std::nullopt);
    limits.disconnected(client, start);
    limits.connected(client, start);
    const auto refusal = limits.take_create(client, start + 1s);
    ASSERT_TRUE(refusal);
    EXPECT_EQ(*refusal, "your address created 2 games in the last minute: try again in 29 s");
    EXPECT_TRUE(limits.take_create(client, start + 29s)) << "2 a minute: one every 30 s";
    EXPECT_EQ(limits.take_create(client, start + 31s), std::nullopt);
    EXPECT_TRUE(limits.take_create(client, start + 31s));
    // Per connection, as for a client on this machine: a new connection, new counts.
    const auto local = ClientKey::connection(1);
    limits.connected(local, start);
    EXPECT_EQ(limits.take_create(local, start), std::nullopt);
}

TEST(ClientLimits, AClientThatLeftIsForgottenOnceItsCountsAreANewcomers) {
    ClientLimits limits(bounds(1, 2, 200, 8, 60));
    OpenRooms rooms;
    // Nothing spent: forgotten with its last connection.
    const auto idle = ClientKey::address("192.0.2.1");
    limits.connected(idle, start);
    limits.disconnected(idle, start);
    EXPECT_EQ(limits.client_count(), 0u);
    // Tokens spent: kept until its buckets are full again (a message: 1 s; a create: 1 s).
    const auto busy = ClientKey::address("192.0.2.2");
    limits.connected(busy, start);
    ASSERT_EQ(limits.admit(busy, start), Admission::admitted);
    ASSERT_EQ(limits.take_create(busy, start), std::nullopt);
    limits.disconnected(busy, start);
    // A game still open: kept until it closes.
    const auto creator = ClientKey::address("192.0.2.3");
    limits.connected(creator, start);
    limits.count_open_game(creator, "waiting", false);
    rooms.open.insert("waiting");
    limits.disconnected(creator, start);
    // Per connection: forgotten at once, games and all.
    const auto local = ClientKey::connection(7);
    limits.connected(local, start);
    limits.count_open_game(local, "mine", false);
    ASSERT_EQ(limits.admit(local, start), Admission::admitted);
    limits.disconnected(local, start);
    EXPECT_EQ(limits.client_count(), 2u);

    limits.forget_idle(start + 500ms, rooms.still_open());
    EXPECT_EQ(limits.client_count(), 2u) << "a message token is still missing";
    limits.forget_idle(start + 1s, rooms.still_open());
    EXPECT_EQ(limits.client_count(), 2u) << "at most one walk a second";
    limits.forget_idle(start + 1500ms, rooms.still_open());
    EXPECT_EQ(limits.client_count(), 1u) << "only the creator of an open game is left";
    rooms.open.clear();  // aborted
    limits.forget_idle(start + 3s, rooms.still_open());
    EXPECT_EQ(limits.client_count(), 0u);
}

TEST(ClientLimits, AClientBackBeforeItIsForgottenKeepsItsGames) {
    ClientLimits limits(bounds(1, 1, 200, 1));
    OpenRooms rooms;
    const auto client = ClientKey::address("192.0.2.9");
    limits.connected(client, start);
    limits.count_open_game(client, "g", false);
    rooms.open.insert("g");
    limits.disconnected(client, start);
    limits.forget_idle(start + 5s, rooms.still_open());
    limits.connected(client, start + 6s);
    EXPECT_TRUE(limits.open_game_refusal(client, rooms.still_open()));
}

TEST(ClientLimits, OpenGamesAreCountedUpToTheLimit) {
    ClientLimits limits(bounds(1, 1, 200, 2));
    const auto client = ClientKey::connection(1);
    OpenRooms rooms;
    limits.connected(client, start);
    for (const std::string game : {"g1", "g2"}) {
        ASSERT_EQ(limits.reserve_open_game(client, game, false, rooms.still_open()), std::nullopt);
        limits.count_open_game(client, game, false);
        rooms.open.insert(game);
    }
    const auto refusal = limits.reserve_open_game(client, "g3", false, rooms.still_open());
    ASSERT_TRUE(refusal);
    EXPECT_EQ(*refusal,
              "this connection already has 2 open games (waiting for an opponent, or against an "
              "engine): finish or abort one first");
    EXPECT_EQ(limits.open_game_refusal(client, rooms.still_open()), refusal);
    // Another connection has its own count.
    limits.connected(ClientKey::connection(2), start);
    EXPECT_EQ(limits.open_game_refusal(ClientKey::connection(2), rooms.still_open()), std::nullopt);
}

TEST(ClientLimits, AGameNoLongerOpenIsForgottenAndFreesItsPlace) {
    ClientLimits limits(bounds(1, 1, 200, 2));
    const auto client = ClientKey::connection(1);
    OpenRooms rooms;
    limits.connected(client, start);
    limits.count_open_game(client, "waits", false);
    limits.count_open_game(client, "engine", true);
    rooms.open = {"waits", "engine"};
    ASSERT_TRUE(limits.open_game_refusal(client, rooms.still_open()));
    rooms.open.erase("waits");  // joined: no longer open
    EXPECT_EQ(limits.open_game_refusal(client, rooms.still_open()), std::nullopt);
    rooms.asked = 0;
    EXPECT_EQ(limits.open_game_refusal(client, rooms.still_open()), std::nullopt);
    EXPECT_EQ(rooms.asked, 1) << "a game found closed is not asked about again";
}

TEST(ClientLimits, AReservedGameIsNotAskedAboutUntilCountedAndMayBeReleased) {
    ClientLimits limits(bounds(1, 1, 200, 1));
    const auto client = ClientKey::connection(1);
    OpenRooms rooms;  // nothing in memory: every game asked about is closed
    limits.connected(client, start);
    ASSERT_EQ(limits.reserve_open_game(client, "new", false, rooms.still_open()), std::nullopt);
    // Its room is not in memory yet: still counted, so the place is taken.
    EXPECT_TRUE(limits.reserve_open_game(client, "other", false, rooms.still_open()));
    EXPECT_EQ(rooms.asked, 0);
    limits.release_open_game(client, "new");  // not created after all
    EXPECT_EQ(limits.open_game_refusal(client, rooms.still_open()), std::nullopt);
    ASSERT_EQ(limits.reserve_open_game(client, "new", false, rooms.still_open()), std::nullopt);
    limits.count_open_game(client, "new", false);  // in memory now: asked about from here
    EXPECT_EQ(limits.open_game_refusal(client, rooms.still_open()), std::nullopt);
    EXPECT_EQ(rooms.asked, 1);
}

TEST(ClientLimits, StillOpenIsAskedWithoutTheLimitsLockHeld) {
    // The hub's StillOpen reads the rooms, which take their own lock: a call back into the limits
    // from it (as another thread's would) must not wait for the caller's.
    ClientLimits limits(bounds(1, 5, 200, 2));
    const auto client = ClientKey::connection(1);
    limits.connected(client, start);
    limits.count_open_game(client, "g1", false);
    int admitted = 0;
    const auto reentrant = [&](const std::string&, bool) {
        admitted += limits.admit(client, start) == Admission::admitted ? 1 : 0;
        return true;
    };
    EXPECT_EQ(limits.open_game_refusal(client, reentrant), std::nullopt);
    EXPECT_EQ(admitted, 1);
}

TEST(ClientLimits, AClientThatClosedIsRefusedOpenGames) {
    ClientLimits limits(bounds(1, 1));
    OpenRooms rooms;
    EXPECT_TRUE(limits.reserve_open_game(ClientKey::connection(9), "g", false, rooms.still_open()));
}

}  // namespace
}  // namespace arbiter::server::app
