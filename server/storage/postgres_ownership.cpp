#include "server/storage/postgres_ownership.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <utility>

#include "server/storage/lease_rules.hpp"
#include "server/storage/postgres_reads.hpp"

namespace arbiter::server::storage {

Expected<void, StorageError> check_node_identity(const NodeIdentity& identity) {
    if (auto id = check_node_id(identity.node_id); !id) {
        return unexpected(StorageError{id.error()});
    }
    if (identity.incarnation == 0) {
        return unexpected(StorageError{
            "a node writes under the incarnation its lease was granted (1 or more), not 0"});
    }
    if (identity.stalled_transaction_timeout < std::chrono::milliseconds{1}) {
        return unexpected(StorageError{"the stalled transaction timeout must be positive"});
    }
    return {};
}

}  // namespace arbiter::server::storage

namespace arbiter::server::storage::detail {

namespace {

// The adopter's lease, live under its incarnation by the database's clock; its row stays locked
// to the commit, so that a join under the same id (which releases the older incarnation's
// games) waits for the adoption and then releases what it took.
constexpr const char* kLockLeaseSql =
    "SELECT 1 FROM nodes WHERE node_id = $1 AND incarnation = $2 "
    "AND lease_expires_at > clock_timestamp() FOR SHARE";

// The adopting statement: `candidates` are the games `which` picks ($1 is this node) that have
// no owner, or whose owner holds no live lease by the database's clock (expired, or no row at
// all: games.owner_node has no foreign key, 0002_nodes.sql says why). Rows another transaction
// holds are passed by, not waited for (SKIP LOCKED): another adopter, or the owner writing,
// which means it is alive. The UPDATE is a compare-and-set on what the candidates read: the
// epoch goes up by exactly one from the epoch seen, the owner becomes this node.
std::string adopt_sql(std::string_view which, std::string_view order_and_limit) {
    return "WITH candidates AS (SELECT id, owner_node, owner_epoch FROM games WHERE " +
           std::string(which) +
           " AND (owner_node IS NULL OR (owner_node <> $1 AND owner_node NOT IN (SELECT node_id "
           "FROM nodes WHERE lease_expires_at > clock_timestamp()))) " +
           std::string(order_and_limit) +
           " FOR NO KEY UPDATE SKIP LOCKED) "
           "UPDATE games SET owner_node = $1, owner_epoch = games.owner_epoch + 1 "
           "FROM candidates WHERE games.id = candidates.id "
           "AND games.owner_epoch = candidates.owner_epoch "
           "AND games.owner_node IS NOT DISTINCT FROM candidates.owner_node "
           "RETURNING games.id, games.owner_epoch";
}

constexpr const char* kReleaseSql = "UPDATE games SET owner_node = NULL WHERE owner_node = $1";

StorageError prefixed(const std::string& what, const StorageError& error) {
    return StorageError{what + ": " + error.message, error.taken, error.fenced};
}

}  // namespace

Expected<std::unique_ptr<GameOwnership>, StorageError> GameOwnership::open(
    const std::string& conninfo, NodeIdentity identity) {
    if (auto valid = check_node_identity(identity); !valid) {
        return unexpected(valid.error());
    }
    auto connection = pg::Connection::open(conninfo);
    if (!connection) {
        return unexpected(std::move(connection).error());
    }
    std::unique_ptr<GameOwnership> ownership(
        new GameOwnership(std::move(identity), std::move(connection).value()));
    if (auto ready = ownership->ready_connection(); !ready) {
        return unexpected(ready.error());
    }
    return ownership;
}

GameOwnership::GameOwnership(NodeIdentity identity, pg::Connection connection)
    : identity_(std::move(identity)),
      incarnation_(identity_.incarnation),
      connection_(std::move(connection)) {}

std::string GameOwnership::session_settings() const {
    return "SET idle_in_transaction_session_timeout = " +
           std::to_string(identity_.stalled_transaction_timeout.count());
}

std::uint64_t GameOwnership::incarnation() const {
    std::lock_guard lock(epochs_mutex_);
    return incarnation_;
}

// --- the epochs held ---------------------------------------------------------------------------

Expected<std::optional<OwnerFence>, StorageError> GameOwnership::fence_for(
    const GameIntent& intent) const {
    if (std::holds_alternative<PruneAborted>(intent)) {
        return std::optional<OwnerFence>();
    }
    std::lock_guard lock(epochs_mutex_);
    if (std::holds_alternative<CreateGame>(intent)) {
        if (handing_over_) {
            return unexpected(handing_over_error("creates no game"));
        }
        return std::optional(OwnerFence{identity_.node_id, incarnation_, 0});
    }
    const std::string& game = game_of(intent);
    const auto held = epochs_.find(game);
    if (held == epochs_.end()) {
        StorageError fenced{"node " + identity_.node_id + " does not own game " + game +
                            " (it neither created nor adopted it, or handed it over): the "
                            "write was fenced, nothing changed"};
        fenced.fenced = true;
        return unexpected(std::move(fenced));
    }
    return std::optional(OwnerFence{identity_.node_id, incarnation_, held->second});
}

void GameOwnership::applied(const GameIntent& intent, const OwnerFence& fence) {
    const auto* create = std::get_if<CreateGame>(&intent);
    if (create == nullptr) {
        return;
    }
    std::lock_guard lock(epochs_mutex_);
    if (fence.incarnation == incarnation_ && !handing_over_) {
        epochs_[create->header.id] = 1;
    }
}

void GameOwnership::forget(const std::string& game) {
    std::lock_guard lock(epochs_mutex_);
    epochs_.erase(game);
}

std::optional<std::uint64_t> GameOwnership::epoch_of(const std::string& game) const {
    std::lock_guard lock(epochs_mutex_);
    const auto held = epochs_.find(game);
    return held == epochs_.end() ? std::nullopt : std::optional(held->second);
}

std::size_t GameOwnership::owned() const {
    std::lock_guard lock(epochs_mutex_);
    return epochs_.size();
}

void GameOwnership::hand_over() {
    std::lock_guard lock(epochs_mutex_);
    handing_over_ = true;
    epochs_.clear();
}

void GameOwnership::rejoin(std::uint64_t incarnation) {
    std::lock_guard lock(epochs_mutex_);
    incarnation_ = incarnation;
    handing_over_ = false;
    epochs_.clear();
}

StorageError GameOwnership::handing_over_error(const std::string& what) const {
    StorageError fenced{"node " + identity_.node_id + " is handing its games over: it " + what +
                        " until it joins again"};
    fenced.fenced = true;
    return fenced;
}

// --- the database ------------------------------------------------------------------------------

Expected<void, StorageError> GameOwnership::ready_connection() {
    if (connection_ready_ && connection_.connected()) {
        return {};
    }
    connection_ready_ = false;
    if (!connection_.connected()) {
        if (auto reconnected = connection_.reset(); !reconnected) {
            return reconnected;
        }
    }
    if (auto set = connection_.exec(session_settings()); !set) {
        return set;
    }
    connection_ready_ = true;
    return {};
}

Expected<std::vector<AdoptedGame>, StorageError> GameOwnership::adopt_expired(std::size_t limit) {
    if (limit == 0) {
        return std::vector<AdoptedGame>();
    }
    // $2: how many, unfinished games oldest first.
    static const std::string kSql =
        adopt_sql("status IN ('waiting', 'playing')", "ORDER BY created_ms, id LIMIT $2");
    return adopt_where(
        kSql, pg::Params().text(identity_.node_id).integer(static_cast<std::int64_t>(limit)));
}

Expected<std::optional<AdoptedGame>, StorageError> GameOwnership::adopt(const std::string& game) {
    // $2: the game.
    static const std::string kSql = adopt_sql("id = $2", "");
    auto adopted = adopt_where(kSql, pg::Params().text(identity_.node_id).text(game));
    if (!adopted) {
        return unexpected(std::move(adopted).error());
    }
    if (adopted->empty()) {
        return std::optional<AdoptedGame>();
    }
    return std::optional(std::move(adopted->front()));
}

Expected<std::optional<GameOwner>, StorageError> GameOwnership::owner_of(const std::string& game) {
    // The lease is judged by the database's clock, as adoption judges it.
    static const std::string kSql =
        "SELECT g.owner_node, g.owner_epoch, "
        "COALESCE(n.lease_expires_at > clock_timestamp(), false) "
        "FROM games g LEFT JOIN nodes n ON n.node_id = g.owner_node WHERE g.id = $1";
    std::lock_guard lock(connection_mutex_);
    if (auto ready = ready_connection(); !ready) {
        return unexpected(prefixed("reading a game's owner", ready.error()));
    }
    auto found = connection_.query(kSql, pg::Params().text(game));
    if (!found) {
        connection_ready_ = connection_ready_ && connection_.connected();
        return unexpected(prefixed("reading a game's owner", found.error()));
    }
    if (found->rows() == 0) {
        return std::optional<GameOwner>();
    }
    GameOwner owner;
    if (!found->is_null(0, 0)) {
        owner.node = found->text(0, 0);
        owner.epoch = static_cast<std::uint64_t>(found->integer(0, 1));
        owner.live = found->boolean(0, 2);
    }
    return std::optional(std::move(owner));
}

Expected<std::vector<LiveNode>, StorageError> GameOwnership::live_nodes() {
    static const std::string kSql =
        "SELECT node_id, incarnation FROM nodes WHERE lease_expires_at > clock_timestamp() "
        "ORDER BY node_id";
    std::lock_guard lock(connection_mutex_);
    if (auto ready = ready_connection(); !ready) {
        return unexpected(prefixed("reading the live nodes", ready.error()));
    }
    auto found = connection_.query(kSql);
    if (!found) {
        connection_ready_ = connection_ready_ && connection_.connected();
        return unexpected(prefixed("reading the live nodes", found.error()));
    }
    std::vector<LiveNode> nodes;
    nodes.reserve(static_cast<std::size_t>(found->rows()));
    for (int r = 0; r < found->rows(); ++r) {
        nodes.push_back(
            LiveNode{found->text(r, 0), static_cast<std::uint64_t>(found->integer(r, 1))});
    }
    return nodes;
}

Expected<std::vector<AdoptedGame>, StorageError> GameOwnership::adopt_where(
    const std::string& sql, const pg::Params& params) {
    // Held to the end: a handover's release_all() comes before this adoption or after it, and
    // after it, this adoption sees the handover and takes nothing.
    std::lock_guard lock(connection_mutex_);
    std::uint64_t incarnation = 0;
    {
        std::lock_guard epochs_lock(epochs_mutex_);
        if (handing_over_) {
            return unexpected(handing_over_error("adopts nothing"));
        }
        incarnation = incarnation_;
    }
    const auto failed = [this](const std::string& what, const StorageError& error) {
        connection_ready_ = connection_ready_ && connection_.connected();
        return unexpected(prefixed(what, error));
    };
    if (auto ready = ready_connection(); !ready) {
        return failed("adopting games", ready.error());
    }
    auto transaction = pg::Transaction::begin(connection_);
    if (!transaction) {
        return failed("adopting games", transaction.error());
    }
    auto live = connection_.query(
        kLockLeaseSql,
        pg::Params().text(identity_.node_id).integer(static_cast<std::int64_t>(incarnation)));
    if (!live) {
        return failed("adopting games", live.error());
    }
    if (live->rows() == 0) {
        StorageError fenced{"node " + identity_.node_id +
                            " holds no live lease under incarnation " +
                            std::to_string(incarnation) + ": it adopts nothing"};
        fenced.fenced = true;
        return unexpected(std::move(fenced));
    }
    auto taken = connection_.query(sql, params);
    if (!taken) {
        return failed("adopting games", taken.error());
    }
    std::vector<AdoptedGame> adopted;
    adopted.reserve(static_cast<std::size_t>(taken->rows()));
    for (int r = 0; r < taken->rows(); ++r) {
        // Read after the UPDATE, in its transaction: every write the old owner committed is in
        // it, and none can commit after (the epoch moved, and the row is locked until then).
        auto stored = load_postgres_game(connection_, taken->text(r, 0));
        if (!stored) {
            return failed("reading an adopted game", stored.error());
        }
        if (!stored->has_value()) {
            return unexpected(StorageError{"adopted game " + taken->text(r, 0) + " vanished"});
        }
        adopted.push_back(
            AdoptedGame{std::move(**stored), static_cast<std::uint64_t>(taken->integer(r, 1))});
    }
    if (auto committed = transaction->commit(); !committed) {
        return failed("committing an adoption", committed.error());
    }
    std::sort(adopted.begin(), adopted.end(), [](const AdoptedGame& a, const AdoptedGame& b) {
        return std::tie(a.game.header.created_ms, a.game.header.id) <
               std::tie(b.game.header.created_ms, b.game.header.id);
    });
    std::lock_guard epochs_lock(epochs_mutex_);
    // A join under a newer incarnation meanwhile released these games again, or a handover
    // began, whose release comes after this adoption: not ours, and not to be rebuilt as ours
    // (every write of them would be fenced).
    if (incarnation_ != incarnation || handing_over_) {
        StorageError fenced{"node " + identity_.node_id +
                            " joined again or began a handover while adopting: the games are "
                            "not its own"};
        fenced.fenced = true;
        return unexpected(std::move(fenced));
    }
    for (const AdoptedGame& game : adopted) {
        epochs_[game.game.header.id] = game.epoch;
    }
    return adopted;
}

Expected<std::size_t, StorageError> GameOwnership::release_all() {
    std::lock_guard lock(connection_mutex_);
    if (auto ready = ready_connection(); !ready) {
        return unexpected(prefixed("handing games over", ready.error()));
    }
    auto released = connection_.query(kReleaseSql, pg::Params().text(identity_.node_id));
    if (!released) {
        connection_ready_ = connection_.connected();
        return unexpected(prefixed("handing games over", released.error()));
    }
    return static_cast<std::size_t>(released->changed());
}

}  // namespace arbiter::server::storage::detail
