#pragma once
/// \file
/// How fast sign-in attempts may come (issue 40): a growing delay per client address and per
/// account after failed attempts, never a lockout. A few failures are free (a typo); each one
/// after them doubles the wait before the next attempt from that address, or on that account,
/// up to kMaxDelay. The owner of an account under attack therefore waits at most kMaxDelay from
/// a fresh address, while a guesser gets one try per kMaxDelay per account. A key's failures are
/// forgotten after kForgetAfter without one. Pure: time comes in as a value; not thread-safe
/// (the caller holds a lock).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace arbiter::server::app {

class SignInThrottle {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;
    using Duration = std::chrono::milliseconds;

    /// Failures that cost no wait, per key.
    static constexpr std::uint32_t kFreeFailures = 3;
    /// The wait after the first failure past the free ones; each further failure doubles it.
    static constexpr Duration kFirstDelay{1000};
    static constexpr Duration kMaxDelay{60'000};
    static constexpr std::chrono::minutes kForgetAfter{15};
    /// The most keys remembered; past it, the keys whose wait is over are dropped, and if all
    /// still wait, everything is (a flood of addresses must not grow memory without bound).
    static constexpr std::size_t kMaxKeys = 100'000;

    /// How long an attempt from `address` on the account `account_key` must still wait at
    /// `now`: nullopt when it may go ahead.
    std::optional<Duration> wait_before(const std::string& address, const std::string& account_key,
                                        TimePoint now) const;
    /// A failed attempt (unknown name or wrong password) from `address` on `account_key`.
    void note_failure(const std::string& address, const std::string& account_key, TimePoint now);
    /// A successful sign-in: the account's failures are forgotten. The address's are not, so
    /// that signing in to one's own account does not buy more guesses at others.
    void note_success(const std::string& account_key);

    /// The wait after `failures` failures in a row (0 while they are free).
    static Duration delay_after(std::uint32_t failures);
    /// Keys in memory (for tests and metrics).
    std::size_t key_count() const { return entries_.size(); }

  private:
    struct Entry {
        std::uint32_t failures = 0;
        TimePoint last_failure{};
    };
    std::optional<Duration> wait_for(const std::string& key, TimePoint now) const;
    void fail(const std::string& key, TimePoint now);
    void make_room(TimePoint now);

    /// Keys are "a:<address>" and "u:<account key>", so an address never counts as a name.
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace arbiter::server::app
