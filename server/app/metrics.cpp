#include "server/app/metrics.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "common/protocol/messages.hpp"
#include "common/rules/game.hpp"

namespace arbiter::server::app {

namespace {

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

// `value` as printf's %.*g would write it. std::to_chars, since an ostringstream per sample (its
// locale's facets looked up by dynamic_cast) was most of a scrape's cost.
std::string_view format_number(std::array<char, 32>& buffer, double value, int precision) {
    const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                            std::chars_format::general, precision);
    return error == std::errc() ? std::string_view(buffer.data(), end - buffer.data()) : "NaN";
}

void sample(std::string& out, std::string_view name, std::string_view labels, double value) {
    std::array<char, 32> buffer;
    // 15 digits: whole seconds since 1970 and large counters stay exact.
    const std::string_view number = format_number(buffer, value, 15);
    out += name;
    if (!labels.empty()) {
        out += '{';
        out += labels;
        out += '}';
    }
    out += ' ';
    out += number;
    out += '\n';
}

void by_code(std::string& out, std::string_view name, std::string_view help,
             const std::array<std::atomic<std::uint64_t>, Metrics::kErrorCodes>& counts) {
    header(out, name, "counter", help);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const std::string labels =
            "code=\"" + std::string(protocol::to_string(static_cast<protocol::ErrorCode>(i))) +
            "\"";
        sample(out, name, labels, static_cast<double>(counts[i].load()));
    }
}

}  // namespace

void render_series(std::string& out, std::string_view name, std::string_view type,
                   std::string_view help, double value) {
    header(out, name, type, help);
    sample(out, name, "", value);
}

void LatencyHistogram::observe(std::int64_t micros) noexcept {
    std::size_t bucket = 0;
    while (bucket < kBucketsUs.size() && micros > kBucketsUs[bucket]) {
        ++bucket;
    }
    buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
    sum_us_.fetch_add(static_cast<std::uint64_t>(micros < 0 ? 0 : micros),
                      std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
}

void LatencyHistogram::render(std::string& out, std::string_view name,
                              std::string_view help) const {
    header(out, name, "histogram", help);
    const std::string bucket = std::string(name) + "_bucket";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kBucketsUs.size(); ++i) {
        cumulative += buckets_[i].load();
        std::array<char, 32> buffer;
        const std::string_view le =
            format_number(buffer, static_cast<double>(kBucketsUs[i]) / 1e6, 6);
        sample(out, bucket, "le=\"" + std::string(le) + "\"", static_cast<double>(cumulative));
    }
    cumulative += buckets_.back().load();
    sample(out, bucket, "le=\"+Inf\"", static_cast<double>(cumulative));
    sample(out, std::string(name) + "_sum", "", static_cast<double>(sum_us_.load()) / 1e6);
    // _count equals the +Inf bucket in one scrape, even while other threads observe.
    sample(out, std::string(name) + "_count", "", static_cast<double>(cumulative));
}

std::string Metrics::render() const {
    std::string out;
    render_series(out, "arbiter_moves_accepted_total", "counter",
                  "Moves committed and acknowledged.", static_cast<double>(moves_accepted_.load()));
    by_code(out, "arbiter_moves_refused_total", "Move requests answered with an error, by code.",
            moves_refused_);
    by_code(out, "arbiter_requests_refused_total", "Requests answered with an error, by code.",
            refused_);
    render_series(out, "arbiter_games_created_total", "counter",
                  "Games created (rematches included).",
                  static_cast<double>(games_created_.load()));
    render_series(out, "arbiter_games_ended_total", "counter",
                  "Games that ended: with a result, or aborted.",
                  static_cast<double>(games_ended_.load()));
    render_series(out, "arbiter_rate_limited_total", "counter",
                  "Messages refused because a client exceeded its message rate.",
                  static_cast<double>(rate_limited_.load()));
    render_series(out, "arbiter_api_rate_limited_total", "counter",
                  "REST API requests answered 429 because a client exceeded --api-rate.",
                  static_cast<double>(api_rate_limited_.load()));
    render_series(
        out, "arbiter_engine_failures_total", "counter",
        "Times an engine failed to give a move (crashed, hung, or answered an illegal move).",
        static_cast<double>(engine_failures_.load()));
    commit_latency_.render(
        out, "arbiter_move_commit_seconds",
        "Time from a game change's arrival (a move, and also a creation, join, offer or ending) "
        "to its durable commit.");
    message_latency_.render(out, "arbiter_message_latency_seconds",
                            "Time from a message's arrival to its reply or broadcast being sent.");
    return out;
}

