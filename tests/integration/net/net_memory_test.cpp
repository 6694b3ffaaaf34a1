// The budget: 10,000 idle connections at <= 16 KB of server RSS each. Measured in-process
// (the raw clients hold a socket and a few bytes each, counted against the server: conservative).

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "net_fixture.hpp"
#include "raw_client.hpp"

namespace arbiter::test {
namespace {

using NetMemory = NetTest;

std::size_t resident_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.starts_with("VmRSS:")) {
            return std::stoul(line.substr(6));
        }
    }
    return 0;
}

TEST_F(NetMemory, IdleConnectionsStayUnder16KiBEach) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "sanitizer shadow memory and quarantine make RSS meaningless";
#endif
    constexpr std::size_t kConnections = 2000;
    config_.limits.max_connections_per_address = kConnections;
    start();
    {
        // Warm up: the first connections pay for thread arenas and lazily built Asio services.
        WsClient warm(port());
        ASSERT_TRUE(warm.send_text("warm"));
        ASSERT_EQ(warm.read_text(), "warm");
    }
    ASSERT_TRUE(peers_->wait([&] { return network_->connection_count() == 0; }));
    const auto before = resident_kib();
    std::vector<WsClient> clients;
    clients.reserve(kConnections);
    for (std::size_t i = 0; i < kConnections; ++i) {
        clients.emplace_back(port());
        ASSERT_EQ(clients.back().status(), 101);
        // Each connection has exchanged a message, as a seated player would have.
        ASSERT_TRUE(clients.back().send_text("hello"));
        ASSERT_EQ(clients.back().read_text(), "hello");
    }
    const auto after = resident_kib();
    const auto per_connection = (after - before) * 1024 / kConnections;
    std::printf("idle connection: %zu bytes of RSS each (%zu connections)\n", per_connection,
                kConnections);
    EXPECT_LE(per_connection, 16u * 1024);
}

}  // namespace
}  // namespace arbiter::test
