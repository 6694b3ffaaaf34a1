#include "server/app/cluster_fanout.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "common/core/overloaded.hpp"
#include "common/protocol/codec.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"

namespace arbiter::server::app {

namespace {

using Kind = DirectoryChange::Kind;

Kind kind_of(cluster::AccountChange change) {
    switch (change) {
        case cluster::AccountChange::signed_up:
            return Kind::signed_up;
        case cluster::AccountChange::signed_in:
            return Kind::signed_in;
        case cluster::AccountChange::signed_out:
            return Kind::signed_out;
        case cluster::AccountChange::other_sessions_ended:
            return Kind::other_sessions_ended;
        case cluster::AccountChange::account_deleted:
            break;
    }
    return Kind::account_deleted;
}

cluster::AccountChange change_of(Kind kind) {
    switch (kind) {
        case Kind::signed_up:
            return cluster::AccountChange::signed_up;
        case Kind::signed_in:
            return cluster::AccountChange::signed_in;
        case Kind::signed_out:
            return cluster::AccountChange::signed_out;
        case Kind::other_sessions_ended:
            return cluster::AccountChange::other_sessions_ended;
        case Kind::account_deleted:
            break;
    }
    return cluster::AccountChange::account_deleted;
}

/// Whether a change has what its kind needs: the envelope's decoder checked the shape of each
/// field, not which fields a kind uses.
bool complete(const DirectoryChange& change) {
    switch (change.kind) {
        case Kind::signed_up:
            return !change.username.empty();
        case Kind::signed_in:
            return change.user_id > 0 && !change.username.empty() && !change.token_hash.empty();
        case Kind::signed_out:
            return !change.token_hash.empty();
        case Kind::other_sessions_ended:
        case Kind::account_deleted:
            return change.user_id > 0;
    }
    return false;
}

/// `games` as a protocol `lobby` message (the form a follower gets).
std::string encode_listings(std::vector<protocol::GameSummary> games) {
    return protocol::encode(protocol::ServerMessage{protocol::LobbyList{std::move(games)}, {}});
}

/// The games of an encoded `lobby` message; nullopt when it is not one.
std::optional<std::vector<protocol::GameSummary>> decode_listings(std::string_view text) {
    auto message = protocol::decode_server(text, [](std::string_view) { return std::nullopt; });
    if (!message) {
        return std::nullopt;
    }
    auto* list = std::get_if<protocol::LobbyList>(&message->body);
    if (list == nullptr) {
        return std::nullopt;
    }
    return std::move(list->games);
}

}  // namespace

ClusterFanout::ClusterFanout(std::string self_node, AccountDirectory& directory,
                             RatingBook& ratings, FanoutSources sources,
                             std::chrono::milliseconds heal_period)
    : self_(std::move(self_node)),
      directory_(directory),
      ratings_(ratings),
      sources_(std::move(sources)),
      heal_period_(heal_period) {
    directory_.on_local_change([this](const DirectoryChange& change) {
        // Sign-ups and sign-ins carry a username within the account rules' bounds; the hash is
        // token_hash()'s SHA-256 in hex.
        broadcast(cluster::AccountChanged{self_, change_of(change.kind),
                                          static_cast<std::uint64_t>(change.user_id),
                                          change.username, change.token_hash});
    });
}

ClusterFanout::~ClusterFanout() {
    stop();
}

void ClusterFanout::serve_lobby(Lobby& lobby) {
    {
        std::lock_guard lock(mutex_);
        lobby_ = &lobby;
    }
    lobby.on_local_change(
        [this](const std::string& game, const std::optional<protocol::GameSummary>& summary) {
            listing_changed(game, summary);
        });
}

void ClusterFanout::start(ClusterLink& link, bool heal_thread) {
    {
        std::lock_guard lock(mutex_);
        link_ = &link;
    }
    link.listen(*this);
    if (heal_thread) {
        thread_ = std::thread([this] { heals(); });
    }
}

void ClusterFanout::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        link_ = nullptr;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void ClusterFanout::broadcast(const cluster::Envelope& envelope) {
    ClusterLink* link = nullptr;
    {
        std::lock_guard lock(mutex_);
        link = link_;
    }
    // The link outlives stop(), which comes before its close(); a broadcast then is dropped.
    if (link != nullptr) {
        link->broadcast(envelope);
    }
}

void ClusterFanout::count(bool applied) {
    std::lock_guard lock(mutex_);
    ++(applied ? counters_.applied : counters_.refused);
}

// ---- this node's changes --------------------------------------------------------------------

void ClusterFanout::listing_changed(const std::string& game,
                                    const std::optional<protocol::GameSummary>& summary) {
    if (!cluster::valid_id(game)) {
        return;  // a cluster's games have cluster ids (common/core/cluster_id.hpp)
    }
    broadcast(cluster::ListingChanged{self_, game, summary.has_value(),
                                      summary ? encode_listings({*summary}) : std::string()});
}

void ClusterFanout::ratings_committed(const storage::RatingsSettled& settled) {
    const auto speed = parse_rated_speed(settled.speed);
    if (!speed) {
        return;
    }
    const Perf perf{settled.variant, *speed};
    for (const auto& seat : settled.seats) {
        // The book's entry is this end's unless another end of the player was settled since:
        // that one is broadcast when it commits, with more games, and supersedes this one.
        const auto entry = ratings_.entry(seat.user_id, perf);
        if (!entry || entry->updated_ms != settled.at_ms || entry->rating.rating != seat.rating ||
            entry->rating.deviation != seat.deviation ||
            entry->rating.volatility != seat.volatility || seat.user_id <= 0 || entry->games < 0 ||
            settled.at_ms < 0) {
            continue;
        }
        broadcast(cluster::RatingChanged{
            self_, static_cast<std::uint64_t>(perf.variant), static_cast<std::uint64_t>(*speed),
            cluster::RatingEntry{static_cast<std::uint64_t>(seat.user_id), seat.rating,
                                 seat.deviation, seat.volatility,
                                 static_cast<std::uint64_t>(entry->games),
                                 static_cast<std::uint64_t>(settled.at_ms)}});
    }
}

// ---- other nodes' changes -------------------------------------------------------------------

void ClusterFanout::on_broadcast(cluster::Envelope envelope) {
    std::visit(Overloaded{
                   [this](const OneOf<cluster::AccountChanged, cluster::RatingChanged,
                                      cluster::ListingChanged, cluster::ListingsOf> auto& change) {
                       apply(change);
                   },
                   [this](const OneOf<cluster::Intent, cluster::Delivery, cluster::NotOwner,
                                      cluster::Hangup> auto&) { count(false); },
               },
               envelope);
}

void ClusterFanout::apply(const cluster::AccountChanged& changed) {
    const DirectoryChange change{kind_of(changed.change),
                                 static_cast<std::int64_t>(changed.user_id), changed.username,
                                 changed.token_hash};
    if (!complete(change)) {
        return count(false);
    }
    directory_.apply(change);
    count(true);
}

void ClusterFanout::apply(const cluster::RatingChanged& changed) {
    static_assert(static_cast<std::uint64_t>(RatedSpeed::classical) + 1 == cluster::kRatedSpeeds);
    static_assert(static_cast<std::uint64_t>(rules::Variant::draughts) + 1 == cluster::kVariants);
    const Perf perf{static_cast<rules::Variant>(changed.variant),
                    static_cast<RatedSpeed>(changed.speed)};
    const auto& entry = changed.entry;
    ratings_.apply(static_cast<std::int64_t>(entry.user_id), perf,
                   PoolRating{glicko2::Rating{entry.rating, entry.deviation, entry.volatility},
                              static_cast<std::int64_t>(entry.games),
                              static_cast<std::int64_t>(entry.updated_ms)});
    count(true);
}

void ClusterFanout::apply(const cluster::ListingChanged& changed) {
    Lobby* lobby = nullptr;
    {
        std::lock_guard lock(mutex_);
        lobby = lobby_;
    }
    if (lobby == nullptr) {
        return;
    }
    std::optional<protocol::GameSummary> summary;
    if (changed.open) {
        auto games = decode_listings(changed.summary);
        if (!games || games->size() != 1) {
            return count(false);
        }
        summary = std::move(games->front());
    }
    count(lobby->remote_changed(changed.from_node, changed.game, summary));
}

void ClusterFanout::apply(const cluster::ListingsOf& listings) {
    Lobby* lobby = nullptr;
    {
        std::lock_guard lock(mutex_);
        lobby = lobby_;
    }
    if (lobby == nullptr) {
        return;
    }
    auto games = decode_listings(listings.listings);
    if (!games || games->size() > Lobby::kMaxListingsPerNode) {
        return count(false);
    }
    count(lobby->remote_replaced(listings.from_node, *games));
}

void ClusterFanout::on_nodes_live(const std::vector<std::string>& nodes) {
    auto sorted = nodes;
    std::sort(sorted.begin(), sorted.end());
    Lobby* lobby = nullptr;
    bool newcomer = false;
    {
        std::lock_guard lock(mutex_);
        lobby = lobby_;
        newcomer =
            !std::includes(known_nodes_.begin(), known_nodes_.end(), sorted.begin(), sorted.end());
        known_nodes_ = std::move(sorted);
        listings_now_ = listings_now_ || newcomer;
    }
    if (newcomer) {
        wake_.notify_all();
    }
    if (lobby != nullptr) {
        lobby->keep_nodes(nodes);
    }
}

// ---- healing --------------------------------------------------------------------------------

void ClusterFanout::on_bus_up() {
    {
        std::lock_guard lock(mutex_);
        heal_now_ = true;
    }
    wake_.notify_all();
}

void ClusterFanout::heals() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        const bool woken = wake_.wait_for(
            lock, heal_period_, [this] { return stopping_ || heal_now_ || listings_now_; });
        if (stopping_) {
            return;
        }
        const bool listings_only = woken && !heal_now_;
        heal_now_ = false;
        listings_now_ = false;
        lock.unlock();
        if (listings_only) {
            send_listings();
        } else {
            heal();
        }
        lock.lock();
    }
}

