#pragma once
/// \file
/// Every store on PostgreSQL (issue 43; database.hpp): games, accounts, players and analyses,
/// with the same intents and answers as SQLite's, and group commit. One writer thread takes every
/// queued write (of any store) into one transaction and runs each `done` only after COMMIT
/// returned. A batch of game writes goes in one round trip (libpq's pipeline) when every
/// statement answers as its write applying expects; otherwise it is rolled back and written one
/// write at a time, each inside a savepoint of its own (a failed write is rolled back alone, the
/// batch goes on). Reads go through a connection of their own, each in one REPEATABLE READ
/// snapshot.
///
/// The server's sync level maps to synchronous_commit on the writer's connection:
/// - full: `on`, COMMIT returns once the WAL is flushed to disk: an acknowledged write survives a
///   crash of PostgreSQL and a power loss.
/// - normal: `off`, COMMIT returns before the flush: a crash of the PostgreSQL server or of its
///   machine may lose the last acknowledged commits (up to three times wal_writer_delay, 600 ms
///   by default), never the database's consistency. A crash of Arbiter loses nothing.
///
/// Opened with a NodeIdentity (a cluster node), it fences every write of a game by the game's
/// owner and epoch, and adopts and hands over games: postgres_lease.hpp has the design. Without
/// one (a single node), games have no owner and nothing is fenced.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/storage/database.hpp"
#include "server/storage/pg.hpp"
#include "server/storage/postgres_ownership.hpp"
#include "server/storage/synchronous.hpp"
#include "server/storage/write_intent.hpp"

namespace arbiter::server::storage {

/// Tuning of PostgresRepository::open.
struct PostgresOptions {
    Synchronous synchronous = Synchronous::full;
    /// The most writes grouped into one transaction.
    std::size_t max_batch = 512;
    /// A cluster node's identity; nullopt on a single node.
    std::optional<NodeIdentity> node = std::nullopt;
};

class PostgresRepository final : public Database {
  public:
    /// Connects to `conninfo` (a libpq URI, "postgresql://user@host:port/db", or key=value
    /// string), brings the schema up to date and starts the writer.
    static Expected<std::unique_ptr<PostgresRepository>, StorageError> open(
        const std::string& conninfo, const PostgresOptions& options = {});

    /// `conninfo` as a log may show it: user, host, port and database, never the password.
    static std::string describe(const std::string& conninfo);

    PostgresRepository(const PostgresRepository&) = delete;
    PostgresRepository& operator=(const PostgresRepository&) = delete;
    /// Commits every queued write, then disconnects.
    ~PostgresRepository() override;

    void write(GameIntent intent, Done done) override;
    void flush() override;

    Expected<std::vector<StoredGame>, StorageError> load_unfinished() override;
    Expected<std::optional<StoredGame>, StorageError> load(const std::string& id) override;
    Expected<std::vector<GameRow>, StorageError> list(const GameQuery& query) override;

    /// The server answers, and is not a read-only standby.
    bool writable() override;
    /// pg_database_size of the database: every table and index in it, not only Arbiter's.
    std::uint64_t size_bytes() override;
    /// Always an error: a PostgreSQL database is backed up with pg_dump, not by the server.
    Expected<void, StorageError> backup(const std::string& path) override;

    // Accounts, players and analyses (postgres_stores.cpp): their writes queued to the same
    // writer as the games', in the same batches; their reads each in one snapshot.
    void write_account(AccountIntent intent, AccountStore::Done done) override;
    Expected<std::optional<UserRow>, StorageError> find_user(const std::string& key) override;
    Expected<std::optional<UserRow>, StorageError> find_user_by_id(std::int64_t id) override;
    Expected<std::optional<SessionRow>, StorageError> find_session(
        const std::string& token_hash) override;
    Expected<AccountSnapshot, StorageError> load_accounts() override;

    Expected<std::vector<RatingRow>, StorageError> ratings_of(std::int64_t user_id) override;
    Expected<GameCounts, StorageError> game_counts(std::int64_t user_id) override;
    Expected<std::vector<GameRow>, StorageError> user_games(const UserGamesQuery& query) override;
    Expected<std::vector<RatingPoint>, StorageError> rating_history(std::int64_t user_id) override;
    Expected<void, StorageError> leaderboard(const LeaderboardQuery& query,
                                             const EachLeader& each) override;
    Expected<std::vector<RatingRow>, StorageError> load_ratings() override;

    void write_analysis(SaveAnalysis save, AnalysisStore::Done done) override;
    Expected<std::optional<AnalysisRow>, StorageError> find_analysis(
        const std::string& game_id) override;
    Expected<std::vector<AnalysisRow>, StorageError> unfinished_analyses() override;

    // A cluster node's games (PostgresOptions::node); on a single node each fails or is empty.

