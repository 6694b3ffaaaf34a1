#include "server/app/request_rates.hpp"

namespace arbiter::server::app {

std::optional<RequestRates::Duration> RequestRates::take(const std::string& client, TimePoint now) {
    std::lock_guard lock(mutex_);
    // A full bucket is a newcomer's: dropping it forgets nothing, and memory holds only the
    // clients of the last few seconds (burst / rate), however many addresses they came from.
    if (!forgot_at_ || now - *forgot_at_ >= kForgetInterval) {
        forgot_at_ = now;
        std::erase_if(buckets_, [now](const auto& entry) { return entry.second.full_at(now); });
    }
    auto it = buckets_.try_emplace(client, rate_, burst_, now).first;
    if (it->second.take(now)) {
        return std::nullopt;
    }
    return it->second.wait_at(now);
}

std::size_t RequestRates::client_count() const {
    std::lock_guard lock(mutex_);
    return buckets_.size();
}

}  // namespace arbiter::server::app