bool ClusterFanout::heal() {
    bool healed = true;
    // The directory first records what changes while the store is read (begin_reload).
    directory_.begin_reload();
    if (auto accounts = sources_.accounts()) {
        directory_.finish_reload(*accounts);
    } else {
        directory_.cancel_reload();
        healed = false;
        log_event(LogLevel::warn, "cluster_heal_failed",
                  {{"what", "accounts"}, {"error", accounts.error().message}});
    }
    if (auto rows = sources_.ratings()) {
        ratings_.merge(*rows);
    } else {
        healed = false;
        log_event(LogLevel::warn, "cluster_heal_failed",
                  {{"what", "ratings"}, {"error", rows.error().message}});
    }
    {
        std::lock_guard lock(mutex_);
        ++(healed ? counters_.heals : counters_.heal_failures);
    }
    send_listings();
    return healed;
}

void ClusterFanout::send_listings() {
    Lobby* lobby = nullptr;
    {
        std::lock_guard lock(mutex_);
        lobby = lobby_;
    }
    if (lobby == nullptr) {
        return;
    }
    auto games = lobby->local_listings(Lobby::kMaxListingsPerNode);
    auto text = encode_listings(games);
    // A summary is a few hundred bytes, so kMaxListingsPerNode fit; halved until they do.
    while (text.size() > cluster::kMaxMessageBytes && !games.empty()) {
        games.resize(games.size() / 2);
        text = encode_listings(games);
    }
    broadcast(cluster::ListingsOf{self_, std::move(text)});
    std::lock_guard lock(mutex_);
    ++counters_.listings_sent;
}

