#pragma once
// The net tests' handlers and a fixture that runs a real Network on 127.0.0.1:0 in a background
// thread and stops it at the end of each test.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/net/server.hpp"

namespace arbiter::test {

using server::net::CloseCode;
using server::net::HttpHandler;
using server::net::HttpRequest;
using server::net::HttpResponse;
using server::net::NetConfig;
using server::net::Network;
using server::net::Peer;
using server::net::PeerHandler;

/// Echoes text, records every call per peer, and obeys a few commands:
/// "flood N SIZE" sends N frames of SIZE bytes and records how many were accepted;
/// "close" queues "bye" then closes with normal; "throw" throws from on_message.
class RecordingPeers final : public PeerHandler {
  public:
    void on_open(const std::shared_ptr<Peer>& peer) override;
    void on_message(const std::shared_ptr<Peer>& peer, std::string_view text) override;
    void on_too_large(const std::shared_ptr<Peer>& peer) override;
    void on_close(const std::shared_ptr<Peer>& peer) override;

    /// Events of the peer opened `index`-th (0 = first), e.g. {"open", "message:hi", "close"}.
    std::vector<std::string> events(std::size_t index) const;
    /// The peer opened `index`-th, once it exists.
    std::shared_ptr<Peer> peer(std::size_t index) const;
    std::size_t opens() const;
    std::size_t closes() const;
    /// How many frames "flood" got accepted before send returned false (or all of them).
    std::size_t flood_accepted() const;
    /// Waits until `predicate` holds (checked after each event); false on timeout.
    bool wait(const std::function<bool()>& predicate,
              std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

  private:
    void record(const std::shared_ptr<Peer>& peer, std::string event);

    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    std::vector<std::uint64_t> order_;
    std::map<std::uint64_t, std::vector<std::string>> events_;
    std::map<std::uint64_t, std::shared_ptr<Peer>> peers_;
    std::size_t flood_accepted_ = 0;
    std::map<std::uint64_t, bool> in_call_;  // detects overlapping calls for one peer
};

/// GET/HEAD /hello → "hello from ADDRESS loopback|remote"; /client → "KEY local|remote" (whom
/// the request counts against); /echo → the body; /throw throws; anything else 404.
/// /hello, /echo, /throw answer at once; /later answers from another thread, after handle()
/// returned, as the server's reads of stored games do; /answer-twice calls respond twice.
class TestHttp final : public HttpHandler {
  public:
    ~TestHttp() override;
    void handle(const HttpRequest& request, Respond respond) override;

  private:
    std::mutex threads_mutex_;
    std::vector<std::thread> threads_;
};

/// 127.0.0.1 on a free port (the tests never target an address outside 127.0.0.0/8).
inline NetConfig local_config() {
    NetConfig config;
    config.bind_address = "127.0.0.1";
    config.port = 0;
    return config;
}

class NetTest : public ::testing::Test {
  protected:
    /// Starts the server; call once per test, after adjusting config_.
    void start(unsigned threads = 2, std::function<void()> on_signal = {});
    void TearDown() override;
    /// Stops the server and waits for run() to return; false if it did not within 10 s.
    bool stop_and_join();
    std::uint16_t port() const { return network_->port(); }

    NetConfig config_ = local_config();
    std::shared_ptr<RecordingPeers> peers_ = std::make_shared<RecordingPeers>();
    std::shared_ptr<TestHttp> http_ = std::make_shared<TestHttp>();
    std::unique_ptr<Network> network_;
    std::thread runner_;
    std::mutex logged_mutex_;
    std::vector<std::string> logged_;
};

}  // namespace arbiter::test
