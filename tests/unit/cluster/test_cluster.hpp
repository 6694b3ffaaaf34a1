#pragma once
// Test support for the cluster's logic: a Bus that records what is published (for single-part
// tests), and TestCluster: several nodes on one LoopbackBus, with a fake ownership table, a fake
// database of committed events (for catch-up), a fake room per node, and manual time.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol/messages.hpp"
#include "server/bus/loopback_bus.hpp"
#include "server/cluster/cluster_node.hpp"

namespace arbiter::server::cluster::testing {

/// A Bus without a broker: it records publishes and subscriptions, and delivers nothing.
class RecordingBus final : public bus::Bus {
  public:
    struct Published {
        std::string channel;
        std::string bytes;
    };
    void publish(std::string channel, std::string bytes) override {
        published.push_back({std::move(channel), std::move(bytes)});
    }
    void subscribe(std::string channel) override { subscribed.insert(std::move(channel)); }
    void unsubscribe(std::string channel) override { subscribed.erase(channel); }
    bus::BusCounters counters() const override { return {}; }

    std::vector<Published> published;
    std::set<std::string> subscribed;
};

/// A fixed ownership table.
class TableOwnership final : public OwnershipLookup {
  public:
    std::optional<Owner> owner_of(std::string_view game) override {
        const auto entry = owners.find(std::string(game));
        return entry == owners.end() ? std::nullopt : std::optional<Owner>(entry->second);
    }
    std::map<std::string, Owner> owners;
};

/// CatchUp requests, kept until the test (or TestCluster) answers them.
class RecordingCatchUp final : public CatchUp {
  public:
    void request(std::string game, std::uint64_t after_seq) override {
        requests.emplace_back(std::move(game), after_seq);
    }
    std::vector<std::pair<std::string, std::uint64_t>> requests;
};

/// The seq of an encoded server message (0 when it has none).
std::uint64_t seq_of(const std::string& message);
/// The encoded `moved` event of one move (no request id).
std::string moved_text(const std::string& game, std::uint64_t seq, std::uint32_t ply_after,
                       const std::string& move);
/// A client `move` request.
protocol::ClientMessage move_request(const std::string& game, std::uint32_t ply,
                                     const std::string& move, const std::string& id);

/// Nodes on one LoopbackBus. Each node sees the bus through its own Bus (its own subscriptions);
/// what the LoopbackBus delivers waits in the node's mailbox until pump() hands it over on the
/// test's thread, at the cluster's manual time.
class TestCluster {
  public:
    /// One committed event of the fake database.
    struct Stored {
        std::uint64_t seq = 0;
        std::uint64_t epoch = 0;
        std::string owner;
        std::string message;
        std::uint32_t ply_after = 0;  ///< 0: not a move
        std::string move;
    };
    /// A game as the fake database holds it.
    struct GameRecord {
        std::vector<Stored> events;
        std::uint32_t plies = 0;
        std::map<std::uint32_t, int> applied;  ///< ply -> times a move was committed there
    };
    /// A bus message a test may drop: return true to lose it.
    using DropRule = std::function<bool(const std::string& from_node, const std::string& channel,
                                        const Envelope& envelope)>;

    explicit TestCluster(std::vector<std::string> node_names, ForwarderLimits forwarder_limits = {},
                         RelayLimits relay_limits = {});
    ~TestCluster();
    TestCluster(const TestCluster&) = delete;
    TestCluster& operator=(const TestCluster&) = delete;
    TestCluster(TestCluster&&) = delete;
    TestCluster& operator=(TestCluster&&) = delete;

    ClusterNode& node(const std::string& name);
    /// Messages delivered to (node, connection), in order.
    std::vector<std::string>& delivered(const std::string& node, ConnectionId connection);
    /// The seqs delivered to (node, connection), in order.
    std::vector<std::uint64_t> seqs(const std::string& node, ConnectionId connection);

    /// Records `owner` for `game` in every node's view of the ownership table.
    void set_owner(const std::string& game, Owner owner);
    /// One node's view only (a stale cache).
    void set_owner_seen_by(const std::string& node, const std::string& game, Owner owner);
    /// A move made on the owner's node by a local player: committed and published, no cause.
    void play_local(const std::string& game, const std::string& move);
    /// Forwards a move request from a connection on `node`.
    Expected<std::uint64_t, ForwardError> forward_move(const std::string& node,
                                                       ConnectionId connection,
                                                       const std::string& game, std::uint32_t ply,
                                                       const std::string& move,
                                                       const std::string& id);

    /// Delivers everything in flight and answers catch-ups, until nothing moves.
    void pump();
    /// Moves time on by `step`, in slices of at most `slice`, ticking and pumping each.
    void advance(Millis step, Millis slice = Millis{50});
    /// Takes the broker away (false) or brings it back (true), and waits until every node heard.
    void set_broker_up(bool up);
    /// Whether the fake database answers catch-ups (false: they fail).
    void set_database_up(bool up) { database_up_ = up; }
    void set_drop_rule(DropRule rule);

    GameRecord& game(const std::string& name) { return games_[name]; }
    TimePoint now() const { return now_; }
    bus::BusCounters bus_counters() const { return loopback_->counters(); }
    /// Publishes raw bytes on a channel, as a stranger on the bus would.
    void publish_raw(std::string channel, std::string bytes);

  private:
    class NodeBus;
    struct Mail {
        enum class Kind : std::uint8_t { message, state, subscribed } kind = Kind::message;
        std::string channel;
        std::string bytes;
        bus::BusState state = bus::BusState::connected;
    };
    struct Node {
        std::string name;
        std::unique_ptr<NodeBus> bus;
        TableOwnership ownership;
        RecordingCatchUp catch_up;
        std::unique_ptr<ClusterNode> cluster;
        std::deque<Mail> mailbox;        ///< guarded by TestCluster::mutex_
        std::set<std::string> channels;  ///< guarded by TestCluster::mutex_
        std::map<ConnectionId, std::vector<std::string>> delivered;
    };

    void on_loopback_message(std::string_view channel, std::string_view bytes);
    void on_loopback_state(bus::BusState state);
    void on_loopback_subscribed(std::string_view channel);
    void room(Node& node, ForwardedRequest request);
    std::string commit(Node& owner, const std::string& game, const std::string& move,
                       const ForwardedRequest* cause);
    /// Waits until the LoopbackBus delivered all that was published before; false when down.
    bool fence();
    /// Hands mailboxes and catch-ups over; whether anything was.
    bool drain_once();

    std::map<std::string, std::unique_ptr<Node>> nodes_;
    std::map<std::string, GameRecord> games_;
    TimePoint now_{};
    bool database_up_ = true;
    bool broker_up_ = true;

    std::mutex mutex_;
    std::condition_variable fenced_;
    std::uint64_t fence_sent_ = 0;
    std::uint64_t fence_seen_ = 0;            ///< guarded by mutex_
    std::uint64_t states_seen_ = 0;           ///< guarded by mutex_
    std::map<std::string, int> subscribers_;  ///< channel -> nodes subscribed; guarded by mutex_
    DropRule drop_rule_;                      ///< guarded by mutex_
    std::unique_ptr<bus::LoopbackBus> loopback_;
};

}  // namespace arbiter::server::cluster::testing
