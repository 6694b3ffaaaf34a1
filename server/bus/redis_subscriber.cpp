#include "server/bus/redis_subscriber.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace arbiter::server::bus::detail {
namespace {

std::string_view text_of(const redisReply& reply) {
    return {reply.str, reply.len};
}

bool is_text(const redisReply& reply) {
    return reply.type == REDIS_REPLY_STRING || reply.type == REDIS_REPLY_STATUS;
}

}  // namespace

RedisSubscriber::RedisSubscriber(RedisAddress address, const RedisBusOptions& options,
                                 BusHandlers handlers, AtomicBusCounters& counters,
                                 const RedisPublisher& publisher, const Waker& waker)
    : address_(std::move(address)),
      options_(options),
      handlers_(std::move(handlers)),
      counters_(counters),
      publisher_(publisher),
      waker_(waker),
      thread_([this] { run(); }) {}

RedisSubscriber::~RedisSubscriber() {
    stopping_.store(true);
    waker_.notify();
    thread_.join();
}

void RedisSubscriber::request(bool subscribe, std::string channel) {
    {
        const std::lock_guard lock(mutex_);
        requests_.push_back({subscribe, std::move(channel)});
    }
    waker_.notify();
}

void RedisSubscriber::run() {
    block_sigpipe_on_this_thread();
    Backoff backoff(options_.first_retry, options_.max_retry);
    Clock::time_point next_attempt{};
    while (!stopping_.load()) {
        if (!context_) {
            // A request wakes the thread early; it must not bring the next attempt forward.
            const auto now = Clock::now();
            if (now >= next_attempt && connect_and_resubscribe()) {
                backoff.reset();
            } else {
                if (now >= next_attempt) {
                    next_attempt = now + backoff.next();
                }
                apply_requests();  // keeps wanted_ current while Redis is away
                report_state();
                wait_for(waker_, -1,
                         std::chrono::ceil<std::chrono::milliseconds>(next_attempt - now));
                continue;
            }
        }
        report_state();
        const Woken woken = wait_for(waker_, context_->fd, wait_limit());
        if (woken.readable) {
            if (redisBufferRead(context_.get()) != REDIS_OK) {
                lose_connection();
                continue;
            }
            last_heard_ = Clock::now();
            ping_sent_.reset();
        }
        // Requests before replies: a message published after unsubscribe() returned is read
        // after the request was queued, so it finds its channel already gone from wanted_.
        if (!apply_requests() || !dispatch_replies() || !keep_alive()) {
            lose_connection();
        }
    }
}

bool RedisSubscriber::connect_and_resubscribe() {
    context_ = connect(address_, options_.connect_timeout, options_.io_timeout);
    if (!context_) {
        return false;
    }
    last_heard_ = Clock::now();
    ping_sent_.reset();
    resubscribing_ = wanted_;
    if (wanted_.empty()) {
        return true;
    }
    std::vector<std::string_view> command{"SUBSCRIBE"};
    command.insert(command.end(), wanted_.begin(), wanted_.end());
    if (!append_command(*context_, command) || !flush(*context_)) {
        lose_connection();
        return false;
    }
    return true;
}

bool RedisSubscriber::apply_requests() {
    std::vector<Request> requests;
    {
        const std::lock_guard lock(mutex_);
        requests.swap(requests_);
    }
    for (auto& request : requests) {
        if (request.subscribe) {
            wanted_.insert(request.channel);
            to_confirm_.insert(request.channel);
        } else {
            wanted_.erase(request.channel);
            to_confirm_.erase(request.channel);
            resubscribing_.erase(request.channel);
        }
        if (context_) {
            const std::array<std::string_view, 2> command{
                request.subscribe ? "SUBSCRIBE" : "UNSUBSCRIBE", request.channel};
            if (!append_command(*context_, command)) {
                return false;
            }
        }
    }
    return !context_ || requests.empty() || flush(*context_);
}

bool RedisSubscriber::dispatch_replies() {
    for (;;) {
        void* reply = nullptr;
        if (redisGetReplyFromReader(context_.get(), &reply) != REDIS_OK) {
            return false;
        }
        if (reply == nullptr) {
            return true;
        }
        const bool understood = handle(*static_cast<redisReply*>(reply));
        freeReplyObject(reply);
        if (!understood) {
            return false;
        }
    }
}

bool RedisSubscriber::handle(const redisReply& reply) {
    // A PING outside subscribe mode (no channel wanted) answers +PONG.
    if (reply.type == REDIS_REPLY_STATUS) {
        return true;
    }
    if (reply.type != REDIS_REPLY_ARRAY || reply.elements < 2 || !is_text(*reply.element[0])) {
        return false;  // an error reply (a Redis that wants a password, say), or not RESP2 pub/sub
    }
    const std::string_view kind = text_of(*reply.element[0]);
    if (kind == "message" && reply.elements == 3 && is_text(*reply.element[1]) &&
        is_text(*reply.element[2])) {
        const std::string channel(text_of(*reply.element[1]));
        if (wanted_.contains(channel)) {
            counters_.received();
            if (handlers_.on_message) {
                handlers_.on_message(channel, text_of(*reply.element[2]));
            }
        }
        return true;
    }
    if (kind == "subscribe" && is_text(*reply.element[1])) {
        const std::string channel(text_of(*reply.element[1]));
        resubscribing_.erase(channel);
        if (to_confirm_.erase(channel) != 0 && handlers_.on_subscribed) {
            handlers_.on_subscribed(channel);
        }
        return true;
    }
    return kind == "unsubscribe" || kind == "pong";
}

bool RedisSubscriber::keep_alive() {
    const auto now = Clock::now();
    if (ping_sent_) {
        return now - *ping_sent_ < options_.ping_after;
    }
    if (now - last_heard_ >= options_.ping_after) {
        const std::array<std::string_view, 1> command{"PING"};
        ping_sent_ = now;
        return append_command(*context_, command) && flush(*context_);
    }
    return true;
}

std::optional<std::chrono::milliseconds> RedisSubscriber::wait_limit() const {
    const auto due =
        ping_sent_ ? *ping_sent_ + options_.ping_after : last_heard_ + options_.ping_after;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
    return std::max(left, std::chrono::milliseconds{1});
}

void RedisSubscriber::lose_connection() {
    context_.reset();
    ping_sent_.reset();
    resubscribing_.clear();
    report_state();
}

void RedisSubscriber::report_state() {
    const bool up = context_ && resubscribing_.empty() && publisher_.up();
    if (up == reported_up_) {
        return;
    }
    reported_up_ = up;
    BusState state = BusState::disconnected;
    if (up) {
        state = ever_up_ ? BusState::reconnected : BusState::connected;
        if (ever_up_) {
            counters_.reconnected();
        }
        ever_up_ = true;
    }
    if (handlers_.on_state) {
        handlers_.on_state(state);
    }
}

}  // namespace arbiter::server::bus::detail
