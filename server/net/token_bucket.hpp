#pragma once
/// \file
/// A token bucket with time as a value: the rate limits of messages, creates, HTTP API requests
/// and ping frames. Plain C++, header-only: net and app both hold their limits with it.

#include <algorithm>
#include <chrono>

namespace arbiter::server::net {

/// Holds up to `burst` tokens and gains `rate` a second; each admitted event takes one.
class TokenBucket {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    /// Full at `now`.
    TokenBucket(double rate, double burst, TimePoint now) noexcept
        : rate_(rate), burst_(burst), tokens_(burst), refilled_(now) {}

    /// Takes a token at `now`; false (and nothing taken) when there is none.
    bool take(TimePoint now) noexcept {
        refill(now);
        if (tokens_ < 1) {
            return false;
        }
        tokens_ -= 1;
        return true;
    }
    /// Whether the bucket is full again at `now`: then it is no different from a new one, and
    /// whoever it counts may be forgotten.
    bool full_at(TimePoint now) const noexcept { return tokens_at(now) >= burst_; }
    /// How long from `now` until a token is there (zero when one is).
    std::chrono::steady_clock::duration wait_at(TimePoint now) const noexcept {
        const double missing = 1 - tokens_at(now);
        if (missing <= 0) {
            return {};
        }
        return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(missing / rate_));
    }

  private:
    double tokens_at(TimePoint now) const noexcept {
        const double seconds = std::chrono::duration<double>(now - refilled_).count();
        return std::min(burst_, tokens_ + std::max(0.0, seconds) * rate_);
    }
    void refill(TimePoint now) noexcept {
        tokens_ = tokens_at(now);
        refilled_ = std::max(refilled_, now);
    }

    double rate_;
    double burst_;
    double tokens_;
    TimePoint refilled_;
};

}  // namespace arbiter::server::net
