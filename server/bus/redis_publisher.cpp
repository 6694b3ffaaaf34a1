#include "server/bus/redis_publisher.hpp"

#include <hiredis/hiredis.h>

#include <array>
#include <string_view>
#include <utility>

namespace arbiter::server::bus::detail {

RedisPublisher::RedisPublisher(RedisAddress address, const RedisBusOptions& options,
                               AtomicBusCounters& counters, std::function<void()> link_changed)
    : address_(std::move(address)),
      options_(options),
      counters_(counters),
      link_changed_(std::move(link_changed)),
      thread_([this] { run(); }) {}

RedisPublisher::~RedisPublisher() {
    stop();
}

void RedisPublisher::stop() {
    if (thread_.joinable()) {
        stopping_.store(true);
        waker_.notify();
        thread_.join();
    }
}

void RedisPublisher::publish(std::string channel, std::string bytes) {
    if (!up()) {
        counters_.dropped();
        return;
    }
    bool was_empty = false;
    {
        const std::lock_guard lock(mutex_);
        const std::size_t size = channel.size() + bytes.size();
        if (queued_bytes_ + size > options_.max_queued_bytes) {
            counters_.dropped();
            return;
        }
        was_empty = queue_.empty();
        queued_bytes_ += size;
        queue_.push_back({std::move(channel), std::move(bytes)});
    }
    // The thread takes the whole queue at once: only the first message of a batch must wake it.
    if (was_empty) {
        waker_.notify();
    }
}

void RedisPublisher::run() {
    block_sigpipe_on_this_thread();
    Backoff backoff(options_.first_retry, options_.max_retry);
    std::vector<Message> batch;
    while (!stopping_.load()) {
        if (!context_) {
            context_ = connect(address_, options_.connect_timeout, options_.io_timeout);
            if (!context_) {
                wait_for(waker_, -1, backoff.next());
                continue;
            }
            backoff.reset();
            set_up(true);
        }
        {
            const std::lock_guard lock(mutex_);
            batch.swap(queue_);
            queued_bytes_ = 0;
        }
        if (batch.empty()) {
            // Redis sends nothing unasked on this connection: readable means it closed.
            if (wait_for(waker_, context_->fd, std::nullopt).readable) {
                lose_connection();
            }
            continue;
        }
        if (!send(batch)) {
            lose_connection();
        }
        batch.clear();
    }
}

bool RedisPublisher::send(const std::vector<Message>& batch) {
    for (const auto& message : batch) {
        const std::array<std::string_view, 3> command{"PUBLISH", message.channel, message.bytes};
        if (!append_command(*context_, command)) {
            counters_.dropped(batch.size());
            return false;
        }
    }
    std::size_t confirmed = 0;
    for (; confirmed < batch.size(); ++confirmed) {
        void* reply = nullptr;
        if (redisGetReply(context_.get(), &reply) != REDIS_OK || reply == nullptr) {
            counters_.dropped(batch.size() - confirmed);
            return false;
        }
        const bool refused = static_cast<redisReply*>(reply)->type == REDIS_REPLY_ERROR;
        freeReplyObject(reply);
        if (refused) {
            counters_.dropped();
        } else {
            counters_.published();
        }
    }
    return true;
}

void RedisPublisher::lose_connection() {
    context_.reset();
    set_up(false);
    std::size_t lost = 0;
    {
        const std::lock_guard lock(mutex_);
        lost = queue_.size();
        queue_.clear();
        queued_bytes_ = 0;
    }
    counters_.dropped(lost);
}

void RedisPublisher::set_up(bool up) {
    if (up_.exchange(up, std::memory_order_acq_rel) != up && link_changed_) {
        link_changed_();
    }
}

}  // namespace arbiter::server::bus::detail
