#include "server/net/shared_state.hpp"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace arbiter::server::net::detail {

ConnectionTicket::ConnectionTicket(std::shared_ptr<SharedState> state, std::uint64_t id,
                                   std::string address, bool refused)
    : state_(std::move(state)), id_(id), address_(std::move(address)), refused_(refused) {}

ConnectionTicket::ConnectionTicket(ConnectionTicket&& other) noexcept
    : state_(std::move(other.state_)),
      id_(other.id_),
      address_(std::move(other.address_)),
      refused_(other.refused_) {}

ConnectionTicket::~ConnectionTicket() {
    if (state_) {
        state_->release(id_, address_, refused_);
    }
}

SharedState::SharedState(NetLimits limits, RequestPolicy policy, std::shared_ptr<PeerHandler> peers,
                         std::shared_ptr<HttpHandler> http,
                         std::function<void(std::string_view)> log)
    : limits_(limits),
      policy_(std::move(policy)),
      peers_(std::move(peers)),
      http_(std::move(http)),
      log_(std::move(log)),
      budget_(OutgoingBudget::of(limits_.max_outgoing_bytes)) {}

void SharedState::log(std::string_view line) const {
    if (log_) {
        try {
            log_(line);
            return;
        } catch (...) {
            // A failing logger must not take a network thread down; fall back to stderr.
        }
    }
    std::fprintf(stderr, "arbiter net: %.*s\n", static_cast<int>(line.size()), line.data());
}

std::optional<ConnectionTicket> SharedState::admit(const std::string& address) {
    {
        std::lock_guard lock(mutex_);
        if (open_.load() >= limits_.max_connections) {
            counters.rejected_total.fetch_add(1);
            return refuse();
        }
        auto& count = per_address_[address];
        if (count >= limits_.max_connections_per_address) {
            if (count == 0) {
                per_address_.erase(address);
            }
            counters.rejected_per_address.fetch_add(1);
            return refuse();
        }
        ++count;
        open_.fetch_add(1);
    }
    return ConnectionTicket(shared_from_this(), next_id(), address, false);
}

std::optional<ConnectionTicket> SharedState::refuse() {
    // A refused connection used to be answered whatever their number, each holding its socket
    // until its request came or the handshake timeout passed: a client over its cap could still
    // hold thousands. Now only a few are answered at a time; the rest are closed at accept.
    if (refusing_ >= kMaxRefusalsAnswering) {
        return std::nullopt;
    }
    ++refusing_;
    return ConnectionTicket(shared_from_this(), next_id(), std::string(), true);
}

void SharedState::release(std::uint64_t id, const std::string& address, bool refused) noexcept {
    std::lock_guard lock(mutex_);
    connections_.erase(id);
    if (refused) {
        --refusing_;
        return;
    }
    if (auto it = per_address_.find(address); it != per_address_.end() && --it->second == 0) {
        per_address_.erase(it);
    }
    open_.fetch_sub(1);
}

void SharedState::track(std::uint64_t id, std::weak_ptr<Connection> connection) {
    std::lock_guard lock(mutex_);
    connections_[id] = std::move(connection);
}

void SharedState::shut_down_all(bool force) {
    std::vector<std::shared_ptr<Connection>> open;
    {
        std::lock_guard lock(mutex_);
        open.reserve(connections_.size());
        for (const auto& [id, weak] : connections_) {
            if (auto connection = weak.lock()) {
                open.push_back(std::move(connection));
            }
        }
    }
    // Outside the lock: shut_down posts to the session's strand, whose handlers may release
    // tickets (which lock mutex_).
    for (const auto& connection : open) {
        connection->shut_down(force);
    }
}

void SharedState::note_queue_bytes(std::size_t bytes) noexcept {
    auto peak = counters.peak_queue_bytes.load(std::memory_order_relaxed);
    while (bytes > peak && !counters.peak_queue_bytes.compare_exchange_weak(
                               peak, bytes, std::memory_order_relaxed)) {
    }
}

bool SharedState::queued(std::size_t bytes) noexcept {
    const auto total = queued_bytes_.fetch_add(bytes) + bytes;
    if (total <= budget_.high_water) {
        return false;
    }
    if (shed_asked_.load(std::memory_order_relaxed) || shed_asked_.exchange(true)) {
        return true;
    }
    if (schedule_shed_) {
        try {
            schedule_shed_();
        } catch (...) {
            shed_asked_.store(false);  // out of memory posting it: the next frame asks again
        }
    }
    return true;
}

std::size_t SharedState::shed() {
    // Cleared first: a frame queued during the scan that finds the total still over asks again.
    shed_asked_.store(false);
    const auto total = queued_bytes_.load();
    if (total <= budget_.high_water) {
        return 0;
    }
    std::vector<QueueHolder> holders;
    std::unordered_map<std::uint64_t, std::shared_ptr<Connection>> by_id;
    {
        std::lock_guard lock(mutex_);
        holders.reserve(connections_.size());
        for (const auto& [id, weak] : connections_) {
            auto connection = weak.lock();
            if (!connection) {
                continue;
            }
            if (auto use = connection->queue_use()) {
                holders.push_back(*use);
                by_id.emplace(use->id, std::move(connection));
            }
        }
    }
    const auto victims = connections_to_shed(holders, total, budget_.low_water);
    // Outside the lock, like shut_down_all: a close posts to the session's strand.
    for (const auto id : victims) {
        by_id.at(id)->shed();
    }
    if (!victims.empty()) {
        log("outgoing memory budget: " + std::to_string(total) + " bytes queued, over " +
            std::to_string(budget_.high_water) + "; closed " + std::to_string(victims.size()) +
            " connection(s)");
    }
    return victims.size();
}

NetStats SharedState::stats() const noexcept {
    NetStats stats;
    stats.slow_consumer_closes = counters.slow_consumer_closes.load();
    stats.dropped_frames = counters.dropped_frames.load();
    stats.too_large_closes = counters.too_large_closes.load();
    stats.binary_closes = counters.binary_closes.load();
    stats.ping_flood_closes = counters.ping_flood_closes.load();
    stats.origin_refusals = counters.origin_refusals.load();
    stats.idle_closes = counters.idle_closes.load();
    stats.rejected_per_address = counters.rejected_per_address.load();
    stats.rejected_total = counters.rejected_total.load();
    stats.handler_errors = counters.handler_errors.load();
    stats.peak_queue_bytes = counters.peak_queue_bytes.load();
    stats.queued_bytes = queued_bytes_.load();
    stats.memory_sheds = counters.memory_sheds.load();
    return stats;
}

}  // namespace arbiter::server::net::detail
