#pragma once
/// \file
/// ClusterFanout: what every node of a cluster must know, though another node changed it
/// (issue 43; README.md, "Several nodes"). Three pieces of state live in each node's memory and
/// are read on network threads without a database read: the accounts' directory (sessions and
/// names, account_directory.hpp), the rating book (rating_book.hpp) and the lobby (lobby.hpp).
///
/// - Each change a node makes is broadcast (ClusterLink::broadcast, `cluster:all`) once it has
///   committed: a directory change as Accounts makes it (a session as its token's hash, never
///   its token), a player's rating once a rated end's transaction committed (RatingsCommitted
///   below tells of it), a listing as the lobby changes it. The other nodes apply it.
/// - The bus loses messages, so PostgreSQL is the truth to heal from: when the bus comes up
///   (`connected`: what changed between the load at start and the subscription; `reconnected`:
///   what was lost in the drop), and every `heal_period`, a thread of the fanout (never a
///   network thread, nor the bus's) reloads the directory and the ratings from the store, as the
///   server does at start, keeping the changes made meanwhile (AccountDirectory::begin_reload,
///   RatingBook::merge).
/// - The lobby has no table to reload from, and asks nothing of the other nodes: each node
///   broadcasts its own listings whole (ListingsOf) at the same moments, and each receiver
///   replaces what it held of that node. So a lost change mends itself within a period without
///   a request-reply between nodes (which would cost every node an answer from every other at
///   every reconnect, all at the same moment), and a listing lost in a drop of Redis comes back
///   when every node heals on its `reconnected`. A node that sees a node it did not know among
///   the live ones (one just started) sends its listings at once, so the newcomer's lobby fills
///   within a sweep. A node gone (its lease ended) takes its listings with it.
///
/// Thread-safe. Broadcasts are applied on the bus's thread: each is a map update under its own
/// lock.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/core/expected.hpp"
#include "server/app/account_directory.hpp"
#include "server/app/cluster_link.hpp"
#include "server/app/lobby.hpp"
#include "server/app/rating_book.hpp"
#include "server/storage/account_store.hpp"
#include "server/storage/player_store.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// Where a heal reads the truth: the loads the server makes at start.
struct FanoutSources {
    std::function<Expected<storage::AccountSnapshot, storage::StorageError>()> accounts;
    std::function<Expected<std::vector<storage::RatingRow>, storage::StorageError>()> ratings;
};

/// Plain monotonic numbers for /metrics and the tests.
struct ClusterFanoutCounters {
    std::uint64_t applied = 0;        ///< other nodes' changes applied
    std::uint64_t refused = 0;        ///< other nodes' broadcasts that made no sense, dropped
    std::uint64_t heals = 0;          ///< reloads from the store that succeeded
    std::uint64_t heal_failures = 0;  ///< reloads that failed (the next one tries again)
    std::uint64_t listings_sent = 0;  ///< ListingsOf broadcast
};

/// The fan-out's series for /metrics: broadcasts sent and taken (the link's counters), changes
/// applied and refused, heals, and the other nodes' listings held.
std::string render_fanout_metrics(const ClusterFanoutCounters& fanout,
                                  const ClusterLinkCounters& link, std::size_t remote_listings);

/// One node's fan-out. See the file comment.
class ClusterFanout final : public BroadcastListener {
  public:
    /// How often a node heals without a reason (besides each `reconnected`).
    static constexpr std::chrono::milliseconds kDefaultHealPeriod{60'000};

    /// Tells `directory`'s local changes to the link once started.
    ClusterFanout(std::string self_node, AccountDirectory& directory, RatingBook& ratings,
                  FanoutSources sources,
                  std::chrono::milliseconds heal_period = kDefaultHealPeriod);
    ~ClusterFanout() override;
    ClusterFanout(const ClusterFanout&) = delete;
    ClusterFanout& operator=(const ClusterFanout&) = delete;
    ClusterFanout(ClusterFanout&&) = delete;
    ClusterFanout& operator=(ClusterFanout&&) = delete;

    /// The lobby whose local changes go out and which takes the other nodes' (the hub's; before
    /// the hub serves).
    void serve_lobby(Lobby& lobby);
    /// Listens to `link` and broadcasts through it; starts the healing thread (when
    /// `heal_thread`: the tests heal by hand).
    void start(ClusterLink& link, bool heal_thread = true);
    /// Stops the thread and broadcasts nothing more (before the store and the link go away).
    void stop();

    /// A rated end's transaction committed with `settled` (RatingsCommitted, any thread).
    void ratings_committed(const storage::RatingsSettled& settled);
    /// One heal now, on the caller's thread: the directory and the ratings from the store, this
    /// node's listings to the others. Whether the reloads succeeded.
    bool heal();

    ClusterFanoutCounters counters() const;

    // BroadcastListener
    void on_broadcast(cluster::Envelope envelope) override;
    void on_bus_up() override;
    void on_nodes_live(const std::vector<std::string>& nodes) override;

  private:
    void heals();
    /// This node's listings whole to the others (ListingsOf).
    void send_listings();
    void broadcast(const cluster::Envelope& envelope);
    void apply(const cluster::AccountChanged& changed);
    void apply(const cluster::RatingChanged& changed);
    void apply(const cluster::ListingChanged& changed);
    void apply(const cluster::ListingsOf& listings);
    void listing_changed(const std::string& game,
                         const std::optional<protocol::GameSummary>& summary);
    void count(bool applied);

    const std::string self_;
    AccountDirectory& directory_;
    RatingBook& ratings_;
    const FanoutSources sources_;
    const std::chrono::milliseconds heal_period_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    Lobby* lobby_ = nullptr;
    ClusterLink* link_ = nullptr;
    bool heal_now_ = false;
    bool listings_now_ = false;
    std::vector<std::string> known_nodes_;  ///< live at the last look, sorted
    bool stopping_ = false;
    ClusterFanoutCounters counters_;
    std::thread thread_;
};

/// A GameRepository that passes every call on to `inner`, and tells `fanout` of each rated end
/// once its transaction committed: the moment its ratings become the truth that other nodes may
/// take (a settle whose commit fails is undone, and must never reach them).
class RatingsCommitted final : public storage::GameRepository {
  public:
    RatingsCommitted(storage::GameRepository& inner, ClusterFanout& fanout)
        : inner_(inner), fanout_(fanout) {}

    void write(storage::GameIntent intent, Done done) override;
    void flush() override { inner_.flush(); }
    Expected<std::vector<storage::StoredGame>, storage::StorageError> load_unfinished() override {
        return inner_.load_unfinished();
    }
    Expected<std::optional<storage::StoredGame>, storage::StorageError> load(
        const std::string& id) override {
        return inner_.load(id);
    }
    Expected<std::vector<storage::GameRow>, storage::StorageError> list(
        const storage::GameQuery& query) override {
        return inner_.list(query);
    }
    bool writable() override { return inner_.writable(); }
    std::uint64_t size_bytes() override { return inner_.size_bytes(); }
    Expected<void, storage::StorageError> backup(const std::string& path) override {
        return inner_.backup(path);
    }

  private:
    storage::GameRepository& inner_;
    ClusterFanout& fanout_;
};

}  // namespace arbiter::server::app
