#pragma once
/// \file
/// How the hub's parts answer a connection outside a room: a reply, or a refusal that the
/// metrics count and the log notes.

#include <memory>
#include <optional>
#include <string>

#include "common/protocol/messages.hpp"
#include "server/app/log.hpp"
#include "server/app/metrics.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"

namespace arbiter::server::app {

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
