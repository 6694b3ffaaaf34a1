// Cluster nodes on one PostgreSQL schema (issue 43): leases by the database's clock
// (server/storage/postgres_lease.hpp has the design). A lease is made to expire through SQL, by
// the database's clock, or by letting a short one run out.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "server/storage/pg.hpp"
#include "server/storage/postgres_lease.hpp"
#include "tests/support/postgres_fixture.hpp"

namespace arbiter::server::storage {
namespace {

using namespace std::chrono_literals;

class PostgresCluster : public ::testing::Test {
  protected:
    void SetUp() override {
        arbiter::testing::PostgresServer* server = arbiter::testing::PostgresEnvironment::server();
        ASSERT_NE(server, nullptr) << "the tests' PostgreSQL server did not start";
        uri_ = server->fresh_schema_uri();
    }

    /// Long enough for a loaded machine: a test ends a lease through SQL (expire()), or makes a
    /// short one of its own.
    static constexpr LeaseTiming kLongLease{60s, 1s, 250ms};

    std::unique_ptr<PostgresLease> open_lease(const std::string& node,
                                              const LeaseTiming& timing = kLongLease) {
        auto opened = PostgresLease::open(uri_, LeaseOptions{node, timing});
        EXPECT_TRUE(opened) << (opened ? "" : opened.error().message);
        return opened ? std::move(opened).value() : nullptr;
    }

    pg::Connection connect() {
        auto connection = pg::Connection::open(uri_);
        EXPECT_TRUE(connection) << (connection ? "" : connection.error().message);
        return std::move(connection).value();
    }

    /// The node's lease ends now, by the database's clock (it froze, or was cut off).
    void expire(const std::string& node) {
        pg::Connection admin = connect();
        auto expired = admin.query(
            "UPDATE nodes SET lease_expires_at = clock_timestamp() - interval '1 millisecond' "
            "WHERE node_id = $1",
            pg::Params().text(node));
        ASSERT_TRUE(expired) << expired.error().message;
        ASSERT_EQ(expired->changed(), 1U);
    }

    std::int64_t count(const std::string& sql) {
        pg::Connection admin = connect();
        auto counted = admin.query(sql);
        EXPECT_TRUE(counted) << sql << ": " << (counted ? "" : counted.error().message);
        return counted ? counted->integer(0, 0) : -1;
    }

    std::string uri_;
};

// --- the lease -------------------------------------------------------------------------------

TEST_F(PostgresCluster, AJoinRegistersTheNodeAndASecondTakesItOverWithTheNextIncarnation) {
    auto first = open_lease("a");
    ASSERT_NE(first, nullptr);
    auto joined = first->join();
    ASSERT_TRUE(joined) << joined.error().message;
    EXPECT_EQ(joined->incarnation, 1U);
    EXPECT_TRUE(first->may_write(LeaseClock::now()));
    // The row's times are the database's: the lease ends one ttl after the heartbeat.
    EXPECT_EQ(count("SELECT (extract(epoch FROM lease_expires_at - heartbeat_at) * 1000)::bigint "
                    "FROM nodes WHERE node_id = 'a'"),
              60000);
    EXPECT_EQ(count("SELECT (extract(epoch FROM lease_expires_at) * 1000)::bigint FROM nodes"),
              joined->expires_at_ms);
    EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE started_at = heartbeat_at AND left_at IS "
                    "NULL"),
              1);

    // A restart under the same id, while the first process may still run.
    auto second = open_lease("a");
    ASSERT_NE(second, nullptr);
    auto rejoined = second->join();
    ASSERT_TRUE(rejoined) << rejoined.error().message;
    EXPECT_EQ(rejoined->incarnation, 2U);
    auto stale = first->heartbeat();
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().failure, LeaseFailure::taken) << stale.error().message;
    EXPECT_EQ(first->action_after(stale.error(), LeaseClock::now()), LeaseAction::stop_for_good);
    EXPECT_FALSE(first->may_write(LeaseClock::now()));
    EXPECT_TRUE(second->heartbeat());
    EXPECT_EQ(count("SELECT count(*) FROM nodes"), 1);
}

TEST_F(PostgresCluster, AHeartbeatMovesTheEndByTheDatabasesClock) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    auto joined = lease->join();
    ASSERT_TRUE(joined);
    std::this_thread::sleep_for(20ms);
    auto renewed = lease->heartbeat();
    ASSERT_TRUE(renewed) << renewed.error().message;
    EXPECT_EQ(renewed->incarnation, 1U);
    EXPECT_GE(renewed->expires_at_ms, joined->expires_at_ms + 20);
    EXPECT_GT(renewed->sent_at, joined->sent_at);
    EXPECT_EQ(count("SELECT (extract(epoch FROM lease_expires_at) * 1000)::bigint FROM nodes"),
              renewed->expires_at_ms);
    EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE heartbeat_at > started_at AND "
                    "lease_expires_at = heartbeat_at + interval '60 seconds'"),
              1);
}

