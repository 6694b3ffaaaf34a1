#include "server/net/liveness.hpp"

#include <algorithm>
#include <charconv>

namespace arbiter::server::net {

void RoundTripEstimate::add(std::chrono::microseconds sample) noexcept {
    samples_[next_] = std::max(sample, std::chrono::microseconds::zero());
    next_ = (next_ + 1) % kWindow;
    count_ = std::min(count_ + 1, kWindow);
}

std::optional<std::chrono::microseconds> RoundTripEstimate::value() const noexcept {
    if (count_ == 0) {
        return std::nullopt;
    }
    std::array<std::chrono::microseconds, kWindow> sorted = samples_;
    std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count_));
    return sorted[(count_ - 1) / 2];
}

Liveness::Liveness(LivenessTimes times, TimePoint opened) noexcept
    : times_(times), last_heard_(opened), next_ping_(opened + times.ping_period()) {}

void Liveness::heard(TimePoint now) noexcept {
    last_heard_ = std::max(last_heard_, now);
}

void Liveness::pong(std::string_view payload, TimePoint now) noexcept {
    heard(now);
    std::uint32_t seq = 0;
    const auto* end = payload.data() + payload.size();
    if (const auto [last, error] = std::from_chars(payload.data(), end, seq);
        error != std::errc() || last != end) {
        return;
    }
    for (auto& sent : sent_) {
        if (!sent.answered && sent.seq == seq) {
            sent.answered = true;
            estimate_.add(std::chrono::duration_cast<std::chrono::microseconds>(now - sent.at));
            return;
        }
    }
}

Liveness::Tick Liveness::tick(TimePoint now, bool can_ping) {
    Tick tick;
    const TimePoint silent_at = last_heard_ + times_.silence_timeout;
    if (now >= silent_at) {
        tick.gone = true;
        return tick;
    }
    if (now >= next_ping_) {
        if (can_ping) {
            const std::uint32_t seq = next_seq_++;
            sent_[seq % sent_.size()] = Sent{seq, now, false};
            tick.ping = std::to_string(seq);
        }
        // From now, not from when it was due: a timer that fired late does not bunch pings.
        next_ping_ = now + times_.ping_period();
    }
    tick.wake = std::min(next_ping_, silent_at);
    return tick;
}

}  // namespace arbiter::server::net
