#pragma once
// The players and spectators of one event loop: they speak the Arbiter protocol
// (schema/protocol.md), or send frames to a bare server (echo or relay, ws_io.hpp).

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench/load/pacing.hpp"
#include "bench/load/stats.hpp"
#include "bench/load/ws_io.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::bench::load {

/// The games that ended during the run, which the readers ask for; shared by every loop.
class EndedGames {
  public:
    void add(const std::string& game) {
        const std::lock_guard lock(mutex_);
        games_.push_back(game);
    }
    /// One of them chosen by `random`; empty while none has ended.
    std::string pick(std::uint64_t random) const {
        const std::lock_guard lock(mutex_);
        return games_.empty() ? std::string() : games_[random % games_.size()];
    }

  private:
    mutable std::mutex mutex_;
    std::vector<std::string> games_;
};

/// What every driver shares: the run's settings and the record file.
struct RunSettings {
    Endpoint endpoint;
    std::string variant = "chess";
    /// Against a bare server (echo or relay) instead of playing; none: the game server.
    std::optional<BareMode> bare;
    bool idle = false;            ///< create and join, then hold without moving
    double moves_per_second = 0;  ///< cap over all games (0: as fast as the server answers)
    unsigned total_games = 1;     ///< over all drivers, for the per-game share of the cap
    unsigned per_address = 250;   ///< connections per 127.0.0.x source address (0: no binding)
    unsigned watch_games = 1;     ///< games each spectator watches
    int stalled_receive_buffer = 4096;  ///< SO_RCVBUF of a stalled spectator
    std::FILE* record = nullptr;        ///< acknowledged moves, one per line (may be null)
    std::mutex* record_mutex = nullptr;
    std::atomic<bool>* measuring = nullptr;  ///< samples count only while set
    bool timeline = false;                   ///< also keep to_mover per second
    Pacing pacing = Pacing::closed;          ///< how a capped game's moves are spaced
    EndedGames* ended_games = nullptr;       ///< games ended so far, for the readers
    double reads_per_second = 20;            ///< per reader connection
    /// The side to move resigns once this many plies are played (0: play on to the result):
    /// finished games of a realistic length, for the analysis benchmark.
    std::uint64_t resign_at = 0;
    /// A cluster behind a proxy: every connection says `hello` first and keeps the server name
    /// its `welcome` gives (a node's carries the node's id), so that a spectator's latency is
    /// counted apart when it is on another node than the game's creator (whose node owns it).
    bool by_node = false;
};

/// One event loop's games and spectators.
class Driver {
  public:
    /// `first_connection`: the global index of this driver's first connection (for the source
    /// address).
    /// `readers`: connections that ask for stored games (`replay`, then `watch`, by turns) of
    /// games ended in this run, at settings.reads_per_second each whatever the answers, as a
    /// crowd browsing old games (or a client flooding the server with reads) would.
    Driver(EventLoop& loop, const RunSettings& settings, unsigned games, unsigned spectators,
           unsigned stalled, unsigned readers, unsigned first_connection, unsigned seed);
    ~Driver();
    Driver(const Driver&) = delete;
    Driver& operator=(const Driver&) = delete;

    /// Starts opening connections (on the loop's thread).
    void start();
    /// Stalled spectators read again, so their closes become visible (on the loop's thread).
    void drain_stalled();
    /// Drops every connection (on the loop's thread, before the loop stops).
    void shutdown();

    /// Connections open now.
    int open_connections() const { return open_.load(); }
    /// Connections that reached `open` or failed, and how many there are in all.
    int settled_connections() const { return settled_.load(); }
    int total_connections() const { return static_cast<int>(wanted_); }
    /// Stalled spectators whose connection is still open.
    int stalled_open() const { return stalled_open_.load(); }
    /// The counters; read only after the loop stopped or from its thread.
    Stats& stats() { return stats_; }

  private:
    struct Slot;
    struct Spectator;
    struct Reader;

    void open_next();
    void open_player(Slot& slot, int player);
    void open_spectator(Spectator& spectator);
    void open_reader(Reader& reader);
    /// Sends the reader's next read after `delay`, and so on every interval while it is open.
    void read_after(Reader& reader, std::chrono::microseconds delay);
    void on_reader_message(std::string_view text);
    void on_spectator_message(Spectator& spectator, std::string_view text);
    LinkOptions link_options(bool stalled);
    void on_player_message(Slot& slot, int player, std::string_view text);
    void on_refused(Slot& slot, int player, const protocol::ServerMessage& message,
                    const protocol::ErrorMessage& error);
    void on_seat(Slot& slot, const protocol::SeatGranted& seat);
    void on_moved(Slot& slot, int player, const protocol::Moved& moved, bool answers_request);
    void on_echo(Slot& slot, int player);
    void on_relay(Slot& slot, int player, std::string_view text);
    /// A connection's handshake is done: the next one may start.
    void connection_opened();
    /// A connection closed, open or still in its handshake.
    void connection_closed(bool was_open);
    void on_closed(int close_code, const std::string& what);
    void create_game(Slot& slot);
    void choose_move(Slot& slot, int player, std::span<const std::string> legal, std::uint64_t ply);
    void send_move(Slot& slot, int player, const std::string& move, std::uint64_t ply);
    void send_echo(Slot& slot, int player);
    void send_relay(Slot& slot, int player);
    /// Sends `send(slot, player)` now, or when the --rate cap allows.
    void send_paced(Slot& slot, int player, void (Driver::*send)(Slot&, int));
    /// How long to hold a slot's next move (or echo) to keep to the --rate cap.
    std::chrono::microseconds pacing_delay(Slot& slot);
    void follow(Slot& slot, const std::string& previous_game);
    /// Counts a round trip seen while measuring.
    void add_round_trip(std::int64_t micros);

    EventLoop& loop_;
    const RunSettings& settings_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::vector<std::unique_ptr<Spectator>> spectators_;
    std::vector<std::unique_ptr<Reader>> readers_;
    std::vector<std::function<void()>> to_open_;
    std::size_t next_to_open_ = 0;
    int connecting_ = 0;
    unsigned next_connection_;
    unsigned wanted_ = 0;
    std::chrono::microseconds move_interval_{0};
    std::mt19937_64 random_;
    bool shutting_down_ = false;
    std::atomic<int> open_{0};
    std::atomic<int> settled_{0};
    std::atomic<int> stalled_open_{0};
    Stats stats_;
    Clock::time_point measured_from_{};  ///< when this loop saw the first measured round trip
};

}  // namespace arbiter::bench::load
