#pragma once
/// \file
/// How the hub's parts answer a connection outside a room: a reply, or a refusal that the
/// metrics count and the log notes.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/protocol/messages.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"

namespace arbiter::server::app {

/// Logs the refusal of a request, sampled (SampledLog, one line a second per error code, which
/// counts the lines left out before it): a client that sends refused requests by the thousand
/// must not write the log by the thousand. arbiter_requests_refused_total counts every refusal.
/// `game` and `request` are "" for a request the hub refused. Thread-safe.
void log_refusal(std::chrono::steady_clock::time_point now, protocol::ErrorCode code,
                 std::uint64_t peer, std::string_view game = {}, std::string_view request = {});

/// Sends replies and refusals. Thread-safe.
class Replies {
  public:
    Replies(Metrics& metrics, const TimeSource& time) : metrics_(metrics), time_(time) {}

    /// `body` as the direct reply to the request `id`.
    void reply(const std::shared_ptr<net::Peer>& peer, protocol::ServerBody body,
               const std::optional<std::string>& id);
    /// An `error` answering the request `id`, counted by its code.
    void refuse(const std::shared_ptr<net::Peer>& peer, protocol::ErrorCode code,
                std::string_view message, const std::optional<std::string>& id);
    /// Refuses a request because too many reads of stored games wait (unavailable), logging a
    /// flood of them once a second rather than each.
    void refuse_busy(const std::shared_ptr<net::Peer>& peer, const std::optional<std::string>& id);

  private:
    Metrics& metrics_;
    const TimeSource& time_;
    OncePerSecond busy_log_;  ///< refuse_busy's log line, at most one a second
};

}  // namespace arbiter::server::app
