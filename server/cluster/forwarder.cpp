#include "server/cluster/forwarder.hpp"

#include <algorithm>
#include <utility>

#include "common/protocol/codec.hpp"

namespace arbiter::server::cluster {

Forwarder::Forwarder(std::string self_node, bus::Bus& bus, OwnershipLookup& ownership,
                     Deliver deliver, ForwarderLimits limits, std::uint64_t first_attempt)
    : self_(std::move(self_node)),
      bus_(bus),
      ownership_(ownership),
      deliver_(std::move(deliver)),
      limits_(limits),
      next_attempt_(first_attempt) {}

Expected<std::uint64_t, ForwardError> Forwarder::forward(const protocol::ClientMessage& message,
                                                         std::string game, ConnectionId connection,
                                                         TimePoint now) {
    if (!valid_id(game)) {
        ++counters_.refused;
        return unexpected(ForwardError{protocol::ErrorCode::unknown_game, "no such game"});
    }
    auto encoded = protocol::encode(message);
    if (encoded.size() > kMaxMessageBytes) {
        ++counters_.refused;
        return unexpected(ForwardError{protocol::ErrorCode::too_large, "the message is too large"});
    }
    auto& of_connection = per_connection_[connection];
    if (of_connection >= limits_.max_pending_per_connection) {
        ++counters_.refused;
        return unexpected(ForwardError{protocol::ErrorCode::rate_limited,
                                       "too many requests waiting for the game's server"});
    }
    if (pending_.size() >= limits_.max_pending) {
        if (of_connection == 0) {
            per_connection_.erase(connection);
        }
        ++counters_.refused;
        return unexpected(
            ForwardError{protocol::ErrorCode::unavailable, "the server is busy: try again"});
    }
    ++of_connection;
    ++per_game_[game];
    ++counters_.forwarded;
    const auto attempt = next_attempt_++;
    auto& pending = pending_[attempt];
    pending.connection = connection;
    pending.game = std::move(game);
    pending.message = std::move(encoded);
    pending.request_id = message.id;
    pending.acked_by_event = std::holds_alternative<protocol::MoveRequest>(message.body);
    send(attempt, pending, ownership_.owner_of(pending.game), now);
    return attempt;
}

void Forwarder::send(std::uint64_t attempt, Pending& pending, std::optional<Owner> target,
                     TimePoint now) {
    ++pending.attempts;
    pending.timeout = pending.attempts == 1 ? limits_.first_timeout
                                            : std::min(pending.timeout * 2, limits_.max_timeout);
    pending.deadline = now + pending.timeout;
    pending.target = std::move(target);
    if (!pending.target || !valid_id(pending.target->node)) {
        pending.target.reset();
        return;
    }
    bus_.publish(inbox_channel(pending.target->node),
                 encode(Intent{self_, pending.connection, attempt, pending.game, pending.message}));
}

void Forwarder::settle(std::map<std::uint64_t, Pending>::iterator entry) {
    const auto connection = entry->second.connection;
    if (auto count = per_game_.find(entry->second.game);
        count != per_game_.end() && --count->second == 0) {
        per_game_.erase(count);
    }
    pending_.erase(entry);
    if (auto count = per_connection_.find(connection);
        count != per_connection_.end() && --count->second == 0) {
        per_connection_.erase(count);
    }
}

std::optional<Owner> Forwarder::newer(std::optional<Owner> lookup, std::optional<Owner> hint) {
    if (hint && valid_id(hint->node) && (!lookup || hint->epoch > lookup->epoch)) {
        return hint;
    }
    return lookup;
}

void Forwarder::on_answer(const Answer& answer, TimePoint now) {
    const auto entry = pending_.find(answer.attempt);
    if (entry == pending_.end() || entry->second.connection != answer.connection ||
        entry->second.game != answer.game) {
        ++counters_.late_answers;
        return;
    }
    auto& pending = entry->second;
    switch (answer.kind) {
        case AnswerKind::replied:
            ++counters_.answered;
            for (const auto& message : answer.messages) {
                deliver_(pending.connection, message);
            }
            settle(entry);
            return;
        case AnswerKind::not_owner: {
            auto owner = newer(ownership_.owner_of(pending.game),
                               Owner{answer.owner_node, answer.owner_epoch});
            // Nobody better known than the node that just said no: wait for the timeout, when
            // the lookup may know more, rather than bounce between the two at once.
            if (!owner || owner->node == answer.from_node ||
                (pending.target && owner->epoch <= pending.target->epoch) ||
                pending.attempts >= limits_.max_attempts) {
                return;
            }
            ++counters_.rerouted;
            send(entry->first, pending, std::move(owner), now);
            return;
        }
    }
}

void Forwarder::on_event(const Event& event, TimePoint now) {
    if (event.cause_node == self_) {
        const auto entry = pending_.find(event.cause_attempt);
        if (entry != pending_.end() && entry->second.game == event.game &&
            entry->second.acked_by_event) {
            // The answer did not come (yet): the event is the same message, and the requester's
            // copy carries its request id.
            const auto& id = entry->second.request_id;
            const bool splice = id && event.message.size() > 2 && event.message.front() == '{';
            deliver_(entry->second.connection,
                     splice ? protocol::requester_copy(event.message, *id) : event.message);
            ++counters_.settled_by_event;
            settle(entry);
        }
    }
    if (valid_id(event.owner_node)) {
        on_owner_changed(event.game, Owner{event.owner_node, event.owner_epoch}, now);
    }
}

void Forwarder::on_owner_changed(std::string_view game, const Owner& owner, TimePoint now) {
    if (!per_game_.contains(game)) {
        return;  // the usual case, on every relayed event: nothing of this game is pending
    }
    for (auto& [attempt, pending] : pending_) {
        if (pending.game != game || pending.attempts >= limits_.max_attempts ||
            (pending.target && pending.target->epoch >= owner.epoch)) {
            continue;
        }
        if (pending.target && pending.target->node == owner.node) {
            pending.target->epoch = owner.epoch;  // the same node, re-elected: it has the intent
            continue;
        }
        ++counters_.rerouted;
        send(attempt, pending, owner, now);
    }
}

void Forwarder::on_reconnected(TimePoint now) {
    for (auto& [attempt, pending] : pending_) {
        if (pending.attempts >= limits_.max_attempts) {
            continue;  // its last wait runs out as it is
        }
        ++counters_.retried;
        send(attempt, pending, newer(ownership_.owner_of(pending.game), pending.target), now);
    }
}

void Forwarder::tick(TimePoint now) {
    for (auto entry = pending_.begin(); entry != pending_.end();) {
        auto& pending = entry->second;
        if (pending.deadline > now) {
            ++entry;
            continue;
        }
        if (pending.attempts >= limits_.max_attempts) {
            ++counters_.gave_up;
            deliver_(pending.connection,
                     protocol::encode_error(protocol::ErrorCode::unavailable,
                                            "the game's server did not answer: try again",
                                            pending.request_id));
            settle(entry++);
            continue;
        }
        // The lookup may lag behind what an answer or an event told: the newer epoch wins.
        auto owner = newer(ownership_.owner_of(pending.game), pending.target);
        if (owner && pending.target && owner->node != pending.target->node) {
            ++counters_.rerouted;
        } else {
            ++counters_.retried;
        }
        send(entry->first, pending, std::move(owner), now);
        ++entry;
    }
}

std::optional<TimePoint> Forwarder::next_deadline() const {
    std::optional<TimePoint> next;
    for (const auto& [attempt, pending] : pending_) {
        if (!next || pending.deadline < *next) {
            next = pending.deadline;
        }
    }
    return next;
}

void Forwarder::drop_connection(ConnectionId connection) {
    for (auto entry = pending_.begin(); entry != pending_.end();) {
        if (entry->second.connection == connection) {
            settle(entry++);
        } else {
            ++entry;
        }
    }
}

}  // namespace arbiter::server::cluster
