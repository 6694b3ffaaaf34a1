// arbiter-server: the authoritative game server. See README.md and schema/protocol.md.
#include <sys/resource.h>

#ifdef ARBITER_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/app/account_http.hpp"
#include "server/app/accounts.hpp"
#include "server/app/analysis_http.hpp"
#include "server/app/analysis_service.hpp"
#include "server/app/cluster_fanout.hpp"
#include "server/app/cluster_link.hpp"
#include "server/app/cluster_node.hpp"
#include "server/app/config.hpp"
#include "server/app/http_api.hpp"
#include "server/app/hub.hpp"
#include "server/app/log.hpp"
#include "server/app/player_http.hpp"
#include "server/app/read_worker.hpp"
#include "server/app/scheduling.hpp"
#include "server/bus/redis_bus.hpp"
#include "server/bus/redis_uri.hpp"
#include "server/engine/analysis_engines.hpp"
#include "server/net/server.hpp"
#include "server/storage/postgres_repository.hpp"
#include "server/storage/sqlite_repository.hpp"

using namespace arbiter::server;

namespace {

// Every connection is a descriptor and --max-connections defaults to 20,000: take what the hard
// limit allows rather than the usual soft 1,024, so that 10,000 connections and more fit.
void raise_descriptor_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
            app::log_event(app::LogLevel::warn, "descriptor_limit_not_raised",
                           {{"limit", std::to_string(limit.rlim_max)}});
        }
    }
}

// The malloc this binary runs on, for the start-up line: release builds link jemalloc, sanitizer
// builds keep the system allocator.
std::string allocator_name() {
#ifdef ARBITER_WITH_JEMALLOC
    const char* version = nullptr;
    std::size_t size = sizeof(version);
    if (mallctl("version", static_cast<void*>(&version), &size, nullptr, 0) == 0 &&
        version != nullptr) {
        const std::string_view full(version);  // "5.3.0-0-g<commit>"
        return "jemalloc " + std::string(full.substr(0, full.find('-')));
    }
    return "jemalloc";
#else
    return "system";
#endif
}

// The stores on the engine --db names: PostgreSQL for a postgresql:// URI, else the SQLite file.
// --sync maps to each engine's own setting (sqlite_options.hpp, postgres_repository.hpp).
// A cluster node's repository writes as the node (`node`: its identity), fenced by each game's
// epoch (postgres_lease.hpp).
arbiter::Expected<std::unique_ptr<storage::Database>, storage::StorageError> open_database(
    const app::ServerConfig& config, const storage::SqliteOptions& sqlite_options,
    std::optional<storage::NodeIdentity> node) {
    if (app::is_postgres_uri(config.database)) {
        storage::PostgresOptions options;
        options.synchronous =
            config.synchronous_full ? storage::Synchronous::full : storage::Synchronous::normal;
        options.node = std::move(node);
        auto opened = storage::PostgresRepository::open(config.database, options);
        if (!opened) {
            return arbiter::unexpected(std::move(opened).error());
        }
        return std::unique_ptr<storage::Database>(std::move(opened).value());
    }
    auto opened = storage::SqliteRepository::open(config.database, sqlite_options);
    if (!opened) {
        return arbiter::unexpected(std::move(opened).error());
    }
    return std::unique_ptr<storage::Database>(std::move(opened).value());
}

// --db as the logs show it: a PostgreSQL URI without its password.
std::string shown_database(const std::string& database) {
    return app::is_postgres_uri(database) ? storage::PostgresRepository::describe(database)
                                          : database;
}

}  // namespace

