#include "server/app/replies.hpp"

#include "common/protocol/codec.hpp"

namespace arbiter::server::app {

namespace {

/// Why a request that needs a read of stored games is refused when too many reads wait.
constexpr std::string_view kBusyReading =
    "the server is busy reading stored games; try again shortly";

}  // namespace

void log_refusal(std::chrono::steady_clock::time_point now, protocol::ErrorCode code,
                 std::uint64_t peer, std::string_view game, std::string_view request) {
    static SampledLog sampled(static_cast<std::size_t>(protocol::ErrorCode::internal) + 1);
    const auto left_out = sampled.allow(static_cast<std::size_t>(code), now);
    if (!left_out) {
        return;
    }
    if (game.empty()) {
        log_event(LogLevel::info, "request_refused",
                  {{"peer", peer}, {"code", protocol::to_string(code)}, {"left_out", *left_out}});
        return;
    }
    log_event(LogLevel::info, "request_refused",
              {{"peer", peer},
               {"game", game},
               {"request", request},
               {"code", protocol::to_string(code)},
               {"left_out", *left_out}});
}

void Replies::reply(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
                    const std::optional<std::string>& id) {
    peer->send(std::make_shared<const std::string>(
        protocol::encode(protocol::ServerMessage{std::move(body), id})));
}

void Replies::refuse(const std::shared_ptr<net::Peer>& peer, protocol::ErrorCode code,
                     std::string_view message, const std::optional<std::string>& id) {
    metrics_.refused(code);
    if (code != protocol::ErrorCode::rate_limited) {  // the hub logs those (rate_limited)
        log_refusal(time_.now(), code, peer->id());
    }
    peer->send(std::make_shared<const std::string>(protocol::encode_error(code, message, id)));
}

void Replies::refuse_busy(const std::shared_ptr<net::Peer>& peer,
                          const std::optional<std::string>& id) {
    metrics_.refused(protocol::ErrorCode::unavailable);
    // A flood is refused by the thousand: one line a second says so, not one per request
    // (arbiter_reads_total counts them all).
    if (busy_log_.allow(time_.now())) {
        log_event(LogLevel::warn, "reads_refused",
                  {{"peer", peer->id()}, {"address", peer->address()}});
    }
    peer->send(std::make_shared<const std::string>(
        protocol::encode_error(protocol::ErrorCode::unavailable, kBusyReading, id)));
}

}  // namespace arbiter::server::app