std::string render_fanout_metrics(const ClusterFanoutCounters& fanout,
                                  const ClusterLinkCounters& link, std::size_t remote_listings) {
    std::string text;
    const auto series = [&text](const char* name, const char* type, const char* help,
                                std::uint64_t value) {
        render_series(text, name, type, help, static_cast<double>(value));
    };
    series("arbiter_cluster_broadcasts_sent_total", "counter",
           "Changes of accounts, ratings and the lobby broadcast to the other nodes.",
           link.broadcasts_sent);
    series("arbiter_cluster_broadcasts_total", "counter", "Other nodes' broadcasts received.",
           link.broadcasts);
    series("arbiter_cluster_broadcasts_applied_total", "counter",
           "Other nodes' changes applied here.", fanout.applied);
    series("arbiter_cluster_broadcasts_refused_total", "counter",
           "Other nodes' broadcasts that made no sense, or past the lobby's bounds: dropped.",
           fanout.refused);
    series("arbiter_cluster_heals_total", "counter",
           "Reloads of sessions and ratings from the database (reconnects and periods).",
           fanout.heals);
    series("arbiter_cluster_heal_failures_total", "counter", "Reloads that failed.",
           fanout.heal_failures);
    series("arbiter_cluster_remote_listings", "gauge", "Other nodes' open games in the lobby.",
           remote_listings);
    return text;
}

ClusterFanoutCounters ClusterFanout::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

// ---- RatingsCommitted -----------------------------------------------------------------------

void RatingsCommitted::write(storage::GameIntent intent, Done done) {
    const auto* settled = storage::ratings_of(intent);
    if (settled == nullptr || !*settled) {
        return inner_.write(std::move(intent), std::move(done));
    }
    // Copied before the intent moves (the order a call's arguments are made in is unspecified).
    Done told = [this, ratings = **settled,
                 done = std::move(done)](Expected<void, storage::StorageError> result) {
        if (result) {
            fanout_.ratings_committed(ratings);
        }
        done(std::move(result));
    };
    inner_.write(std::move(intent), std::move(told));
}

}  // namespace arbiter::server::app
