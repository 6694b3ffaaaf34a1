#include "server/app/sign_in_throttle.hpp"

#include <algorithm>

namespace arbiter::server::app {

namespace {

std::string address_key(const std::string& address) {
    return "a:" + address;
}

std::string account_entry_key(const std::string& account_key) {
    return "u:" + account_key;
}

}  // namespace

SignInThrottle::Duration SignInThrottle::delay_after(std::uint32_t failures) {
    if (failures <= kFreeFailures) {
        return Duration{0};
    }
    // kFirstDelay << 6 is already past kMaxDelay: no shift can overflow.
    const std::uint32_t doublings = std::min<std::uint32_t>(failures - kFreeFailures - 1, 6);
    return std::min(kFirstDelay * (std::int64_t{1} << doublings), kMaxDelay);
}

std::optional<SignInThrottle::Duration> SignInThrottle::wait_for(const std::string& key,
                                                                 TimePoint now) const {
    const auto found = entries_.find(key);
    if (found == entries_.end()) {
        return std::nullopt;
    }
    const Entry& entry = found->second;
    if (now - entry.last_failure >= kForgetAfter) {
        return std::nullopt;
    }
    const auto ready = entry.last_failure + delay_after(entry.failures);
    if (now >= ready) {
        return std::nullopt;
    }
    return std::chrono::ceil<Duration>(ready - now);
}

std::optional<SignInThrottle::Duration> SignInThrottle::wait_before(const std::string& address,
                                                                    const std::string& account_key,
                                                                    TimePoint now) const {
    const auto by_address = wait_for(address_key(address), now);
    const auto by_account = wait_for(account_entry_key(account_key), now);
    if (by_address && by_account) {
        return std::max(*by_address, *by_account);
    }
    return by_address ? by_address : by_account;
}

void SignInThrottle::fail(const std::string& key, TimePoint now) {
    Entry& entry = entries_[key];
    if (entry.failures > 0 && now - entry.last_failure >= kForgetAfter) {
        entry.failures = 0;
    }
    entry.failures = std::min<std::uint32_t>(entry.failures + 1, 1000);
    entry.last_failure = now;
}

void SignInThrottle::note_failure(const std::string& address, const std::string& account_key,
                                  TimePoint now) {
    if (entries_.size() + 2 > kMaxKeys) {
        make_room(now);
    }
    fail(address_key(address), now);
    fail(account_entry_key(account_key), now);
}

void SignInThrottle::note_success(const std::string& account_key) {
    entries_.erase(account_entry_key(account_key));
}

void SignInThrottle::make_room(TimePoint now) {
    std::erase_if(entries_, [&](const auto& item) {
        const Entry& entry = item.second;
        return now - entry.last_failure >= kForgetAfter ||
               now >= entry.last_failure + delay_after(entry.failures);
    });
    if (entries_.size() + 2 > kMaxKeys) {
        entries_.clear();
    }
}

}  // namespace arbiter::server::app