int main(int argc, char** argv) {
    auto parsed = app::parse_command_line(argc, argv);
    if (const auto* exit = std::get_if<app::ExitWith>(&parsed)) {
        std::fputs(exit->text.c_str(), exit->code == 0 ? stdout : stderr);
        return exit->code;
    }
    const auto& config = std::get<app::ServerConfig>(parsed);
    using app::log_event;
    using app::LogLevel;
    if (!app::configure_logging(*app::parse_log_format(config.log_format), config.log_level)) {
        std::fprintf(stderr, "arbiter-server: unknown --log-level %s\n", config.log_level.c_str());
        return 2;
    }
    raise_descriptor_limit();
    if (config.time_slice_us != 0) {
        // Before any thread starts: every one inherits it (scheduling.hpp).
        const std::chrono::microseconds slice{config.time_slice_us};
        if (auto shortened = app::shorten_time_slice(slice); !shortened) {
            log_event(LogLevel::warn, "time_slice_kept", {{"error", shortened.error()}});
        } else if (const auto now = app::time_slice(); now && *now != slice) {
            log_event(
                LogLevel::info, "time_slice_kept",
                {{"error", "this kernel has no per-thread time slices (Linux 6.12 and later)"}});
        }
    }
    storage::SqliteOptions storage_options;
    storage_options.synchronous =
        config.synchronous_full ? storage::Synchronous::full : storage::Synchronous::normal;
    storage_options.max_size_bytes = config.max_db_bytes;
    storage_options.journal_rows = static_cast<std::size_t>(config.journal_rows);
    if (!config.backup_to.empty()) {
        // Beside a running server: a repository would be refused, since the server holds one.
        auto copied = storage::SqliteRepository::backup_file(config.database, config.backup_to,
                                                             storage_options);
        if (!copied) {
            log_event(LogLevel::error, "backup_failed",
                      {{"db", config.database},
                       {"to", config.backup_to},
                       {"error", copied.error().message}});
            return 1;
        }
        log_event(LogLevel::info, "backup_written",
                  {{"db", config.database}, {"to", config.backup_to}});
        return 0;
    }
    const std::string shown_db = shown_database(config.database);
    // A cluster node joins before its repository opens: the repository writes under the
    // incarnation the join was granted.
    std::unique_ptr<app::ClusterNode> cluster_node;
    std::shared_ptr<app::ClusterLink> link;      // made with the network (its strand)
    std::unique_ptr<bus::RedisBus> cluster_bus;  // made after the link (its handlers)
    std::optional<storage::NodeIdentity> node_identity;
    if (config.cluster.enabled()) {
        auto joined = app::ClusterNode::join(
            config.database, app::ClusterNodeOptions{config.cluster.node_id, config.cluster.lease,
                                                     config.cluster.sweep_interval});
        if (!joined) {
            log_event(
                LogLevel::error, "cluster_join_failed",
                {{"db", shown_db}, {"node", config.cluster.node_id}, {"error", joined.error()}});
            return 1;
        }
        cluster_node = std::move(*joined);
        // An idle transaction of a frozen node must not hold its games' rows past its lease.
        node_identity = storage::NodeIdentity{config.cluster.node_id, cluster_node->incarnation(),
                                              config.cluster.lease.ttl};
    }
    auto repository = open_database(config, storage_options, node_identity);
    if (!repository) {
        log_event(LogLevel::error, "database_open_failed",
                  {{"db", shown_db}, {"error", repository.error().message}});
        return 1;
    }

    if (!config.delete_account.empty()) {
        auto deleted = app::delete_account_now(**repository, config.delete_account,
                                               app::system_account_clocks().wall_ms());
        (*repository)->flush();
        if (!deleted) {
            std::fprintf(stderr, "arbiter-server: %s\n", deleted.error().c_str());
            return 1;
        }
        std::printf("%s\n", deleted->c_str());
        return 0;
    }
    // Who is signed in, in memory: the hub reads it on network threads (account_directory.hpp).
    app::AccountDirectory account_directory;
    if (auto loaded = (*repository)->load_accounts()) {
        account_directory.load(*loaded);
    } else {
        log_event(LogLevel::error, "database_open_failed",
                  {{"db", shown_db}, {"error", loaded.error().message}});
        return 1;
    }

    SystemTime time;
    app::Metrics metrics;
    std::unique_ptr<net::Network> network;
    engines::EngineRegistry engines(config.engines);
    // Every rating, before any game is served (rating_book.hpp: why in memory).
    app::RatingBook ratings;
    ratings.set_source(
        [&repository](std::int64_t user) { return (*repository)->ratings_of(user); });
    if (auto stored = (*repository)->load_ratings(); stored) {
        ratings.load(*stored);
    } else {
        log_event(LogLevel::error, "ratings_not_loaded", {{"error", stored.error().message}});
        return 1;
    }
    // A cluster node tells the others of its account, rating and lobby changes, and takes theirs
    // (cluster_fanout.hpp); the rooms' writes go through RatingsCommitted, which tells of each
    // rated end once committed.
    std::unique_ptr<app::ClusterFanout> fanout;
    std::unique_ptr<app::RatingsCommitted> fanout_repository;
    if (config.cluster.enabled()) {
        fanout = std::make_unique<app::ClusterFanout>(
            config.cluster.node_id, account_directory, ratings,
            app::FanoutSources{[&repository] { return (*repository)->load_accounts(); },
                               [&repository] { return (*repository)->load_ratings(); }});
        fanout_repository = std::make_unique<app::RatingsCommitted>(**repository, *fanout);
    }
    storage::GameRepository& games_repository =
        fanout_repository ? static_cast<storage::GameRepository&>(*fanout_repository)
                          : static_cast<storage::GameRepository&>(**repository);
    // Stopped explicitly below, before the hub and the repository its reads use.
    app::ReadWorker reads(config.max_queued_reads);
    // A node names itself in `welcome` (after the version), so that a client behind the proxy,
    // or its operator, can tell which node serves it.
    app::HubConfig hub_config = config.hub;
    if (cluster_node) {
        hub_config.server_name += " " + config.cluster.node_id;
    }
    auto hub = std::make_shared<app::Hub>(
        hub_config, games_repository, time, metrics, [&network] { return network->make_strand(); },
        reads, &engines, &ratings, &account_directory);
    if (fanout) {
        fanout->serve_lobby(hub->lobby());
    }
    // The error_code form: a folder that cannot be looked at (no search permission on a parent, a
    // symbolic link loop) is reported like a missing one, where the other form threw and the
    // process ended with no word.
    std::error_code web_root_error;
    if (!config.web_root.empty() &&
        !std::filesystem::is_directory(config.web_root, web_root_error)) {
        log_event(LogLevel::warn, "web_root_missing",
                  {{"web_root", config.web_root},
                   {"error", web_root_error ? web_root_error.message() : "not a folder"},
                   {"effect", "the browser client is not served"}});
    }
    // Password hashes run on a thread of their own, never on a network thread (accounts.hpp).
    app::ReadWorker hashing(config.max_queued_hashes, "arbiter-hashing");
    app::Accounts accounts(**repository, account_directory, hashing, reads,
                           config.password_cost == "minimal" ? app::minimal_password_cost()
                                                             : app::interactive_password_cost());
    app::AccountHttp account_http(accounts);
    app::PlayerHttp player_http(**repository, **repository, **repository,
                                app::system_account_clocks().wall_ms);
    // The analysis pool: its own threads and niced engine processes (analysis_service.hpp).
    engines::AnalysisEngineSet analysis_engines(config.engines.uci, config.analysis.limits,
                                                config.analysis.threads);
    app::AnalysisService analysis(**repository, **repository, analysis_engines, config.analysis,
                                  time);
    // Progress goes to the connections that replayed the game (protocol.md, Analysis); the hub
    // outlives the pool's threads (analysis.stop() below comes before hub->close()).
    analysis.on_progress([&hub](const std::string& game, storage::AnalysisStatus status,
                                std::int64_t done, std::int64_t total) {
        hub->analysis_progress(
            arbiter::protocol::AnalysisProgress{game, app::to_wire(status), done, total});
    });
    app::AnalysisHttp analysis_http(analysis, reads);
    app::ProcessMetrics process_metrics;
    auto http = std::make_shared<app::HttpApi>(
        **repository, metrics, config.web_root,
        [&network, &hub, &reads, &engines, &process_metrics, &analysis_engines, &cluster_node,
         &link, &cluster_bus, &fanout] {
            app::ScrapeGauges gauges;
            gauges.open_connections = network->connection_count();
            gauges.roles = hub->connection_roles();
            gauges.games = hub->games_in_memory();
            gauges.net = network->stats();
            gauges.reads = reads.stats();
            gauges.engine_processes = engines.processes_running();
            gauges.engine_idle_stops = engines.idle_stops();
            return app::render_gauges(gauges) +
                   process_metrics.render(std::chrono::steady_clock::now()) +
                   "# HELP arbiter_analysis_searches_total Engine searches run by the analysis "
                   "pool.\n# TYPE arbiter_analysis_searches_total counter\n"
                   "arbiter_analysis_searches_total " +
                   std::to_string(analysis_engines.searches()) + "\n" +
                   (cluster_node
                        ? app::render_cluster_metrics(cluster_node->status(), link->counters(),
                                                      cluster_bus->counters()) +
                              app::render_fanout_metrics(fanout->counters(), link->counters(),
                                                         hub->lobby().remote_count())
                        : std::string());
        },
        reads, app::ApiLimits{config.api_requests_per_second, config.api_burst}, &account_http,
        &player_http, &analysis_http);
    try {
        net::NetConfig net_config = config.net;
        net_config.threads = config.threads;
        net_config.log = [](std::string_view message) {
            log_event(LogLevel::warn, "network", {{"msg", message}});
        };
        network = std::make_unique<net::Network>(std::move(net_config), hub, http);
    } catch (const std::exception& error) {
        // Also on standard error as plain text: the operator's first look at a failed start.
        log_event(LogLevel::error, "start_failed", {{"error", error.what()}});
        std::fprintf(stderr, "arbiter-server: %s\n", error.what());
        return 1;
    }
    if (auto started = analysis.start(); !started) {
        log_event(LogLevel::error, "analysis_not_started", {{"error", started.error().message}});
        return 1;
    }
    // A cluster node: the bus, the forwarding and the lease's threads. It restores no games at
    // start: it serves what it creates and adopts (the sweeper adopts the games of nodes gone).
    if (cluster_node) {
        link = std::make_shared<app::ClusterLink>(
            config.cluster.node_id, cluster_node->incarnation(), *hub, network->make_strand());
        cluster_bus = std::make_unique<bus::RedisBus>(
            *bus::parse_redis_uri(config.cluster.bus),
            bus::BusHandlers{[link](std::string_view channel, std::string_view bytes) {
                                 link->on_bus_message(channel, bytes);
                             },
                             [link](bus::BusState state) { link->on_bus_state(state); },
                             {}});
        fanout->start(*link);  // listens before the bus attaches: no broadcast is missed
        link->attach(*cluster_bus);
        hub->set_cluster(cluster_node.get(), link.get());
        cluster_node->start(*dynamic_cast<storage::PostgresRepository*>(repository->get()), *hub,
                            *link, [&network] { network->stop(); });
        http->set_lease_status([&cluster_node] {
            const auto status = cluster_node->status();
            return std::pair(status.lease_held, "node " + cluster_node->node_id() + ": lease " +
                                                    (status.lease_held ? "held" : "lost") +
                                                    ", incarnation " +
                                                    std::to_string(status.incarnation));
        });
    }
    auto restored = cluster_node ? hub->start_without_restore() : hub->restore_games();
    if (!restored) {
        log_event(LogLevel::error, "restore_failed", {{"error", restored.error()}});
        return 1;
    }
    log_event(LogLevel::info, "server_started",
              {{"version", config.hub.server_name},
               {"address", config.net.bind_address},
               {"port", network->port()},
               {"tls", !config.net.tls_cert_file.empty()},
               {"db", shown_db},
               {"threads", config.threads},
               {"allocator", allocator_name()},
               {"games_restored", restored->games},
               {"games_not_restored", restored->not_restored}});
    // Tests and scripts read the bound port from this line.
    std::printf("arbiter-server listening on %s:%u\n", config.net.bind_address.c_str(),
                static_cast<unsigned>(network->port()));
    std::fflush(stdout);
    network->run([&network, &cluster_node, &link] {
        log_event(LogLevel::info, "server_stopping", {{"reason", "signal"}});
        if (cluster_node) {
            // Before the connections close: by the time their clients reconnect to another
            // node, the games are that node's to adopt, and the clients on other nodes in this
            // node's games are closed (1012) to resume there.
            auto handed = cluster_node->hand_over();
            if (handed) {
                log_event(LogLevel::info, "cluster_handed_over", {{"games", *handed}});
            } else {
                log_event(LogLevel::error, "cluster_handover_failed", {{"error", handed.error()}});
            }
            link->hang_up_all("this node is stopping; reconnect and resume");
        }
        network->stop();
    });
    // Teardown order matters: rooms hold strands of the io_context, and the storage writer may
    // hold the last reference to a room in a finished callback. Finish the reads (which may
    // bring rooms back), drop the rooms, then the writer (which joins its thread), and only then
    // the io_context.
    reads.stop();
    hashing.stop();
    analysis.stop();
    if (cluster_node) {
        cluster_node->stop();  // stopped already after a handover; not after a failed start
        fanout->stop();        // no more reloads from the store, nor broadcasts
        link->close();
        cluster_bus.reset();  // no handler runs after this
    } else {
        // A cluster node handed its games over: their clocks are the new owners' to store.
        hub->store_clocks_at_stop();
    }
    (*repository)->flush();
    hub->close();
    // Every engine process is killed and reaped, every builtin search stopped, before the
    // strands their answers would be posted to go away.
    engines.stop();
    (*repository).reset();
    // The link held a strand of the network (released by close()); it goes before the network.
    link.reset();
    network.reset();
    log_event(LogLevel::info, "server_stopped");
    return 0;
}
