// arbiter-load: the server's load benchmark. See bench/load/README.md.
#include <sys/resource.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "bench/load/cpu_use.hpp"
#include "bench/load/driver.hpp"

using namespace arbiter::bench::load;
namespace po = boost::program_options;

namespace {

struct Options {
    std::string url = "ws://127.0.0.1:8080/ws";
    unsigned games = 100;
    unsigned spectators = 0;
    unsigned stalled = 0;
    unsigned readers = 0;
    double read_rate = 20;
    unsigned watch_games = 1;
    double duration = 10;
    double warmup = 1;
    double rate = 0;
    bool idle = false;
    std::uint64_t resign_at = 0;
    bool timeline = false;
    std::string pacing = "closed";
    bool echo = false;
    bool relay = false;
    bool echo_server = false;
    unsigned echo_port = 0;
    unsigned echo_threads = 2;
    unsigned threads = 1;
    unsigned per_address = 250;
    int stalled_receive_buffer = 4096;
    int server_pid = 0;
    /// --cpu-of NAME=PID,PID...: processes whose CPU per round trip is shown together as NAME.
    std::vector<std::string> cpu_of;
    std::string variant = "chess";
    std::string record;
    bool json = false;
    bool by_node = false;
};

// 10,000 sockets need 10,000 descriptors: take everything the hard limit allows.
void raise_descriptor_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

// VmRSS of a process in KiB, 0 when unknown.
long resident_kib(int pid) {
    if (pid <= 0) {
        return 0;
    }
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return 0;
}

bool parse_url(const std::string& url, Endpoint& endpoint) {
    const std::string scheme = "ws://";
    if (url.rfind(scheme, 0) != 0) {
        return false;
    }
    const std::string rest = url.substr(scheme.size());
    const auto colon = rest.find(':');
    const auto slash = rest.find('/');
    if (colon == std::string::npos || (slash != std::string::npos && slash < colon)) {
        return false;
    }
    endpoint.host = rest.substr(0, colon);
    const std::string port =
        rest.substr(colon + 1, slash == std::string::npos ? slash : slash - colon - 1);
    endpoint.port = static_cast<std::uint16_t>(std::stoul(port));
    endpoint.path = slash == std::string::npos ? "/" : rest.substr(slash);
    return true;
}

std::optional<Options> parse_options(int argc, char** argv) {
    Options o;
    po::options_description description("arbiter-load options");
    // clang-format off
    description.add_options()
        ("help,h", "print this help")
        ("url", po::value(&o.url)->default_value(o.url), "server WebSocket URL (IPv4 address, no name lookup)")
        ("games", po::value(&o.games)->default_value(o.games), "games played at once (2 connections each)")
        ("spectators", po::value(&o.spectators)->default_value(o.spectators), "spectator connections that read")
        ("stalled-spectators", po::value(&o.stalled)->default_value(o.stalled), "spectator connections that never read")
        ("readers", po::value(&o.readers)->default_value(o.readers), "connections that ask for games ended in this run (replay and watch by turns) at --read-rate each, whatever the answers")
        ("read-rate", po::value(&o.read_rate)->default_value(o.read_rate), "requests/s of each reader (the server's default per-connection rate is 20)")
        ("watch-games", po::value(&o.watch_games)->default_value(o.watch_games), "games each spectator watches (of its event loop)")
        ("stalled-rcvbuf", po::value(&o.stalled_receive_buffer)->default_value(o.stalled_receive_buffer), "SO_RCVBUF of a stalled spectator")
        ("duration", po::value(&o.duration)->default_value(o.duration), "seconds measured")
        ("warmup", po::value(&o.warmup)->default_value(o.warmup), "seconds played before measuring")
        ("rate", po::value(&o.rate)->default_value(o.rate), "moves/s cap over all games (0: none)")
        ("timeline", po::bool_switch(&o.timeline), "print p50/p99 to the mover for each second measured")
        ("pacing", po::value(&o.pacing)->default_value(o.pacing), "with --rate: closed (a game's next move at least one interval after its last) or grid (due on a fixed grid per game: open loop)")
        ("idle", po::bool_switch(&o.idle), "create and join the games, then hold them without moving")
        ("resign-at", po::value(&o.resign_at)->default_value(o.resign_at), "the side to move resigns once PLY plies are played (0: play on to the result): finished games of a realistic length")
        ("variant", po::value(&o.variant)->default_value(o.variant), "chess, xiangqi, draughts or mixed")
        ("record", po::value(&o.record), "append every acknowledged move to FILE: game ply move")
        ("echo", po::bool_switch(&o.echo), "ping-pong the same frames against an echo server (--url, or one started in this process)")
        ("relay", po::bool_switch(&o.relay), "a move's messages and nothing else: each frame goes back to its sender and to the other player of its game, from a relay server (--url, or one started in this process)")
        ("echo-server", po::bool_switch(&o.echo_server), "only run the echo server (--echo-port, --echo-threads; with --relay the relay server)")
        ("echo-port", po::value(&o.echo_port)->default_value(o.echo_port), "echo server port (0: any free one)")
        ("echo-threads", po::value(&o.echo_threads)->default_value(o.echo_threads), "echo server threads (the server's default is 2)")
        ("threads", po::value(&o.threads)->default_value(o.threads), "client event loops (one thread each)")
        ("per-address", po::value(&o.per_address)->default_value(o.per_address), "connections per 127.0.0.x source address (0: let the kernel pick)")
        ("server-pid", po::value(&o.server_pid)->default_value(o.server_pid), "read the server's RSS from /proc/PID/status")
        ("cpu-of", po::value(&o.cpu_of)->composing(), "NAME=PID[,PID...]: also show the CPU per round trip of these processes together, as NAME (repeatable: a cluster's nodes, PostgreSQL, nginx ...)")
        ("by-node", po::bool_switch(&o.by_node), "a cluster behind a proxy: each connection says hello, and spectators on another node than their game's creator are timed apart")
        ("json", po::bool_switch(&o.json), "also print the figures as one JSON line");
    // clang-format on
    po::variables_map values;
    try {
        po::store(po::parse_command_line(argc, argv, description), values);
        po::notify(values);
    } catch (const po::error& error) {
        std::cerr << "arbiter-load: " << error.what() << "\n\n" << description;
        return std::nullopt;
    }
    if (values.count("help") != 0U) {
        std::cout << "Usage: arbiter-load [options]\n\n" << description;
        std::exit(0);
    }
    if (o.threads < 1 || o.threads > 16 || o.games < 1) {
        std::cerr << "arbiter-load: --threads must be 1..16 and --games at least 1\n";
        return std::nullopt;
    }
    if (!(o.read_rate > 0 && o.read_rate <= 1e6)) {
        std::cerr << "arbiter-load: --read-rate must be above 0 and at most 1000000\n";
        return std::nullopt;
    }
    if (o.echo && o.relay) {
        std::cerr << "arbiter-load: --echo and --relay are two modes: one at a time\n";
        return std::nullopt;
    }
    if (o.pacing != "closed" && o.pacing != "grid") {
        std::cerr << "arbiter-load: --pacing must be closed or grid\n";
        return std::nullopt;
    }
    return o;
}

std::string counts_text(const std::map<std::string, std::uint64_t>& counts) {
    if (counts.empty()) {
        return "none";
    }
    std::string text;
    for (const auto& [key, count] : counts) {
        text += (text.empty() ? "" : ", ") + key + ": " + std::to_string(count);
    }
    return text;
}

}  // namespace

