#pragma once
/// \file
/// The limits a client is held to: the rate of its messages (a token bucket), the refusals in a
/// row that close a flooding connection, the games it may have open (--max-open-games) and the
/// games it may create a minute (--max-creates-per-minute). Each is counted against a ClientKey:
/// the hub keys a client by its address, so the counts follow it across its connections and
/// reconnecting refills none of them; only a client on the server's own machine is keyed per
/// connection. Time comes in as a value: every decision here is a function of the counts and
/// `now`.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "server/net/token_bucket.hpp"

namespace arbiter::server::app {

/// The bounds, from the command line.
struct ClientLimitsConfig {
    double messages_per_second = 20;  ///< sustained rate per client
    double message_burst = 60;        ///< bucket size
    /// Messages refused in a row (over the rate) before the connection is closed (1008).
    unsigned max_refused_in_row = 200;
    /// Games a client may have created and not finished, waiting for an opponent or against an
    /// engine.
    std::size_t max_open_games = 8;
    /// Games a client may create a minute (a bucket of this many, refilled over a minute): an
    /// open game aborted or finished at once frees its place, and must not let a client write
    /// a game a second into the database for good.
    unsigned max_creates_per_minute = 20;
};

/// Whom a limit counts against: one connection, or every connection from one address.
class ClientKey {
  public:
    /// One connection: its limits start afresh with it and end with it.
    static ClientKey connection(std::uint64_t peer_id) noexcept { return ClientKey(peer_id); }
    /// Every connection from `address` (an IPv4 address, or an IPv6 /64 prefix, as text).
    static ClientKey address(std::string address) { return ClientKey(std::move(address)); }

    /// Keyed per connection: nothing of it outlives the connection.
    bool per_connection() const noexcept { return std::holds_alternative<std::uint64_t>(key_); }

    friend bool operator==(const ClientKey&, const ClientKey&) = default;
    /// For unordered containers.
    std::size_t hash() const noexcept { return std::hash<decltype(key_)>{}(key_); }

  private:
    explicit ClientKey(std::variant<std::uint64_t, std::string> key) : key_(std::move(key)) {}
    std::variant<std::uint64_t, std::string> key_;
};

/// What admit() decided about one message.
enum class Admission : std::uint8_t {
    admitted,
    refused,        ///< over the rate: answered rate_limited and dropped
    first_refused,  ///< refused, and the first of a run of refusals (worth one log line)
    close,          ///< one refusal too many in a row: the connection is closed (1008)
    unknown,        ///< no connection of this client is open: dropped without an answer
};

/// The rate and open-game limits of every client with a connection open, and of every client
/// keyed by address whose counts still differ from a newcomer's: its buckets not yet full again,
/// or games of its still open (forget_idle() drops the others). Thread-safe.
class ClientLimits {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;
    /// Says whether a game counted as open still is: one against an engine until it ends, one
    /// against a person while it waits for them. Called without the limits' lock held.
    using StillOpen = std::function<bool(const std::string& game, bool against_engine)>;

    explicit ClientLimits(ClientLimitsConfig config) : config_(config) {}

    const ClientLimitsConfig& config() const noexcept { return config_; }

    /// A connection of `client` opened at `now`. A client new to the limits starts with full
    /// buckets; one known already (a connection open, or closed lately) keeps its counts.
    void connected(const ClientKey& client, TimePoint now);
    /// A connection of `client` closed at `now`. With its last connection a client keyed per
    /// connection is forgotten, and one keyed by address whose counts are a newcomer's.
    void disconnected(const ClientKey& client, TimePoint now);
    /// Forgets every client with no connection open whose buckets are full again at `now` and
    /// whose games `still_open` says are all closed, so that memory holds only the clients that
    /// differ from a newcomer. Does the walk at most once per kForgetInterval.
    void forget_idle(TimePoint now, const StillOpen& still_open);
    static constexpr std::chrono::seconds kForgetInterval{1};
    /// Clients known now (for tests and /metrics).
    std::size_t client_count() const;

    /// Takes a token for one message arriving at `now`, or says why not.
    Admission admit(const ClientKey& client, TimePoint now);

    /// Why `client` may not have one more open game, or nullopt when it may. Forgets the games
    /// `still_open` says are closed. Counts nothing.
    std::optional<std::string> open_game_refusal(const ClientKey& client,
                                                 const StillOpen& still_open);
    /// open_game_refusal(), and when it may, `game` is counted at once, in the same step: two
    /// connections of one client cannot both take the last place. The game is reserved: not asked
    /// about (its room may not exist yet) until count_open_game() says it is in place.
    std::optional<std::string> reserve_open_game(const ClientKey& client, const std::string& game,
                                                 bool against_engine, const StillOpen& still_open);
    /// Counts `game` among `client`'s open games, with no check (a rematch the room checked, or a
    /// reserved game now in memory).
    void count_open_game(const ClientKey& client, const std::string& game, bool against_engine);
    /// A reserved game that was not created after all.
    void release_open_game(const ClientKey& client, const std::string& game);
    /// Takes one of `client`'s creates at `now`, or says why not (over --max-creates-per-minute:
    /// answered rate_limited).
    std::optional<std::string> take_create(const ClientKey& client, TimePoint now);

  private:
    struct OpenGame {
        bool against_engine = false;
        bool reserved = false;  ///< counted, but not yet asked about (reserve_open_game)
    };
    struct Client {
        unsigned connections = 0;
        net::TokenBucket messages;
        net::TokenBucket creates;
        unsigned refused_in_row = 0;
        std::map<std::string, OpenGame> open_games;
    };
    struct KeyHash {
        std::size_t operator()(const ClientKey& key) const noexcept { return key.hash(); }
    };

    /// The refusal, after forgetting the games `still_open` says are closed; when there is room
    /// and `reserve` is set, `reserve` is counted (reserved) before the lock is let go.
    std::optional<std::string> check_open_games(
        const ClientKey& client, const StillOpen& still_open,
        const std::optional<std::pair<std::string, bool>>& reserve);
    std::string refusal(const ClientKey& client) const;
    /// Whether `client`'s counts are a newcomer's at `now` but for its open games.
    static bool quiet_at(const Client& client, TimePoint now) noexcept;

    const ClientLimitsConfig config_;
    /// Guards clients_. Never held while calling out (StillOpen runs between two holds).
    mutable std::mutex mutex_;
    std::unordered_map<ClientKey, Client, KeyHash> clients_;
    std::optional<TimePoint> forgot_at_;  ///< the last forget_idle() walk (under mutex_)
};

}  // namespace arbiter::server::app