std::string render_gauges(const ScrapeGauges& gauges) {
    std::string out;
    render_series(out, "arbiter_connections_open", "gauge",
                  "Connections holding a slot (HTTP and WebSocket).",
                  static_cast<double>(gauges.open_connections));
    header(out, "arbiter_websocket_connections", "gauge",
           "WebSocket connections by role: player (seated), spectator, lobby, other.");
    const auto& roles = gauges.roles;
    sample(out, "arbiter_websocket_connections", "role=\"player\"",
           static_cast<double>(roles.players));
    sample(out, "arbiter_websocket_connections", "role=\"spectator\"",
           static_cast<double>(roles.spectators));
    sample(out, "arbiter_websocket_connections", "role=\"lobby\"",
           static_cast<double>(roles.lobby));
    sample(out, "arbiter_websocket_connections", "role=\"other\"",
           static_cast<double>(roles.other));

    // Every status and variant appears, at 0 when absent, so that series never vanish.
    auto games = gauges.games;
    for (const auto status : {protocol::GameStatus::waiting, protocol::GameStatus::playing,
                              protocol::GameStatus::ended, protocol::GameStatus::aborted}) {
        for (auto variant :
             {rules::Variant::chess, rules::Variant::xiangqi, rules::Variant::draughts}) {
            games.try_emplace(
                {std::string(protocol::to_string(status)), std::string(rules::to_string(variant))},
                0);
        }
    }
    header(out, "arbiter_games_in_memory", "gauge", "Games held in memory, by status and variant.");
    for (const auto& [key, count] : games) {
        sample(out, "arbiter_games_in_memory",
               "status=\"" + key.first + "\",variant=\"" + key.second + "\"",
               static_cast<double>(count));
    }

    const auto& net = gauges.net;
    render_series(
        out, "arbiter_outgoing_frames_dropped_total", "counter",
        "Outgoing WebSocket frames not sent: queue over its bound, or connection closing.",
        static_cast<double>(net.dropped_frames));
    render_series(out, "arbiter_slow_consumer_closes_total", "counter",
                  "Connections closed (1013) because their outgoing queue hit its bound.",
                  static_cast<double>(net.slow_consumer_closes));
    render_series(out, "arbiter_too_large_closes_total", "counter",
                  "Connections closed (1009) for a frame over --max-frame-bytes.",
                  static_cast<double>(net.too_large_closes));
    render_series(out, "arbiter_binary_closes_total", "counter",
                  "Connections closed (1003) for sending a binary frame.",
                  static_cast<double>(net.binary_closes));
    render_series(out, "arbiter_ping_flood_closes_total", "counter",
                  "Connections closed (1008) for sending ping frames over --max-pings-per-second.",
                  static_cast<double>(net.ping_flood_closes));
    render_series(out, "arbiter_origin_refusals_total", "counter",
                  "WebSocket upgrades refused (403): an Origin neither this server's nor allowed.",
                  static_cast<double>(net.origin_refusals));
    render_series(
        out, "arbiter_idle_closes_total", "counter",
        "Connections dropped as gone: --idle-timeout without a frame or a pong to the server's "
        "pings.",
        static_cast<double>(net.idle_closes));
    header(out, "arbiter_connections_rejected_total", "counter",
           "Connections refused at accept because a cap was reached.");
    sample(out, "arbiter_connections_rejected_total", "cap=\"per_address\"",
           static_cast<double>(net.rejected_per_address));
    sample(out, "arbiter_connections_rejected_total", "cap=\"total\"",
           static_cast<double>(net.rejected_total));
    render_series(out, "arbiter_handler_errors_total", "counter",
                  "Exceptions caught at a connection's dispatch boundary.",
                  static_cast<double>(net.handler_errors));
    render_series(out, "arbiter_outgoing_queue_peak_bytes", "gauge",
                  "The largest outgoing queue of one connection seen since start.",
                  static_cast<double>(net.peak_queue_bytes));
    render_series(out, "arbiter_outgoing_queued_bytes", "gauge",
                  "Outgoing bytes queued now, all connections together (bounded by "
                  "--max-outgoing-bytes).",
                  static_cast<double>(net.queued_bytes));
    render_series(out, "arbiter_memory_sheds_total", "counter",
                  "Connections closed (1013) because all outgoing queues together passed "
                  "--max-outgoing-bytes.",
                  static_cast<double>(net.memory_sheds));

    render_series(out, "arbiter_reads_waiting", "gauge",
                  "Reads of stored games queued for the reader thread.",
                  static_cast<double>(gauges.reads.waiting));
    header(out, "arbiter_reads_total", "counter",
           "Reads of stored games: run, or refused because --max-queued-reads were waiting.");
    sample(out, "arbiter_reads_total", "outcome=\"done\"", static_cast<double>(gauges.reads.done));
    sample(out, "arbiter_reads_total", "outcome=\"refused\"",
           static_cast<double>(gauges.reads.refused));

    render_series(out, "arbiter_engine_processes", "gauge",
                  "UCI engine processes running (at most --max-engine-processes).",
                  static_cast<double>(gauges.engine_processes));
    render_series(
        out, "arbiter_engine_idle_stops_total", "counter",
        "Idle UCI engine processes stopped because all --max-engine-processes ran and another "
        "game's engine needed one.",
        static_cast<double>(gauges.engine_idle_stops));
    return out;
}

