// /metrics text: Prometheus exposition format, cumulative histogram buckets, labelled series.
#include <gtest/gtest.h>

#include <unistd.h>

#include <map>
#include <sstream>
#include <string>

#include "server/app/metrics.hpp"

namespace arbiter::server::app {
namespace {

// name{labels} -> value, from every sample line; checks each family has one TYPE line.
std::map<std::string, double> samples(const std::string& text) {
    std::map<std::string, double> out;
    std::map<std::string, int> types;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("# TYPE ")) {
            ++types[line.substr(7, line.find(' ', 7) - 7)];
            continue;
        }
        if (line.empty() || line.starts_with("#")) {
            continue;
        }
        const auto space = line.rfind(' ');
        out[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    for (const auto& [family, count] : types) {
        EXPECT_EQ(count, 1) << family;
    }
    return out;
}

TEST(Metrics, CountsMovesAndRefusalsByCode) {
    Metrics metrics;
    metrics.move_accepted();
    metrics.move_accepted();
    metrics.refused(protocol::ErrorCode::illegal_move);
    metrics.move_refused(protocol::ErrorCode::illegal_move);
    metrics.rate_limited();
    const auto values = samples(metrics.render());
    EXPECT_EQ(values.at("arbiter_moves_accepted_total"), 2);
    EXPECT_EQ(values.at("arbiter_moves_refused_total{code=\"illegal_move\"}"), 1);
    EXPECT_EQ(values.at("arbiter_moves_refused_total{code=\"not_your_turn\"}"), 0);
    EXPECT_EQ(values.at("arbiter_requests_refused_total{code=\"illegal_move\"}"), 1);
    EXPECT_EQ(values.at("arbiter_rate_limited_total"), 1);
}

TEST(Metrics, HistogramBucketsAreCumulative) {
    Metrics metrics;
    metrics.message_latency(100);      // <= 250 us
    metrics.message_latency(3000);     // <= 5 ms
    metrics.message_latency(5000000);  // over 1 s: only +Inf
    const auto values = samples(metrics.render());
    EXPECT_EQ(values.at("arbiter_message_latency_seconds_bucket{le=\"0.00025\"}"), 1);
    EXPECT_EQ(values.at("arbiter_message_latency_seconds_bucket{le=\"0.002\"}"), 1);
    EXPECT_EQ(values.at("arbiter_message_latency_seconds_bucket{le=\"0.005\"}"), 2);
    EXPECT_EQ(values.at("arbiter_message_latency_seconds_bucket{le=\"1\"}"), 2);
    EXPECT_EQ(values.at("arbiter_message_latency_seconds_bucket{le=\"+Inf\"}"), 3);
    EXPECT_EQ(values.at("arbiter_message_latency_seconds_count"), 3);
    EXPECT_DOUBLE_EQ(values.at("arbiter_message_latency_seconds_sum"), 5.0031);
    EXPECT_EQ(values.at("arbiter_move_commit_seconds_count"), 0);
}

TEST(Metrics, GaugesListEveryRoleStatusAndVariant) {
    ScrapeGauges gauges;
    gauges.open_connections = 5;
    gauges.roles = {2, 1, 1, 1};
    gauges.games[{"playing", "xiangqi"}] = 3;
    gauges.net.slow_consumer_closes = 4;
    gauges.net.dropped_frames = 9;
    gauges.net.queued_bytes = 12345;
    gauges.net.memory_sheds = 6;
    gauges.reads = {2, 40, 7};
    gauges.engine_processes = 3;
    gauges.engine_idle_stops = 11;
    const auto values = samples(render_gauges(gauges));
    EXPECT_EQ(values.at("arbiter_connections_open"), 5);
    EXPECT_EQ(values.at("arbiter_websocket_connections{role=\"player\"}"), 2);
    EXPECT_EQ(values.at("arbiter_websocket_connections{role=\"other\"}"), 1);
    EXPECT_EQ(values.at("arbiter_games_in_memory{status=\"playing\",variant=\"xiangqi\"}"), 3);
    EXPECT_EQ(values.at("arbiter_games_in_memory{status=\"waiting\",variant=\"draughts\"}"), 0);
    EXPECT_EQ(values.at("arbiter_slow_consumer_closes_total"), 4);
    EXPECT_EQ(values.at("arbiter_outgoing_frames_dropped_total"), 9);
    EXPECT_EQ(values.at("arbiter_outgoing_queued_bytes"), 12345);
    EXPECT_EQ(values.at("arbiter_memory_sheds_total"), 6);
    EXPECT_EQ(values.at("arbiter_reads_waiting"), 2);
    EXPECT_EQ(values.at("arbiter_reads_total{outcome=\"done\"}"), 40);
    EXPECT_EQ(values.at("arbiter_reads_total{outcome=\"refused\"}"), 7);
    EXPECT_EQ(values.at("arbiter_engine_processes"), 3);
    EXPECT_EQ(values.at("arbiter_engine_idle_stops_total"), 11);
}

TEST(Metrics, ProcessMetricsComeFromProc) {
    ProcessMetrics process;
    const auto values = samples(process.render(std::chrono::steady_clock::now()));
    EXPECT_GT(values.at("process_resident_memory_bytes"), 0);
    EXPECT_GT(values.at("process_open_fds"), 2);
    EXPECT_GT(values.at("process_start_time_seconds"), 1.6e9);  // after 2020
}

// A flood of scrapes reads /proc once a second, not once a request.
TEST(Metrics, ProcessMetricsAreReadAtMostOncePerMaxAge) {
    ProcessMetrics process(std::chrono::milliseconds(1000));
    const auto start = std::chrono::steady_clock::now();
    const double fds_before = samples(process.render(start)).at("process_open_fds");
    int extra[8];
    for (int& fd : extra) {
        fd = ::dup(STDERR_FILENO);
        ASSERT_GE(fd, 0);
    }
    const double cached =
        samples(process.render(start + std::chrono::milliseconds(999))).at("process_open_fds");
    const double fresh =
        samples(process.render(start + std::chrono::milliseconds(1000))).at("process_open_fds");
    for (int fd : extra) {
        ::close(fd);
    }
    EXPECT_EQ(cached, fds_before);
    EXPECT_EQ(fresh, fds_before + 8);
}

}  // namespace
}  // namespace arbiter::server::app
