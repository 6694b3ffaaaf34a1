#include "server/app/config.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <tuple>

#include "server/app/log.hpp"
#include "server/app/scheduling.hpp"
#include "server/bus/redis_uri.hpp"
#include "server/net/memory_budget.hpp"

namespace arbiter::server::app {

namespace po = boost::program_options;

unsigned default_network_threads(unsigned cores, bool commits_on_network_threads) noexcept {
    const unsigned spare = commits_on_network_threads ? 1 : 0;
    return std::clamp(cores, spare + 1, spare + 2) - spare;
}

namespace {

// Why `path` cannot be started as an engine (" is not ..."), or nullopt. A directory passes
// access(X_OK): hence the stat.
std::optional<std::string> not_an_executable(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
        return " is not a regular file";
    }
    if (::access(path.c_str(), X_OK) != 0) {
        return " is not executable";
    }
    return std::nullopt;
}

// Whether posix_spawnp would find `name` (no '/'): an executable file in a folder of PATH, or of
// glibc's default PATH when it is unset. An empty entry is the current folder.
bool found_in_path(const std::string& name) {
    const char* variable = std::getenv("PATH");
    const std::string_view path = variable != nullptr ? variable : "/bin:/usr/bin";
    for (std::size_t start = 0; start <= path.size();) {
        const std::size_t colon = std::min(path.find(':', start), path.size());
        const std::string_view folder = path.substr(start, colon - start);
        if (!not_an_executable((folder.empty() ? std::string(".") : std::string(folder)) + "/" +
                               name)) {
            return true;
        }
        start = colon + 1;
    }
    return false;
}

// The machine's memory, for the outgoing budget's default; 0 when it cannot be read (the
// default's floor then applies).
std::uint64_t physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) {
        return 0;
    }
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

/// The cluster flags: all or none, and each within its bounds; fills config.cluster's timings.
Expected<void, std::string> check_cluster(const po::variables_map& values, ServerConfig& config,
                                          std::uint64_t lease_ttl_ms, std::uint64_t heartbeat_ms,
                                          std::uint64_t sweep_ms) {
    auto& cluster = config.cluster;
    if (!cluster.enabled()) {
        for (const char* flag : {"bus", "lease-ttl-ms", "heartbeat-ms", "sweep-ms"}) {
            if (values.count(flag) != 0U && !values[flag].defaulted()) {
                return unexpected("--" + std::string(flag) +
                                  " is for a cluster node: give --node-id");
            }
        }
        return {};
    }
    if (auto id = storage::check_node_id(cluster.node_id); !id) {
        return unexpected("--node-id: " + id.error());
    }
    if (!is_postgres_uri(config.database)) {
        return unexpected(std::string(
            "--node-id needs --db postgresql://...: the nodes of a cluster share one PostgreSQL "
            "database"));
    }
    if (cluster.bus.empty()) {
        return unexpected(std::string("--node-id needs --bus redis://HOST:PORT"));
    }
    if (auto bus = bus::parse_redis_uri(cluster.bus); !bus) {
        return unexpected("--bus: " + bus.error());
    }
    if (lease_ttl_ms < 100 || lease_ttl_ms > 600'000 || heartbeat_ms < 10 ||
        heartbeat_ms > 300'000) {
        return unexpected(
            std::string("--lease-ttl-ms must be 100..600000 and --heartbeat-ms 10..300000"));
    }
    if (sweep_ms < 10 || sweep_ms > 600'000) {
        return unexpected(std::string("--sweep-ms must be 10..600000"));
    }
    cluster.lease.ttl = std::chrono::milliseconds(lease_ttl_ms);
    cluster.lease.heartbeat_interval = std::chrono::milliseconds(heartbeat_ms);
    cluster.sweep_interval = std::chrono::milliseconds(sweep_ms);
    if (auto timing = storage::check_lease_timing(cluster.lease); !timing) {
        return unexpected("--lease-ttl-ms and --heartbeat-ms: " + timing.error());
    }
    return {};
}

}  // namespace