namespace {

double read_boot_time() {
    std::ifstream proc_stat("/proc/stat");
    for (std::string line; std::getline(proc_stat, line);) {
        if (line.starts_with("btime ")) {
            return std::strtod(line.c_str() + 6, nullptr);
        }
    }
    return 0;
}

}  // namespace

ProcessMetrics::ProcessMetrics(std::chrono::milliseconds max_age)
    : max_age_(max_age), boot_time_(read_boot_time()) {}

std::string ProcessMetrics::render(std::chrono::steady_clock::time_point now) {
    std::lock_guard lock(mutex_);
    if (!read_at_ || now - *read_at_ >= max_age_ || now < *read_at_) {
        text_ = read();
        read_at_ = now;
    }
    return text_;
}

std::string ProcessMetrics::read() const {
    // /proc/self/stat fields (proc(5)): 14 utime, 15 stime, 22 starttime (clock ticks since
    // boot), 23 vsize (bytes), 24 rss (pages). The command name (2) may hold spaces: skip past ')'.
    std::ifstream stat_file("/proc/self/stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    if (close == std::string::npos) {
        return {};
    }
    std::istringstream fields(stat.substr(close + 2));
    std::array<double, 24> value{};  // value[i] is field i + 3
    for (auto& field : value) {
        std::string token;
        fields >> token;
        field = std::strtod(token.c_str(), nullptr);
    }
    const auto field = [&](int number) { return value[static_cast<std::size_t>(number - 3)]; };
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));

    std::error_code ec;
    double open_fds = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        ++open_fds;
    }

    std::string out;
    render_series(out, "process_cpu_seconds_total", "counter", "User and system CPU time spent.",
                  (field(14) + field(15)) / ticks);
    render_series(out, "process_start_time_seconds", "gauge", "Start time since the Unix epoch.",
                  boot_time_ + field(22) / ticks);
    render_series(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size.", field(23));
    render_series(out, "process_resident_memory_bytes", "gauge", "Resident memory size.",
                  field(24) * page);
    render_series(out, "process_open_fds", "gauge", "Open file descriptors.", open_fds);
    return out;
}

}  // namespace arbiter::server::app