// A benchmark tool: an exception here (a thread that cannot start, a summary that is not
// JSON) is a bug, and std::terminate names it.
// NOLINTNEXTLINE(bugprone-exception-escape)
int main(int argc, char** argv) {
    const auto parsed = parse_options(argc, argv);
    if (!parsed) {
        return 2;
    }
    const Options& options = *parsed;
    raise_descriptor_limit();
    const std::optional<BareMode> bare = options.relay  ? std::optional(BareMode::relay)
                                         : options.echo ? std::optional(BareMode::echo)
                                                        : std::nullopt;
    const BareMode bare_mode = bare.value_or(BareMode::echo);  // --echo-server alone: echo
    if (options.echo_server) {
        run_bare_server("127.0.0.1", static_cast<std::uint16_t>(options.echo_port),
                        options.echo_threads, bare_mode, [&options](std::uint16_t port) {
                            std::printf("arbiter-load %s server listening on 127.0.0.1:%u\n",
                                        options.relay ? "relay" : "echo",
                                        static_cast<unsigned>(port));
                            std::fflush(stdout);
                        });
        return 0;
    }
    RunSettings settings;
    if (!parse_url(options.url, settings.endpoint)) {
        std::cerr << "arbiter-load: --url must look like ws://127.0.0.1:8080/ws\n";
        return 2;
    }
    if (bare && options.url == "ws://127.0.0.1:8080/ws") {
        std::promise<std::uint16_t> bound;
        std::thread([&options, &bound, bare_mode] {
            run_bare_server("127.0.0.1", static_cast<std::uint16_t>(options.echo_port),
                            options.echo_threads, bare_mode,
                            [&bound](std::uint16_t port) { bound.set_value(port); });
        }).detach();
        settings.endpoint.port = bound.get_future().get();
    }
    std::atomic<bool> measuring{false};
    std::mutex record_mutex;
    std::FILE* record = nullptr;
    if (!options.record.empty()) {
        record = std::fopen(options.record.c_str(), "a");
        if (record == nullptr) {
            std::perror(options.record.c_str());
            return 1;
        }
    }
    settings.variant = options.variant;
    settings.bare = bare;
    settings.idle = options.idle;
    settings.resign_at = options.resign_at;
    settings.by_node = options.by_node;
    settings.moves_per_second = options.rate;
    settings.total_games = options.games;
    settings.per_address = options.per_address;
    settings.watch_games = options.watch_games;
    settings.stalled_receive_buffer = options.stalled_receive_buffer;
    settings.record = record;
    settings.record_mutex = &record_mutex;
    settings.measuring = &measuring;
    settings.timeline = options.timeline;
    settings.pacing = options.pacing == "grid" ? Pacing::grid : Pacing::closed;
    EndedGames ended_games;
    settings.ended_games = &ended_games;
    settings.reads_per_second = options.read_rate;

    const long rss_before = resident_kib(options.server_pid);
    std::vector<std::unique_ptr<EventLoop>> loops;
    std::vector<std::unique_ptr<Driver>> drivers;
    unsigned first_connection = 0;
    for (unsigned i = 0; i < options.threads; ++i) {
        const auto share = [&](unsigned total) {
            return total / options.threads + (i < total % options.threads ? 1 : 0);
        };
        loops.push_back(std::make_unique<EventLoop>());
        drivers.push_back(std::make_unique<Driver>(
            *loops.back(), settings, share(options.games), share(options.spectators),
            share(options.stalled), share(options.readers), first_connection, 1234 + i));
        first_connection += static_cast<unsigned>(drivers.back()->total_connections());
    }
    for (unsigned i = 0; i < options.threads; ++i) {
        loops[i]->start();
        loops[i]->after(std::chrono::microseconds(0), [d = drivers[i].get()] { d->start(); });
    }
    const auto sum = [&drivers](auto field) {
        int total = 0;
        for (const auto& driver : drivers) {
            total += (driver.get()->*field)();
        }
        return total;
    };
    const int wanted = sum(&Driver::total_connections);
    const auto setup_start = Clock::now();
    while (sum(&Driver::settled_connections) < wanted &&
           Clock::now() - setup_start < std::chrono::seconds(120)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const double setup_seconds = std::chrono::duration<double>(Clock::now() - setup_start).count();
    std::this_thread::sleep_for(std::chrono::duration<double>(options.warmup));
    const std::string server_process = std::to_string(options.server_pid);
    // --cpu-of: each group's name and pids.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    for (const std::string& spec : options.cpu_of) {
        const auto equals = spec.find('=');
        std::vector<std::string> pids;
        std::istringstream list(spec.substr(equals == std::string::npos ? 0 : equals + 1));
        for (std::string pid; std::getline(list, pid, ',');) {
            if (!pid.empty()) {
                pids.push_back(pid);
            }
        }
        groups.emplace_back(spec.substr(0, equals), std::move(pids));
    }
    const auto groups_ticks = [&groups] {
        std::vector<CpuTicks> ticks;
        ticks.reserve(groups.size());
        for (const auto& group : groups) {
            ticks.push_back(cpu_ticks_of(group.second));
        }
        return ticks;
    };
    const std::vector<CpuTicks> groups_before = groups_ticks();
    const MachineTicks machine_before = machine_ticks();
    const CpuTicks own_cpu_before = cpu_ticks_by_thread("self");
    const CpuTicks server_cpu_before =
        options.server_pid > 0 ? cpu_ticks_by_thread(server_process) : CpuTicks{};
    measuring = true;
    const auto start = Clock::now();
    long rss_peak = resident_kib(options.server_pid);
    while (Clock::now() - start < std::chrono::duration<double>(options.duration)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        rss_peak = std::max(rss_peak, resident_kib(options.server_pid));
        if (sum(&Driver::open_connections) == 0) {
            break;  // the server went away (the crash test kills it)
        }
    }
    measuring = false;
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const CpuTicks own_cpu_after = cpu_ticks_by_thread("self");
    const std::vector<CpuTicks> groups_after = groups_ticks();
    const CpuTicks server_cpu_after =
        options.server_pid > 0 ? cpu_ticks_by_thread(server_process) : CpuTicks{};
    const MachineUse machine = machine_use(machine_before, machine_ticks());
    const int held = sum(&Driver::open_connections);
    const long rss_end = resident_kib(options.server_pid);
    const int stalled_before = sum(&Driver::stalled_open);
    if (options.stalled > 0) {
        for (unsigned i = 0; i < options.threads; ++i) {
            loops[i]->after(std::chrono::microseconds(0),
                            [d = drivers[i].get()] { d->drain_stalled(); });
        }
        std::this_thread::sleep_for(std::chrono::seconds(3));
    }
    const int stalled_after = sum(&Driver::stalled_open);
    for (unsigned i = 0; i < options.threads; ++i) {
        loops[i]->after(std::chrono::microseconds(0), [d = drivers[i].get()] { d->shutdown(); });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    Stats stats;
    for (unsigned i = 0; i < options.threads; ++i) {
        loops[i]->stop();
        stats.merge(drivers[i]->stats());
    }
    drivers.clear();
    if (record != nullptr) {
        std::fclose(record);
    }

    const double per_second = seconds > 0 ? static_cast<double>(stats.round_trips) / seconds : 0;
    // The CPU both sides spent on a round trip: the same machine runs them, so this is what the
    // round trips/s ratio between modes comes from. In --echo with the echo server in this
    // process, "this process" is both sides.
    const double own_cpu =
        total_of(cpu_per_round_trip(own_cpu_before, own_cpu_after, stats.round_trips));
    const auto server_cpu =
        cpu_per_round_trip(server_cpu_before, server_cpu_after, stats.round_trips);
    std::vector<double> groups_cpu;
    groups_cpu.reserve(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) {
        groups_cpu.push_back(
            total_of(cpu_per_round_trip(groups_before[i], groups_after[i], stats.round_trips)));
    }
    const double mover[] = {stats.to_mover.quantile_ms(0.5), stats.to_mover.quantile_ms(0.99),
                            stats.to_mover.quantile_ms(0.999)};
    const double opponent[] = {stats.to_opponent.quantile_ms(0.5),
                               stats.to_opponent.quantile_ms(0.99),
                               stats.to_opponent.quantile_ms(0.999)};
    const double kib_per_connection = held > 0 ? static_cast<double>(rss_end) / held : 0;
    const double delta_per_connection =
        held > 0 ? static_cast<double>(rss_end - rss_before) / held : 0;
    const char* mode = options.echo    ? "echo"
                       : options.relay ? "relay"
                       : options.idle  ? "idle"
                                       : "moves";
    std::printf(
        "arbiter-load: %s, %u games (%d connections), %u spectators, %u stalled, %u readers, %s\n",
        mode, options.games, wanted, options.spectators, options.stalled, options.readers,
        bare ? "bare frames" : options.variant.c_str());
    std::printf("  set-up %.1f s; connections held at the end: %d of %d\n", setup_seconds, held,
                wanted);
    std::printf("  round trips: %llu in %.2f s = %.0f /s%s\n",
                static_cast<unsigned long long>(stats.round_trips), seconds, per_second,
                options.rate > 0 ? (" (cap " + std::to_string(options.rate) + ")").c_str() : "");
    std::printf("  latency to mover    ms: p50 %.3f  p99 %.3f  p99.9 %.3f  (%zu samples)\n",
                mover[0], mover[1], mover[2], stats.to_mover.size());
    for (std::size_t second = 0; second < stats.to_mover_by_second.size(); ++second) {
        auto& samples = stats.to_mover_by_second[second];
        std::printf("    second %2zu: %6zu round trips, p50 %.3f  p99 %.3f ms\n", second + 1,
                    samples.size(), samples.quantile_ms(0.5), samples.quantile_ms(0.99));
    }
    if (!options.echo) {
        std::printf("  latency to opponent ms: p50 %.3f  p99 %.3f  p99.9 %.3f  (%zu samples)\n",
                    opponent[0], opponent[1], opponent[2], stats.to_opponent.size());
    }
    const auto spectator_line = [](const char* label, Latencies& samples) {
        if (samples.size() > 0) {
            std::printf("  %s ms: p50 %.3f  p99 %.3f  p99.9 %.3f  (%zu samples)\n", label,
                        samples.quantile_ms(0.5), samples.quantile_ms(0.99),
                        samples.quantile_ms(0.999), samples.size());
        }
    };
    spectator_line(options.by_node ? "latency to spectator, owner's node" : "latency to spectator",
                   stats.to_spectator);
    spectator_line("latency to spectator, other node", stats.to_spectator_other_node);
    if (!bare) {
        std::printf("  games started %llu, ended %llu\n",
                    static_cast<unsigned long long>(stats.games_started),
                    static_cast<unsigned long long>(stats.games_ended));
    }
    std::printf("  errors: %s\n  closes: %s\n", counts_text(stats.errors).c_str(),
                counts_text(stats.closes).c_str());
    if (options.stalled > 0) {
        std::printf("  stalled spectators still open: %d before draining, %d after\n",
                    stalled_before, stalled_after);
    }
    if (options.readers > 0) {
        std::printf("  reads of ended games: %llu sent, %llu answered, refused: %s\n",
                    static_cast<unsigned long long>(stats.reads_sent),
                    static_cast<unsigned long long>(stats.reads_answered),
                    counts_text(stats.read_errors).c_str());
    }
    if (stats.round_trips > 0) {
        std::string threads;
        for (const auto& [name, us] : server_cpu) {
            if (us < 0.05) {
                continue;  // idle threads (engine workers while nobody plays an engine)
            }
            char share[96];
            std::snprintf(share, sizeof share, "%s%s %.1f", threads.empty() ? "" : ", ",
                          name.c_str(), us);
            threads += share;
        }
        std::printf("  CPU per round trip: this process %.1f us", own_cpu);
        if (options.server_pid > 0) {
            std::printf("; server %.1f us (%s)", total_of(server_cpu), threads.c_str());
        }
        for (std::size_t i = 0; i < groups.size(); ++i) {
            std::printf("; %s %.1f us", groups[i].first.c_str(), groups_cpu[i]);
        }
        std::printf("\n");
    }
    std::printf("  machine: cores busy %.0f %%, stolen by the host %.1f %%\n", 100 * machine.busy,
                100 * machine.steal);
    if (options.server_pid > 0) {
        std::printf(
            "  server RSS: %.1f MB before, %.1f MB at the end, %.1f MB peak; %.1f KB per held "
            "connection (%.1f KB above the start)\n",
            static_cast<double>(rss_before) / 1024.0, static_cast<double>(rss_end) / 1024.0,
            static_cast<double>(rss_peak) / 1024.0, kib_per_connection, delta_per_connection);
    }
    if (options.json) {
        nlohmann::json groups_json = nlohmann::json::object();
        for (std::size_t i = 0; i < groups.size(); ++i) {
            groups_json[groups[i].first] = groups_cpu[i];
        }
        nlohmann::json server_threads = nlohmann::json::object();
        for (const auto& [name, us] : server_cpu) {
            server_threads[name] = us;
        }
        nlohmann::json summary = {
            {"mode", mode},
            {"games", options.games},
            {"connections", wanted},
            {"held", held},
            {"seconds", seconds},
            {"round_trips", stats.round_trips},
            {"per_second", per_second},
            {"mover_ms", {mover[0], mover[1], mover[2]}},
            {"opponent_ms", {opponent[0], opponent[1], opponent[2]}},
            {"spectator_ms",
             {stats.to_spectator.quantile_ms(0.5), stats.to_spectator.quantile_ms(0.99),
              stats.to_spectator.quantile_ms(0.999)}},
            {"spectator_other_node_ms",
             {stats.to_spectator_other_node.quantile_ms(0.5),
              stats.to_spectator_other_node.quantile_ms(0.99),
              stats.to_spectator_other_node.quantile_ms(0.999)}},
            {"errors", stats.errors},
            {"closes", stats.closes},
            {"stalled_open_before_drain", stalled_before},
            {"stalled_open_after_drain", stalled_after},
            {"rss_kib", {{"before", rss_before}, {"end", rss_end}, {"peak", rss_peak}}},
            {"kib_per_connection", kib_per_connection},
            {"cpu_us_per_round_trip",
             {{"self", own_cpu},
              {"server", total_of(server_cpu)},
              {"server_threads", server_threads},
              {"groups", groups_json}}},
            {"machine", {{"busy", machine.busy}, {"steal", machine.steal}}},
            {"games_started", stats.games_started},
            {"reads",
             {{"sent", stats.reads_sent},
              {"answered", stats.reads_answered},
              {"refused", stats.read_errors}}},
        };
        std::printf("%s\n", summary.dump().c_str());
    }
    std::fflush(stdout);
    loops.clear();
    return 0;
}