// The database's word goes, not the node's clock: locally the lease still holds, but the row
// says it ended, and the heartbeat fails. The node then rejoins.
TEST_F(PostgresCluster, AHeartbeatAfterTheLeaseEndedFailsExpiredWhateverTheLocalClockSays) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    ASSERT_TRUE(lease->join());
    expire("a");
    EXPECT_TRUE(lease->may_write(LeaseClock::now()));
    auto late = lease->heartbeat();
    ASSERT_FALSE(late);
    EXPECT_EQ(late.error().failure, LeaseFailure::expired) << late.error().message;
    EXPECT_FALSE(lease->may_write(LeaseClock::now()));
    EXPECT_EQ(lease->action_after(late.error(), LeaseClock::now()), LeaseAction::drop_and_rejoin);
    // Nothing revives it but a join, under the next incarnation.
    EXPECT_FALSE(lease->heartbeat());
    auto rejoined = lease->join();
    ASSERT_TRUE(rejoined);
    EXPECT_EQ(rejoined->incarnation, 2U);
    EXPECT_TRUE(lease->heartbeat());
}

TEST_F(PostgresCluster, ALeaveEndsTheLeaseAtOnce) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    ASSERT_TRUE(lease->join());
    ASSERT_TRUE(lease->leave());
    EXPECT_FALSE(lease->may_write(LeaseClock::now()));
    EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE lease_expires_at <= clock_timestamp() "
                    "AND left_at = lease_expires_at"),
              1);
    auto after = lease->heartbeat();
    ASSERT_FALSE(after);
    EXPECT_EQ(after.error().failure, LeaseFailure::expired);
    EXPECT_FALSE(lease->leave());
}

// A dropped connection is not a lost lease: the next heartbeat connects again and holds.
TEST_F(PostgresCluster, AHeartbeatConnectsAgainAfterTheConnectionDropped) {
    auto lease = open_lease("a");
    ASSERT_NE(lease, nullptr);
    ASSERT_TRUE(lease->join());
    ASSERT_TRUE(lease->heartbeat());
    // The lease's connection is the one whose last statement was a heartbeat.
    pg::Connection admin = connect();
    auto found = admin.query(
        "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = "
        "current_database() AND query LIKE 'UPDATE nodes SET heartbeat_at%'");
    ASSERT_TRUE(found) << found.error().message;
    ASSERT_EQ(found->rows(), 1);
    const std::int64_t pid = found->integer(0, 0);
    ASSERT_TRUE(admin.query("SELECT pg_terminate_backend($1)", pg::Params().integer(pid)));
    for (int wait = 0; wait < 500; ++wait) {
        auto alive = admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
                                 pg::Params().integer(pid));
        ASSERT_TRUE(alive);
        if (alive->integer(0, 0) == 0) {
            break;
        }
        std::this_thread::sleep_for(10ms);
    }
    // libpq learns that the connection is gone from the first statement that fails on it.
    auto first = lease->heartbeat();
    ASSERT_FALSE(first);
    EXPECT_EQ(first.error().failure, LeaseFailure::unreachable) << first.error().message;
    EXPECT_EQ(lease->action_after(first.error(), LeaseClock::now()), LeaseAction::keep_writing);
    EXPECT_TRUE(lease->may_write(LeaseClock::now()));
    auto second = lease->heartbeat();
    EXPECT_TRUE(second) << second.error().message;
}

TEST_F(PostgresCluster, BadLeaseOptionsAreRefusedBeforeAnythingIsWritten) {
    auto spaced = PostgresLease::open(uri_, LeaseOptions{"node a", {}});
    ASSERT_FALSE(spaced);
    EXPECT_NE(spaced.error().message.find("only letters"), std::string::npos)
        << spaced.error().message;
    auto hasty = PostgresLease::open(uri_, LeaseOptions{"a", LeaseTiming{1000ms, 1000ms, 0ms}});
    ASSERT_FALSE(hasty);
    EXPECT_NE(hasty.error().message.find("two heartbeat intervals"), std::string::npos)
        << hasty.error().message;
    // Not even the schema was made.
    EXPECT_EQ(count("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"), 0);
}

}  // namespace
}  // namespace arbiter::server::storage
