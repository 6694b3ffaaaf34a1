#include "server/cluster/relay.hpp"

#include <algorithm>
#include <utility>

namespace arbiter::server::cluster {

Relay::Relay(bus::Bus& bus, CatchUp& catch_up, Deliver deliver, RelayLimits limits)
    : bus_(bus), catch_up_(catch_up), deliver_(std::move(deliver)), limits_(limits) {}

void Relay::add_viewer(std::string game, ConnectionId viewer, std::uint64_t seen_seq,
                       TimePoint /*now*/) {
    auto [entry, inserted] = games_.try_emplace(std::move(game));
    auto& state = entry->second;
    state.viewers[viewer] = seen_seq;
    if (inserted) {
        state.relayed_seq = seen_seq;
        state.highest_seen = seen_seq;
        // The catch-up waits for on_subscribed: a read before the subscription is live could
        // miss an event published in between.
        bus_.subscribe(game_channel(entry->first));
        return;
    }
    state.highest_seen = std::max(state.highest_seen, seen_seq);
    if (seen_seq != state.relayed_seq) {
        want_catch_up(entry->first, state);
    }
}

void Relay::remove_viewer(std::string_view game, ConnectionId viewer) {
    const auto entry = games_.find(game);
    if (entry == games_.end()) {
        return;
    }
    entry->second.viewers.erase(viewer);
    if (entry->second.viewers.empty()) {
        bus_.unsubscribe(game_channel(entry->first));
        games_.erase(entry);
    }
}

void Relay::on_subscribed(std::string_view game, TimePoint /*now*/) {
    if (const auto entry = games_.find(game); entry != games_.end()) {
        want_catch_up(entry->first, entry->second);
    }
}

void Relay::on_event(const Event& event, TimePoint /*now*/) {
    const auto entry = games_.find(event.game);
    if (entry == games_.end()) {
        return;  // in flight when the last viewer left
    }
    auto& game = entry->second;
    const bool new_owner = note_owner(game, event);
    game.highest_seen = std::max(game.highest_seen, event.seq);
    if (event.seq <= game.relayed_seq) {
        ++counters_.duplicates;
        offer(game, event);  // a viewer behind the others may still need it
    } else if (event.seq == game.relayed_seq + 1) {
        offer(game, event);
        drain(game);
    } else {
        ++counters_.gaps;
        if (game.buffer.size() < limits_.max_buffered_per_game) {
            game.buffer.try_emplace(event.seq, event);
        } else {
            ++counters_.overflowed;
        }
        want_catch_up(entry->first, game);
        return;
    }
    if (new_owner) {
        // What the old owner published last may have been lost in the handover.
        want_catch_up(entry->first, game);
    }
}

void Relay::on_bus_state(bus::BusState state, TimePoint /*now*/) {
    if (state != bus::BusState::reconnected) {
        return;  // while the bus is down nothing arrives; the catch-up comes with `reconnected`
    }
    for (auto& [name, game] : games_) {
        want_catch_up(name, game);
    }
}

void Relay::on_catch_up(std::string_view game_name,
                        Expected<std::vector<Event>, std::string> events, TimePoint now) {
    const auto entry = games_.find(game_name);
    if (entry == games_.end()) {
        return;
    }
    auto& game = entry->second;
    game.catch_up_in_flight = false;
    if (!events) {
        ++counters_.catch_up_failures;
        game.retry_at = now + limits_.catch_up_retry;
        return;
    }
    auto& stored = events.value();
    std::ranges::sort(stored, {}, &Event::seq);
    const auto before = game.relayed_seq;
    for (const auto& event : stored) {
        if (event.game != game_name) {
            continue;
        }
        if (!game.owner || event.owner_epoch > game.owner->epoch) {
            game.owner = Owner{event.owner_node, event.owner_epoch};
        }
        game.highest_seen = std::max(game.highest_seen, event.seq);
        offer(game, event);
    }
    drain(game);
    if (game.catch_up_wanted || behind(game)) {
        // A catch-up that moved nothing is not repeated at once: the database may be behind
        // the bus for a moment (a replica), and asking in a loop would not help it.
        if (game.catch_up_wanted || game.relayed_seq > before) {
            want_catch_up(entry->first, game);
        } else {
            game.retry_at = now + limits_.catch_up_retry;
        }
    }
}

void Relay::tick(TimePoint now) {
    for (auto& [name, game] : games_) {
        if (game.retry_at && *game.retry_at <= now && !game.catch_up_in_flight) {
            want_catch_up(name, game);
        }
    }
}

std::optional<TimePoint> Relay::next_deadline() const {
    std::optional<TimePoint> next;
    for (const auto& [name, game] : games_) {
        if (game.retry_at && !game.catch_up_in_flight && (!next || *game.retry_at < *next)) {
            next = game.retry_at;
        }
    }
    return next;
}

std::optional<Owner> Relay::owner_of(std::string_view game) const {
    const auto entry = games_.find(game);
    return entry == games_.end() ? std::nullopt : entry->second.owner;
}

std::uint64_t Relay::relayed_seq(std::string_view game) const {
    const auto entry = games_.find(game);
    return entry == games_.end() ? 0 : entry->second.relayed_seq;
}

void Relay::offer(Game& game, const Event& event) {
    for (auto& [viewer, seen] : game.viewers) {
        if (seen + 1 == event.seq) {
            deliver_(viewer, event.message);
            seen = event.seq;
            ++counters_.relayed;
        }
    }
    if (event.seq == game.relayed_seq + 1) {
        game.relayed_seq = event.seq;
    }
}

void Relay::drain(Game& game) {
    while (!game.buffer.empty() && game.buffer.begin()->first <= game.relayed_seq + 1) {
        auto node = game.buffer.extract(game.buffer.begin());
        offer(game, node.mapped());
    }
}

void Relay::want_catch_up(const std::string& name, Game& game) {
    if (game.catch_up_in_flight) {
        game.catch_up_wanted = true;
        return;
    }
    std::uint64_t after = game.relayed_seq;
    for (const auto& [viewer, seen] : game.viewers) {
        after = std::min(after, seen);
    }
    game.catch_up_in_flight = true;
    game.catch_up_wanted = false;
    game.retry_at.reset();
    ++counters_.catch_ups;
    catch_up_.request(name, after);
}

bool Relay::behind(const Game& game) {
    return game.relayed_seq < game.highest_seen || !game.buffer.empty() ||
           std::ranges::any_of(game.viewers, [&game](const auto& viewer) {
               return viewer.second < game.relayed_seq;
           });
}

bool Relay::note_owner(Game& game, const Event& event) {
    if (game.owner && event.owner_epoch <= game.owner->epoch) {
        return false;
    }
    const bool changed = game.owner.has_value();
    game.owner = Owner{event.owner_node, event.owner_epoch};
    if (changed) {
        ++counters_.epoch_changes;
    }
    return changed;
}

}  // namespace arbiter::server::cluster