std::variant<ServerConfig, ExitWith> parse_command_line(int argc, const char* const* argv) {
    ServerConfig config;
    config.net.limits.max_outgoing_bytes = net::default_outgoing_budget(physical_memory_bytes());
    unsigned port = config.net.port;
    unsigned idle_seconds = static_cast<unsigned>(
        std::chrono::duration_cast<std::chrono::seconds>(config.net.limits.idle_timeout).count());
    unsigned ping_interval_ms = static_cast<unsigned>(config.net.limits.ping_interval.count());
    unsigned close_timeout_ms = static_cast<unsigned>(config.net.limits.close_timeout.count());
    unsigned disconnect_seconds = 60;
    unsigned prune_seconds = static_cast<unsigned>(config.hub.prune_aborted_after.count());
    std::string sync = "full";
    std::vector<std::string> engine_flags;
    std::vector<std::string> trusted_proxies;
    bool no_spectator_chat = false;
    std::string chat_words_file;
    unsigned engine_timeout_ms = static_cast<unsigned>(config.engines.handshake_timeout.count());
    unsigned engine_margin_ms = static_cast<unsigned>(config.engines.answer_margin.count());
    std::uint64_t analysis_nodes = 100'000;
    auto lease_ttl_ms = static_cast<std::uint64_t>(config.cluster.lease.ttl.count());
    auto heartbeat_ms = static_cast<std::uint64_t>(config.cluster.lease.heartbeat_interval.count());
    auto sweep_ms = static_cast<std::uint64_t>(config.cluster.sweep_interval.count());
    unsigned analysis_movetime_ms = 200;
    po::options_description options("arbiter-server options");
    // clang-format off
    options.add_options()
        ("help,h", "print this help and exit")
        ("version", "print the version and exit")
        ("bind", po::value(&config.net.bind_address)->default_value(config.net.bind_address), "address to listen on")
        ("port", po::value(&port)->default_value(port), "port for HTTP and WebSocket (0: any free port)")
        ("db", po::value(&config.database)->default_value(config.database), "SQLite database file, or a PostgreSQL URI (postgresql://USER@HOST:PORT/DATABASE, or postgres://...)")
        ("sync", po::value(&sync)->default_value(sync), "full (an acknowledged write survives power loss) or normal: SQLite's synchronous mode; on PostgreSQL, synchronous_commit on or off")
        ("max-db-bytes", po::value(&config.max_db_bytes)->default_value(config.max_db_bytes), "largest the SQLite database may grow (0: no bound); past it moves are refused with unavailable and nothing changes")
        ("journal-rows", po::value(&config.journal_rows)->default_value(config.journal_rows), "moves committed to the move journal before they are filed into the moves table in one transaction (0: no journal, each move written in place)")
        ("web-root", po::value(&config.web_root)->default_value(config.web_root), "folder of the browser client served at /")
        ("threads", po::value(&config.threads)->default_value(config.threads), "network threads (by default 1 or 2: as many as the cores, one fewer at --sync normal on SQLite)")
        ("time-slice-us", po::value(&config.time_slice_us)->default_value(config.time_slice_us), "the time slice, in microseconds (100..100000), that the server's threads ask of the Linux scheduler (6.12 and later), so that a thread woken for a move preempts longer work sooner; the analysis pool keeps the kernel's default; 0: the kernel's default for all")
        ("tls-cert", po::value(&config.net.tls_cert_file), "PEM certificate chain: serve https:// and wss://")
        ("tls-key", po::value(&config.net.tls_key_file), "PEM private key for --tls-cert")
        ("max-frame-bytes", po::value(&config.net.limits.max_frame_bytes)->default_value(config.net.limits.max_frame_bytes), "largest incoming WebSocket message")
        ("max-queue-messages", po::value(&config.net.limits.max_queue_messages)->default_value(config.net.limits.max_queue_messages), "outgoing messages queued per connection before it is closed")
        ("socket-send-buffer", po::value(&config.net.limits.socket_send_buffer_bytes)->default_value(config.net.limits.socket_send_buffer_bytes), "SO_SNDBUF of a WebSocket connection in bytes (0: the kernel's autotuning)")
        ("max-queue-bytes", po::value(&config.net.limits.max_queue_bytes)->default_value(config.net.limits.max_queue_bytes), "outgoing bytes queued per connection before it is closed")
        ("max-outgoing-bytes", po::value(&config.net.limits.max_outgoing_bytes)->default_value(config.net.limits.max_outgoing_bytes), "outgoing bytes queued for all connections together (default: an eighth of this machine's memory, 16 MiB to 2 GiB); past it the connections holding the most are closed (1013), players last, until a quarter under it")
        ("max-connections", po::value(&config.net.limits.max_connections)->default_value(config.net.limits.max_connections), "connections in total")
        ("max-connections-per-address", po::value(&config.net.limits.max_connections_per_address)->default_value(config.net.limits.max_connections_per_address), "connections from one IP address")
        ("trusted-proxy", po::value(&trusted_proxies)->composing(), "ADDRESS or CIDR range (repeatable) of a reverse proxy whose X-Forwarded-For names the client; default: this machine (127.0.0.0/8 and ::1); 'none' trusts no one")
        ("allowed-origin", po::value(&config.net.allowed_origins)->composing(), "ORIGIN (scheme://host[:port], repeatable; '*' for any) whose web pages may open a WebSocket here, besides this server's own; a handshake without Origin (no browser) is always allowed")
        ("max-pings-per-second", po::value(&config.net.limits.max_pings_per_second)->default_value(config.net.limits.max_pings_per_second), "WebSocket ping frames a client may send a second (a burst of 4 s worth); past it the connection is closed (1008)")
        ("api-rate", po::value(&config.api_requests_per_second)->default_value(config.api_requests_per_second), "REST API (/api/) requests per second per client address (sustained); past it the answer is 429 with Retry-After")
        ("api-burst", po::value(&config.api_burst)->default_value(config.api_burst), "REST API requests per client address in a burst")
        ("idle-timeout", po::value(&idle_seconds)->default_value(idle_seconds), "seconds without a frame or a pong before a WebSocket connection counts as gone and is closed (its player's presence goes out)")
        ("ping-interval-ms", po::value(&ping_interval_ms)->default_value(ping_interval_ms), "the server pings every WebSocket connection this often (at least twice per --idle-timeout) and measures its round trip")
        ("close-timeout-ms", po::value(&close_timeout_ms)->default_value(close_timeout_ms), "a WebSocket close handshake not finished by then ends with a TCP reset (a peer that stopped reading)")
        ("no-spectator-chat", po::bool_switch(&no_spectator_chat), "turn the spectators' chat room off: a watcher's chat is refused (not_allowed); the players' room stays")
        ("chat-words", po::value(&chat_words_file), "FILE of words (one a line; blank lines and # comments skipped) masked in chat messages: whole words, ignoring ASCII case, each replaced by as many * as it has characters, before they are stored and sent")
        ("rate", po::value(&config.hub.messages_per_second)->default_value(config.hub.messages_per_second), "WebSocket messages per second per client address, all its connections together (sustained)")
        ("burst", po::value(&config.hub.message_burst)->default_value(config.hub.message_burst), "WebSocket messages per client address in a burst")
        ("disconnect-timeout", po::value(&disconnect_seconds)->default_value(disconnect_seconds), "seconds after a player's disconnect before the opponent may claim, at most (faster time controls get less: protocol.md, \"Disconnects and claims\"); also before a game waiting for an opponent whose creator left is aborted, and before a game nobody is in leaves memory (a timed one is brought back when its flag falls)")
        ("max-open-games", po::value(&config.hub.max_open_games)->default_value(config.hub.max_open_games), "games one client address may have created and not finished: waiting for an opponent, or against an engine")
        ("max-creates-per-minute", po::value(&config.hub.max_creates_per_minute)->default_value(config.hub.max_creates_per_minute), "games one client address may create a minute; a create beyond is refused (rate_limited)")
        ("prune-aborted-after", po::value(&prune_seconds)->default_value(prune_seconds), "seconds after its abort before a game nobody played (no move) is deleted from the database (0: never); a game with a move is never deleted")
        ("max-queued-reads", po::value(&config.max_queued_reads)->default_value(config.max_queued_reads), "reads of stored games (a game not in memory, a replay, a games list, the REST API) waiting for the reader thread; a request beyond is refused (unavailable, or HTTP 503)")
        ("max-queued-hashes", po::value(&config.max_queued_hashes)->default_value(config.max_queued_hashes), "sign-ups, sign-ins and password changes waiting for the password-hashing thread; one beyond is answered 503 with Retry-After")
        ("password-cost", po::value(&config.password_cost)->default_value(config.password_cost), "Argon2id cost of new password hashes: interactive, or minimal (for tests only: cheap to guess)")
        ("log-format", po::value(&config.log_format)->default_value(config.log_format), "json (one JSON object per line), logfmt (key=value) or text")
        ("log-level", po::value(&config.log_level)->default_value(config.log_level), "trace, debug, info, warn, error")
        ("backup", po::value(&config.backup_to), "copy the live SQLite database to FILE (SQLite online backup) and exit")
        ("delete-account", po::value(&config.delete_account), "delete the account NAME (its sessions end, its games and its name stay) and exit")
        ("engine", po::value(&engine_flags)->composing(), "NAME[:GAMES]=PATH: offer a UCI engine (repeatable); GAMES is chess and/or xiangqi, comma-separated (without it a NAME with 'fairy' plays xiangqi, others chess); 'builtin' is always offered")
        ("max-engine-processes", po::value(&config.engines.max_processes)->default_value(config.engines.max_processes), "UCI engine processes running at once: a new game against a UCI engine is refused while all run, and an engine that must start then stops the one idle longest and waits for it to end")
        ("engine-threads", po::value(&config.engines.builtin_threads)->default_value(config.engines.builtin_threads), "worker threads for the builtin engine")
        ("engine-timeout-ms", po::value(&engine_timeout_ms)->default_value(engine_timeout_ms), "a UCI engine's start-up handshake (uciok, readyok) limit")
        ("engine-margin-ms", po::value(&engine_margin_ms)->default_value(engine_margin_ms), "how long past its think time a UCI engine may take to answer (at least 100)")
        ("analysis-threads", po::value(&config.analysis.threads)->default_value(config.analysis.threads), "threads analysing finished games (each with its own niced engine processes, apart from the live games' engines)")
        ("max-analysis-queue", po::value(&config.analysis.max_queue)->default_value(config.analysis.max_queue), "analyses and position evaluations waiting at most; past it a request is answered 503 busy with Retry-After")
        ("analysis-nodes", po::value(&analysis_nodes)->default_value(analysis_nodes), "nodes the engine searches per analysed position (0: search --analysis-movetime-ms instead)")
        ("analysis-movetime-ms", po::value(&analysis_movetime_ms)->default_value(analysis_movetime_ms), "think time per analysed position when --analysis-nodes is 0")
        ("node-id", po::value(&config.cluster.node_id), "run as this node of a cluster (1..64 of A-Z a-z 0-9 _ -, unique in the cluster): needs --db postgresql://... and --bus (README.md, \"Several nodes\")")
        ("bus", po::value(&config.cluster.bus), "redis://HOST:PORT: the Redis server the cluster's nodes forward players' requests through (with --node-id)")
        ("lease-ttl-ms", po::value(&lease_ttl_ms)->default_value(lease_ttl_ms), "how long a node's lease lasts without a heartbeat; a node silent this long loses its games to the others")
        ("heartbeat-ms", po::value(&heartbeat_ms)->default_value(heartbeat_ms), "time between a node's heartbeats (at most (--lease-ttl-ms - 250) / 2, so that one lost heartbeat keeps the lease)")
        ("sweep-ms", po::value(&sweep_ms)->default_value(sweep_ms), "how often a node adopts the games of nodes whose lease ended and looks for nodes gone");
    // clang-format on
    po::variables_map values;
    try {
        // No positional words: a stray one ("--db games.db old.db") is refused, not dropped.
        const po::positional_options_description no_positional;
        po::store(
            po::command_line_parser(argc, argv).options(options).positional(no_positional).run(),
            values);
        po::notify(values);
    } catch (const po::error& error) {
        std::ostringstream text;
        text << "arbiter-server: " << error.what() << "\n\n" << options;
        return ExitWith{2, text.str()};
    }
    if (values.count("help") != 0U) {
        std::ostringstream text;
        text << "Usage: arbiter-server [options]\n\n" << options;
        return ExitWith{0, text.str()};
    }
    if (values.count("version") != 0U) {
        return ExitWith{0, config.hub.server_name + "\n"};
    }
    const auto refuse = [](const std::string& why) {
        return ExitWith{2, "arbiter-server: " + why + "\n"};
    };
    if (port > 65535) {
        return refuse("--port must be 0..65535");
    }
    if (sync != "full" && sync != "normal") {
        return refuse("--sync must be full or normal");
    }
    // The flags that only SQLite's file has a meaning for are refused with PostgreSQL rather
    // than silently ignored. The URI is not repeated: it may hold a password.
    if (is_postgres_uri(config.database)) {
        if (!config.backup_to.empty()) {
            return refuse(
                "--backup copies a SQLite database; back a PostgreSQL database up with its own "
                "tools: pg_dump --format=custom --file=FILE DATABASE (or pg_basebackup)");
        }
        if (config.max_db_bytes != 0) {
            return refuse(
                "--max-db-bytes bounds a SQLite file; bound a PostgreSQL database's size in "
                "PostgreSQL (its disk, or a tablespace of its own)");
        }
        if (!values["journal-rows"].defaulted()) {
            return refuse(
                "--journal-rows tunes SQLite's move journal; PostgreSQL writes each move in place");
        }
    }
    if (auto cluster = check_cluster(values, config, lease_ttl_ms, heartbeat_ms, sweep_ms);
        !cluster) {
        return refuse(cluster.error());
    }
    if (config.threads < 1 || config.threads > 256) {
        return refuse("--threads must be 1..256");
    }
    if (config.time_slice_us != 0 &&
        (config.time_slice_us < static_cast<unsigned>(kMinTimeSlice.count()) ||
         config.time_slice_us > static_cast<unsigned>(kMaxTimeSlice.count()))) {
        return refuse("--time-slice-us must be 0 or 100..100000");
    }
    if (config.password_cost != "interactive" && config.password_cost != "minimal") {
        return refuse("--password-cost must be interactive or minimal");
    }
    if (!parse_log_format(config.log_format)) {
        return refuse("--log-format must be json, logfmt or text");
    }
    if (config.net.tls_cert_file.empty() != config.net.tls_key_file.empty()) {
        return refuse("--tls-cert and --tls-key go together");
    }
    if (config.net.limits.socket_send_buffer_bytes > 64UL * 1024 * 1024) {
        return refuse("--socket-send-buffer must be at most 67108864 (0: the kernel's autotuning)");
    }
    // Unsigned flags take "-1" as the largest value (boost::lexical_cast wraps it), so every
    // count has an upper bound too: a typo must stop the server, not disable a limit.
    struct Range {
        const char* flag;
        std::uint64_t value;
        std::uint64_t low;
        std::uint64_t high;
    };
    const auto& limits = config.net.limits;
    const Range ranges[] = {
        {"--max-frame-bytes", limits.max_frame_bytes, 256, 64ULL << 20},
        {"--max-queue-messages", limits.max_queue_messages, 1, 1'000'000},
        {"--max-queue-bytes", limits.max_queue_bytes, 1024, 1ULL << 30},
        {"--max-outgoing-bytes", limits.max_outgoing_bytes, 1ULL << 20, 1ULL << 40},
        {"--max-connections", limits.max_connections, 1, 1'000'000},
        {"--max-connections-per-address", limits.max_connections_per_address, 1, 1'000'000},
        {"--idle-timeout", idle_seconds, 1, 86'400},
        {"--ping-interval-ms", ping_interval_ms, 50, 3'600'000},
        {"--close-timeout-ms", close_timeout_ms, 1, 600'000},
        {"--disconnect-timeout", disconnect_seconds, 0, 86'400},
        // Ten years: long enough to mean "keep them", short enough for the cutoff's arithmetic.
        {"--prune-aborted-after", prune_seconds, 0, 315'360'000},
        {"--max-engine-processes", config.engines.max_processes, 0, 4096},
        {"--engine-timeout-ms", engine_timeout_ms, 1, 600'000},
        // The margin is all a UCI engine has past its think time for its bestmove to reach the
        // room (its own overshoot, a loaded machine, the pipe), and all it has to answer "stop".
        // Stockfish answers "go movetime N" at N ms, never before: with 0 every untimed move
        // fails. 100 ms is a floor against that, not a recommendation (the default is 2000).
        {"--engine-margin-ms", engine_margin_ms, 100, 600'000},
        {"--journal-rows", config.journal_rows, 0, 1'000'000},
        // SQLite's largest database: 4294967294 pages of 64 KiB, about 2^48 bytes.
        {"--max-db-bytes", config.max_db_bytes, 0, 1ULL << 48},
        {"--max-open-games", config.hub.max_open_games, 1, 1'000'000},
        {"--max-creates-per-minute", config.hub.max_creates_per_minute, 1, 1'000'000},
        {"--max-queued-reads", config.max_queued_reads, 1, 1'000'000},
        {"--max-queued-hashes", config.max_queued_hashes, 1, 10'000},
        {"--analysis-threads", config.analysis.threads, 1, 64},
        {"--max-analysis-queue", config.analysis.max_queue, 1, 100'000},
        {"--analysis-nodes", analysis_nodes, 0, 1'000'000'000},
        {"--analysis-movetime-ms", analysis_movetime_ms, 1, 60'000},
    };
    for (const Range& range : ranges) {
        if (range.value < range.low || range.value > range.high) {
            return refuse(std::string(range.flag) + " must be " + std::to_string(range.low) + ".." +
                          std::to_string(range.high));
        }
    }
    // Finite: "inf" reads as a double, and an infinite bucket turns its refill into NaN.
    if (!(config.hub.messages_per_second > 0) || !std::isfinite(config.hub.messages_per_second) ||
        !(config.hub.message_burst >= 1) || !std::isfinite(config.hub.message_burst)) {
        return refuse("--rate must be a positive number and --burst a number at least 1");
    }
    for (const auto& [flag, rate, burst] :
         {std::tuple{"--api-rate and --api-burst", config.api_requests_per_second,
                     config.api_burst},
          std::tuple{"--max-pings-per-second", config.net.limits.max_pings_per_second,
                     config.net.limits.max_pings_per_second * net::NetLimits::kPingBurstSeconds}}) {
        if (!(rate > 0) || !std::isfinite(rate) || !(burst >= 1) || !std::isfinite(burst)) {
            return refuse(std::string(flag) +
                          ": a positive rate, and a burst of at least 1, both finite");
        }
    }
    if (!trusted_proxies.empty()) {
        config.net.trusted_proxies.clear();
        for (const auto& text : trusted_proxies) {
            if (text == "none" && trusted_proxies.size() == 1) {
                break;
            }
            auto range = net::AddressRange::parse(text);
            if (!range) {
                return refuse("--trusted-proxy " + text +
                              ": not an address or a CIDR range (such as 10.0.0.0/8), nor 'none'"
                              " alone");
            }
            config.net.trusted_proxies.push_back(*range);
        }
    }
    for (const auto& origin : config.net.allowed_origins) {
        if (origin != "*" && !origin.starts_with("http://") && !origin.starts_with("https://")) {
            return refuse("--allowed-origin " + origin +
                          ": an origin is scheme://host[:port], as a browser sends it (or '*')");
        }
    }
    if (config.engines.builtin_threads < 1 || config.engines.builtin_threads > 64) {
        return refuse("--engine-threads must be 1..64");
    }
    for (const auto& flag : engine_flags) {
        auto spec = engines::parse_engine_flag(flag);
        if (!spec) {
            return refuse(spec.error());
        }
        // A start-up failure now rather than a failed game later. A name without '/' is looked
        // up in PATH, as the engine's start looks it up.
        if (spec->path.find('/') != std::string::npos) {
            if (auto problem = not_an_executable(spec->path)) {
                return refuse("--engine " + spec->name + ": " + spec->path + *problem);
            }
        } else if (!found_in_path(spec->path)) {
            return refuse("--engine " + spec->name + ": no executable " + spec->path + " in PATH");
        }
        for (const auto& known : config.engines.uci) {
            if (known.name == spec->name) {
                return refuse("--engine " + spec->name + " is given twice");
            }
        }
        config.engines.uci.push_back(std::move(spec).value());
    }
    config.engines.handshake_timeout = std::chrono::milliseconds(engine_timeout_ms);
    config.engines.answer_margin = std::chrono::milliseconds(engine_margin_ms);
    if (analysis_nodes > 0) {
        config.analysis.limits.nodes = analysis_nodes;
    }
    config.analysis.limits.movetime = std::chrono::milliseconds(analysis_movetime_ms);
    config.net.port = static_cast<std::uint16_t>(port);
    config.net.limits.idle_timeout = std::chrono::seconds(idle_seconds);
    config.net.limits.ping_interval = std::chrono::milliseconds(ping_interval_ms);
    config.net.limits.close_timeout = std::chrono::milliseconds(close_timeout_ms);
    config.hub.room.disconnect_timeout = std::chrono::seconds(disconnect_seconds);
    config.hub.prune_aborted_after = std::chrono::seconds(prune_seconds);
    config.synchronous_full = sync == "full";
    if (values["threads"].defaulted()) {
        config.threads =
            default_network_threads(std::thread::hardware_concurrency(),
                                    !config.synchronous_full && !is_postgres_uri(config.database));
    }
    config.hub.room.spectator_chat = !no_spectator_chat;
    if (!chat_words_file.empty()) {
        std::ifstream file(chat_words_file, std::ios::binary);
        std::stringstream text;
        text << file.rdbuf();
        if (!file) {
            return refuse("--chat-words " + chat_words_file + ": cannot be read");
        }
        auto words = ChatWords::parse(text.str());
        if (!words) {
            return refuse("--chat-words " + chat_words_file + ": " + words.error());
        }
        config.hub.room.chat_words = std::make_shared<const ChatWords>(std::move(words).value());
    }
    return config;
}

}  // namespace arbiter::server::app
