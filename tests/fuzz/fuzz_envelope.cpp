// libFuzzer target: the cluster's bus envelopes (server/cluster/envelope.hpp), the first thing a
// node does with every message another node, or a stranger on the bus, publishes. decode() is
// strict and canonical: whatever it accepts, encode() writes back byte for byte. The bytes then
// go through a node's link (server/app/cluster_link.hpp) on its inbox and on the broadcast
// channel, as the bus would hand them over, after a local connection was forwarded somewhere and
// with the node's fan-out listening (server/app/cluster_fanout.hpp): nothing may crash, and
// whatever does not decode is counted malformed on both.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/app/cluster_fanout.hpp"
#include "server/app/cluster_link.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace arbiter::server;

class NullBus final : public bus::Bus {
  public:
    void publish(std::string /*channel*/, std::string /*bytes*/) override {}
    void subscribe(std::string /*channel*/) override {}
    void unsubscribe(std::string /*channel*/) override {}
    bus::BusCounters counters() const override { return {}; }
};

/// Runs what is posted at once (the fuzzer has one thread).
class InlineExecutor final : public Executor {
  public:
    void post(std::function<void()> task) override { task(); }
    std::shared_ptr<Timer> post_after(std::chrono::milliseconds /*delay*/,
                                      std::function<void()> task) override {
        task();
        return nullptr;
    }
};

class NullHost final : public app::ClusterHost {
  public:
    void remote_opened(const std::shared_ptr<net::Peer>& /*peer*/) override {}
    void remote_closed(const std::shared_ptr<net::Peer>& /*peer*/) override {}
    void remote_request(const std::shared_ptr<net::Peer>& peer,
                        arbiter::protocol::ClientMessage /*message*/, std::string /*name*/,
                        std::optional<app::AccountUser> /*user*/, std::uint64_t /*hops*/) override {
        peer->send(std::make_shared<const std::string>("{}"));
    }
    void request_again(const std::shared_ptr<net::Peer>& /*peer*/,
                       arbiter::protocol::ClientMessage /*message*/,
                       std::uint64_t /*hops*/) override {}
};

class LocalPeer final : public net::Peer {
  public:
    std::uint64_t id() const noexcept override { return 42; }
    const std::string& address() const noexcept override { return address_; }
    bool send(std::shared_ptr<const std::string> /*text*/) override { return true; }
    void close(net::CloseCode /*code*/, std::string_view /*reason*/) override {}

  private:
    std::string address_ = "127.0.0.1";
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes = arbiter::fuzz::as_text(data, size);
    const auto envelope = cluster::decode(bytes);
    if (envelope) {
        arbiter::fuzz::check(cluster::encode(envelope.value()) == bytes,
                             "a decoded envelope does not encode back to its bytes");
    }

    NullBus bus;
    NullHost host;
    auto link =
        std::make_shared<app::ClusterLink>("node-a", 3, host, std::make_shared<InlineExecutor>());
    app::AccountDirectory directory;
    app::RatingBook ratings;
    app::Lobby lobby(100);
    app::ClusterFanout fanout(
        "node-a", directory, ratings,
        app::FanoutSources{
            [] { return arbiter::Expected<storage::AccountSnapshot, storage::StorageError>(); },
            [] {
                return arbiter::Expected<std::vector<storage::RatingRow>, storage::StorageError>();
            }});
    fanout.serve_lobby(lobby);
    fanout.start(*link, false);
    link->attach(bus);
    link->on_bus_state(bus::BusState::connected);
    // A local connection whose game node-b owns, so that deliveries and hangups find it.
    app::RoomRequest request{
        std::make_shared<LocalPeer>(), std::string("m1"), arbiter::protocol::Resign{"g1"}, {}, {}};
    link->forward(std::move(request), "node-b");
    link->on_bus_message("inbox:node-a", bytes);
    link->on_bus_message(cluster::broadcast_channel(), bytes);
    link->nodes_live({{"node-a", 3}});
    fanout.stop();
    link->close();
    arbiter::fuzz::check(envelope || link->counters().malformed == 2,
                         "bytes that do not decode were not counted malformed");
    arbiter::fuzz::check(!envelope || link->counters().malformed == 1,
                         "an envelope was taken on both an inbox and the broadcast channel");
    return 0;
}
