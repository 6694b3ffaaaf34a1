#pragma once
/// \file
/// arbiter-server's command line: every listening address, path and limit is a flag.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <variant>

#include "server/app/analysis_service.hpp"
#include "server/app/hub.hpp"
#include "server/engine/engine_registry.hpp"
#include "server/net/server.hpp"
#include "server/storage/lease_rules.hpp"

namespace arbiter::server::app {

/// A cluster node's settings (issue 43; README.md, "Several nodes"). Empty node_id: a single
/// node, and the other fields are not used.
struct ClusterConfig {
    std::string node_id;  ///< --node-id
    std::string bus;      ///< --bus redis://HOST:PORT
    storage::LeaseTiming lease;
    /// How often the node looks for games whose owner's lease ended, and for nodes gone.
    std::chrono::milliseconds sweep_interval{1000};
    bool enabled() const noexcept { return !node_id.empty(); }
};

/// The network threads when --threads is not given, on a machine of `cores` cores (0: unknown):
/// at least 1 and at most 2, more was never measured to help. With `commits_on_network_threads`
/// (SQLite at synchronous = NORMAL, where a room's write commits on its network thread while the
/// writer is idle: SqliteOptions::commit_on_caller) one fewer than the cores: under load the
/// writer's thread computes and has a core of its own, and at a low rate a move then wakes one
/// thread. Otherwise (FULL, PostgreSQL) as many as the cores: the writer spends its batches
/// waiting for the disk or the database, and a second network thread has that core meanwhile.
/// Measured on two cores (bench/load/README.md): at NORMAL one thread carries as many moves a
/// second as two and spends half the CPU a move at 1,000/s; at FULL one carries ~7 % fewer.
unsigned default_network_threads(unsigned cores, bool commits_on_network_threads) noexcept;

struct ServerConfig {
    net::NetConfig net;
    HubConfig hub;
    /// A SQLite file path, or a PostgreSQL URI (is_postgres_uri).
    std::string database = "./arbiter.db";
    bool synchronous_full = true;
    std::uint64_t max_db_bytes = 0;    ///< 0: no bound; else writes past it fail (SQLITE_FULL)
    std::uint64_t journal_rows = 256;  ///< storage::SqliteOptions::journal_rows
    /// Reads of stored games waiting for the reader thread (a game brought back into memory, a
    /// replay, a games list, the REST API); a request beyond is refused, so that a flood of them
    /// waits neither in memory nor on the network threads.
    std::size_t max_queued_reads = 64;
    /// Sign-ups, sign-ins and password changes waiting for the hashing thread; one beyond is
    /// answered 503 with Retry-After.
    std::size_t max_queued_hashes = 16;
    /// The Argon2id cost of new password hashes: "interactive" (libsodium's, for servers) or
    /// "minimal" (the cheapest; for tests that sign many players up, never for real players).
    std::string password_cost = "interactive";
    /// The REST API's rate per client (HttpApi::ApiLimits).
    double api_requests_per_second = 10;
    double api_burst = 40;
    std::string web_root;
    /// Without --threads, default_network_threads() for the storage chosen.
    unsigned threads = default_network_threads(std::thread::hardware_concurrency(), false);
    /// The time slice every thread of the server asks of the scheduler, in microseconds
    /// (scheduling.hpp); 0 keeps the kernel's default.
    unsigned time_slice_us = 100;
    std::string log_format = "text";  ///< json | logfmt | text
    std::string log_level = "info";
    std::string backup_to;       ///< --backup FILE: copy the database and exit
    std::string delete_account;  ///< --delete-account NAME: delete the account and exit
    engines::EngineOptions engines;
    /// The analysis pool (analysis_service.hpp).
    app::AnalysisOptions analysis;
    ClusterConfig cluster;
};

/// Whether --db names a PostgreSQL database (a libpq URI: "postgresql://" or "postgres://")
/// rather than a SQLite file. A file whose name merely begins "postgresql" is a file.
inline bool is_postgres_uri(std::string_view database) noexcept {
    return database.starts_with("postgresql://") || database.starts_with("postgres://");
}

/// What the command line asks for: run with a config, or print text (help, version, an error)
/// and exit with a code.
struct ExitWith {
    int code = 0;
    std::string text;
};
std::variant<ServerConfig, ExitWith> parse_command_line(int argc, const char* const* argv);

}  // namespace arbiter::server::app
