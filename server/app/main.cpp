// arbiter-server: the authoritative game server. See README.md and schema/protocol.md.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <cstdio>
#include <memory>

#include "server/app/config.hpp"
#include "server/app/http_api.hpp"
#include "server/app/hub.hpp"
#include "server/app/log.hpp"
#include "server/net/server.hpp"
#include "server/storage/sqlite_repository.hpp"

using namespace arbiter::server;

namespace {

// Every connection is a descriptor and --max-connections defaults to 20,000: take what the hard
// limit allows rather than the usual soft 1,024 (issue 9: 10,000 concurrent connections).
void raise_descriptor_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
            spdlog::warn("cannot raise the descriptor limit to {}", limit.rlim_max);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    auto parsed = app::parse_command_line(argc, argv);
    if (const auto* exit = std::get_if<app::ExitWith>(&parsed)) {
        std::fputs(exit->text.c_str(), exit->code == 0 ? stdout : stderr);
        return exit->code;
    }
    const auto& config = std::get<app::ServerConfig>(parsed);
    if (!app::configure_logging(config.log_format, config.log_level)) {
        std::fprintf(stderr, "arbiter-server: unknown --log-level %s\n", config.log_level.c_str());
        return 2;
    }
    raise_descriptor_limit();
    storage::SqliteOptions storage_options;
    storage_options.synchronous =
        config.synchronous_full ? storage::Synchronous::full : storage::Synchronous::normal;
    auto repository = storage::SqliteRepository::open(config.database, storage_options);
    if (!repository) {
        spdlog::error("cannot open database {}: {}", config.database, repository.error().message);
        return 1;
    }
    if (!config.backup_to.empty()) {
        auto copied = (*repository)->backup(config.backup_to);
        if (!copied) {
            spdlog::error("backup to {} failed: {}", config.backup_to, copied.error().message);
            return 1;
        }
        spdlog::info("backup of {} written to {}", config.database, config.backup_to);
        return 0;
    }

    SystemTime time;
    app::Metrics metrics;
    std::unique_ptr<net::Network> network;
    engines::EngineRegistry engines(config.engines);
    auto hub = std::make_shared<app::Hub>(
        config.hub, **repository, time, metrics, [&network] { return network->make_strand(); },
        &engines);
    auto http =
        std::make_shared<app::HttpApi>(**repository, metrics, config.web_root, [&network, &hub] {
            return "# TYPE arbiter_connections gauge\narbiter_connections " +
                   std::to_string(network->connection_count()) +
                   "\n# TYPE arbiter_rooms gauge\narbiter_rooms " +
                   std::to_string(hub->room_count()) + "\n";
        });
    try {
        net::NetConfig net_config = config.net;
        net_config.log = [](std::string_view message) { spdlog::warn("net: {}", message); };
        network = std::make_unique<net::Network>(std::move(net_config), hub, http);
    } catch (const std::exception& error) {
        spdlog::error("cannot listen on {}:{}: {}", config.net.bind_address, config.net.port,
                      error.what());
        return 1;
    }
    auto restored = hub->restore_games();
    if (!restored) {
        spdlog::error("cannot reload unfinished games: {}", restored.error());
        return 1;
    }
    spdlog::info("reloaded {} unfinished games from {}", *restored, config.database);
    // Tests and scripts read the bound port from this line.
    std::printf("arbiter-server listening on %s:%u\n", config.net.bind_address.c_str(),
                static_cast<unsigned>(network->port()));
    std::fflush(stdout);
    network->run(config.threads, [&network] {
        spdlog::info("signal received: closing connections");
        network->stop();
    });
    // Teardown order matters: rooms hold strands of the io_context, and the storage writer may
    // hold the last reference to a room in a finished callback. Drop the rooms, then the writer
    // (which joins its thread), and only then the io_context.
    (*repository)->flush();
    hub->close();
    // Every engine process is killed and reaped, every builtin search stopped, before the
    // strands their answers would be posted to go away.
    engines.stop();
    (*repository).reset();
    network.reset();
    spdlog::info("stopped");
    return 0;
}