    /// Adopts at most `limit` unfinished games, oldest first, that have no owner or whose
    /// owner's lease expired (the database's clock), each at its epoch + 1 and with its stored
    /// state to rebuild its room from. Fails `fenced` when this node's own lease is not live.
    Expected<std::vector<AdoptedGame>, StorageError> adopt_expired(std::size_t limit);
    /// Adopts one game, whatever its status (a finished game brought back), on the same terms;
    /// nullopt when it is not stored, its owner is live, or another node is adopting it.
    Expected<std::optional<AdoptedGame>, StorageError> adopt(const std::string& game);
    /// A graceful stop's handover: every write queued so far commits, later writes fail
    /// `fenced`, and every game of this node is left with no owner, for any node to adopt at
    /// once. The node creates and adopts nothing more until it rejoins. How many games were
    /// handed over.
    Expected<std::size_t, StorageError> release_games();
    /// The node's lease ended: it holds no game from now on (their writes fail `fenced` before
    /// the database is asked), and creates and adopts nothing until rejoin(). Nothing is written:
    /// the games are, or soon will be, other nodes'.
    void forget_games();
    /// The node joined again under `incarnation` after losing its lease or handing its games
    /// over (PostgresLease::join released what was left): it owns nothing now, and acquires
    /// under the new incarnation.
    void rejoin(std::uint64_t incarnation);
    /// The epoch this node holds of `game`; nullopt when it does not own it.
    std::optional<std::uint64_t> epoch_of(const std::string& game) const;
    /// The owner the database names for `game` and whether its lease is live; nullopt when the
    /// game is not stored.
    Expected<std::optional<GameOwner>, StorageError> owner_of(const std::string& game);
    /// The nodes whose lease is live now (the database's clock).
    Expected<std::vector<LiveNode>, StorageError> live_nodes();
    /// How many games this node holds an epoch of (0 on a single node).
    std::size_t games_owned() const;
    /// How many batches committed on the pipelined path (commit_pipelined), for tests.
    std::uint64_t pipelined_batches() const noexcept { return pipelined_batches_.load(); }

  private:
    struct Pending {
        detail::WriteIntent intent;
        Done done;
    };

    PostgresRepository(std::string conninfo, const PostgresOptions& options, pg::Connection writer,
                       pg::Connection reader, pg::Connection probe);

    /// Queues one write of any store.
    void submit(detail::WriteIntent intent, Done done);
    /// The writer thread: batches until stopped and the queue is empty.
    void run();
    /// One batch in one transaction; the result of each write. Pipelined when it can be, else
    /// each intent in a savepoint of its own.
    std::vector<Expected<void, StorageError>> commit_batch(const std::vector<Pending>& batch);
    /// The fast path of a batch of game intents that create no game: every statement of the
    /// batch sent at once after BEGIN, then COMMIT once every one answered as its intent
    /// applying expects. nullopt, with nothing written, when the batch must go one intent at a
    /// time instead: another store's write, a CreateGame, or a statement that answered
    /// otherwise (a resend, a gap, a fenced write, a failure), which only the one-by-one path
    /// explains intent by intent.
    std::optional<std::vector<Expected<void, StorageError>>> commit_pipelined(
        const std::vector<Pending>& batch);
    /// The writer's connection up, its session set and its statements prepared.
    Expected<void, StorageError> ready_writer();
    /// Writes one intent of any store inside the writer's open transaction; a game's under
    /// `fence` when this is a cluster node's repository.
    Expected<void, StorageError> apply(const detail::WriteIntent& intent,
                                       const detail::OwnerFence* fence);
    /// Runs `read` on the reader's connection inside one read-only snapshot.
    template <class Read>
    auto read_snapshot(const std::string& what, Read&& read) -> decltype(read());

    const std::string conninfo_;
    const PostgresOptions options_;
    /// Set when options_.node is: the epochs held, adoption and handover.
    std::unique_ptr<detail::GameOwnership> ownership_;

    std::mutex read_mutex_;
    pg::Connection reader_;
    std::mutex probe_mutex_;
    pg::Connection probe_;

    pg::Connection writer_;  ///< the writer thread's alone
    bool writer_ready_ = false;
    std::atomic<std::uint64_t> pipelined_batches_{0};

    std::mutex queue_mutex_;
    std::condition_variable wake_;
    std::condition_variable drained_;
    std::deque<Pending> queue_;
    std::uint64_t submitted_ = 0;
    std::uint64_t completed_ = 0;
    bool stopping_ = false;
    std::thread thread_;  ///< declared last: started once everything above is
};

template <class Read>
auto PostgresRepository::read_snapshot(const std::string& what, Read&& read) -> decltype(read()) {
    std::lock_guard lock(read_mutex_);
    if (!reader_.connected()) {
        if (auto reconnected = reader_.reset(); !reconnected) {
            return unexpected(StorageError{what + ": " + reconnected.error().message});
        }
    }
    auto snapshot =
        pg::Transaction::begin(reader_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (!snapshot) {
        return unexpected(StorageError{what + ": " + snapshot.error().message});
    }
    auto result = read();
    if (!result) {
        return unexpected(StorageError{what + ": " + result.error().message, result.error().taken});
    }
    return result;
}

}  // namespace arbiter::server::storage
