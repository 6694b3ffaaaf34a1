#pragma once
/// \file
/// A rate per client for requests that hold no connection of their own (the REST API): a token
/// bucket per client key, kept only while it is not full again. Time comes in as a value.

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/net/token_bucket.hpp"

namespace arbiter::server::app {

/// Thread-safe.
class RequestRates {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;
    using Duration = std::chrono::steady_clock::duration;

    /// `rate` requests a second per client, `burst` at once.
    RequestRates(double rate, double burst) : rate_(rate), burst_(burst) {}

    /// Takes one of `client`'s tokens at `now`: nullopt when taken, else how long until one is
    /// there (for Retry-After). A client not seen lately starts with a full bucket.
    std::optional<Duration> take(const std::string& client, TimePoint now);
    /// Clients with a bucket in memory: those whose bucket is not full again, give or take the
    /// last kForgetInterval (the walk that drops the others runs at most that often).
    std::size_t client_count() const;
    static constexpr std::chrono::seconds kForgetInterval{1};

  private:
    const double rate_;
    const double burst_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, net::TokenBucket> buckets_;
    std::optional<TimePoint> forgot_at_;
};

}  // namespace arbiter::server::app
