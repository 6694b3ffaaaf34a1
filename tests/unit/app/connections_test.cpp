#include "server/app/connections.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter::server::app {
namespace {

using Games = std::vector<std::string>;

TEST(Connections, ANameIsKeptFromHelloUntilTheClose) {
    Connections connections;
    connections.opened(1);
    EXPECT_EQ(connections.name_of(1), "Anonymous");
    connections.set_name(1, "Ana");
    EXPECT_EQ(connections.name_of(1), "Ana");
    connections.closed(1);
    EXPECT_EQ(connections.name_of(1), "Anonymous");
    connections.set_name(1, "Back");  // a late report about a closed connection
    EXPECT_EQ(connections.size(), 0u);
}

TEST(Connections, SigningInNamesTheConnectionAfterItsAccountAndSigningOutKeepsTheName) {
    Connections connections;
    connections.opened(1);
    connections.set_name(1, "guest");
    EXPECT_EQ(connections.user_of(1), std::nullopt);
    connections.set_user(1, AccountUser{7, "Ana"});
    EXPECT_EQ(connections.user_of(1), (AccountUser{7, "Ana"}));
    EXPECT_EQ(connections.name_of(1), "Ana");
    connections.set_user(1, std::nullopt);
    EXPECT_EQ(connections.user_of(1), std::nullopt);
    EXPECT_EQ(connections.name_of(1), "Ana");
    connections.closed(1);
    connections.set_user(1, AccountUser{7, "Ana"});  // a late report about a closed connection
    EXPECT_EQ(connections.user_of(1), std::nullopt);
}

TEST(Connections, JoinedSaysWhereTheConnectionWasBefore) {
    Connections connections;
    connections.opened(1);
    EXPECT_EQ(connections.joined(1, "g1", true), Games{});
    EXPECT_EQ(connections.joined(1, "g2", false), Games{"g1"});
    EXPECT_EQ(connections.joined(1, "g2", false), Games{"g1"}) << "not the game entered";
}

TEST(Connections, AClosedConnectionJoinsNothingAndItsGamesAreHandedBack) {
    Connections connections;
    connections.opened(1);
    connections.joined(1, "g1", true);
    connections.joined(1, "g2", false);
    EXPECT_EQ(connections.closed(1), (Games{"g1", "g2"}));
    EXPECT_EQ(connections.joined(1, "g3", false), std::nullopt) << "the room must not keep it";
    EXPECT_EQ(connections.closed(1), Games{});
}

TEST(Connections, TheRoomsReportsDecideTheRole) {
    Connections connections;
    for (std::uint64_t peer = 1; peer <= 4; ++peer) {
        connections.opened(peer);
    }
    connections.joined(1, "g", true);
    connections.joined(1, "g", false);  // a player who also watches its game
    connections.joined(2, "g", false);
    auto roles = connections.roles({3});
    EXPECT_EQ(roles.players, 1u);
    EXPECT_EQ(roles.spectators, 1u);
    EXPECT_EQ(roles.lobby, 1u);
    EXPECT_EQ(roles.other, 1u);

    connections.left(1, "g", true, true);  // unwatch: still seated
    EXPECT_EQ(connections.roles({}).players, 1u);
    connections.left(1, "g", false, true);  // resumed elsewhere, still watching
    roles = connections.roles({});
    EXPECT_EQ(roles.players, 0u);
    EXPECT_EQ(roles.spectators, 2u);
    connections.left(2, "g", false, false);  // unwatch
    connections.left(1, "g", false, false);  // left
    roles = connections.roles({});
    EXPECT_EQ(roles.spectators, 0u);
    EXPECT_EQ(roles.other, 4u);
    EXPECT_EQ(connections.closed(1), Games{});
}

}  // namespace
}  // namespace arbiter::server::app
