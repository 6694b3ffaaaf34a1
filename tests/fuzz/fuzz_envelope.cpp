// libFuzzer target: the cluster's bus envelopes (server/cluster/envelope.hpp), the first thing a
// node does with every message another node, or a stranger on the bus, publishes. decode() is
// strict and canonical: whatever it accepts, encode() writes back byte for byte. The bytes then
// go through a node's router on its inbox and on a game channel it follows, as the bus would hand
// them over: nothing may crash, and whatever is not a well-placed envelope is counted malformed.

#include <cstddef>
#include <cstdint>
#include <string>

#include "server/cluster/cluster_node.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace arbiter::server::cluster;

class NullBus final : public arbiter::server::bus::Bus {
  public:
    void publish(std::string /*channel*/, std::string /*bytes*/) override {}
    void subscribe(std::string /*channel*/) override {}
    void unsubscribe(std::string /*channel*/) override {}
    arbiter::server::bus::BusCounters counters() const override { return {}; }
};

class OwnsG1 final : public OwnershipLookup {
  public:
    std::optional<Owner> owner_of(std::string_view game) override {
        return game == "g1" ? std::optional(Owner{"node-a", 1}) : std::nullopt;
    }
};

class NoCatchUp final : public CatchUp {
  public:
    void request(std::string /*game*/, std::uint64_t /*after_seq*/) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes = arbiter::fuzz::as_text(data, size);
    const auto envelope = decode(bytes);
    if (envelope) {
        arbiter::fuzz::check(encode(envelope.value()) == bytes,
                             "a decoded envelope does not encode back to its bytes");
    }

    NullBus bus;
    OwnsG1 ownership;
    NoCatchUp catch_up;
    ClusterNode node(ClusterNodeParts{"node-a", bus, ownership, catch_up,
                                      [](ConnectionId, const std::string&) {},
                                      [](ForwardedRequest) {}});
    const TimePoint now{};
    node.relay().add_viewer("g1", 1, 0, now);
    node.on_bus_message("inbox:node-a", bytes, now);
    node.on_bus_message("game:g1", bytes, now);
    node.tick(now + Millis{10000});
    const auto counters = node.counters();
    arbiter::fuzz::check(envelope || counters.malformed == 2,
                         "bytes that do not decode were not counted malformed");
    return 0;
}
