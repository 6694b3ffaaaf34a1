#include "server/app/rating_book.hpp"

namespace arbiter::server::app {

namespace {

protocol::RatingChange change_of(const glicko2::Rating& before, const glicko2::Rating& after) {
    const int shown_before = shown(before.rating);
    const int shown_after = shown(after.rating);
    return protocol::RatingChange{shown_before, shown_after, shown_after - shown_before,
                                  provisional(after)};
}

// A stored row's pool and entry; nullopt for a speed this server does not rate.
std::optional<std::pair<Perf, PoolRating>> entry_of(const storage::RatingRow& row) {
    const auto speed = parse_rated_speed(row.speed);
    if (!speed) {
        return std::nullopt;
    }
    return std::pair(Perf{row.variant, *speed},
                     PoolRating{glicko2::Rating{row.rating, row.deviation, row.volatility},
                                row.games, row.updated_ms});
}

}  // namespace

storage::RatingsSettled Settlement::stored() const {
    storage::RatingsSettled settled;
    settled.variant = perf.variant;
    settled.speed = std::string(to_string(perf.speed));
    settled.at_ms = at_ms;
    for (std::size_t i = 0; i < 2; ++i) {
        const glicko2::Rating& rating = after[i].rating;
        settled.seats[i] =
            storage::RatingUpdate{users[i],
                                  rating.rating,
                                  rating.deviation,
                                  rating.volatility,
                                  app::shown(rating.rating) - app::shown(before[i].rating),
                                  app::provisional(rating),
                                  previous[i] ? previous[i]->games : 0};
    }
    return settled;
}

protocol::EndRatings Settlement::shown() const {
    return protocol::EndRatings{change_of(before[0], after[0].rating),
                                change_of(before[1], after[1].rating)};
}

void RatingBook::load(const std::vector<storage::RatingRow>& rows) {
    std::lock_guard lock(mutex_);
    for (const auto& row : rows) {
        if (auto entry = entry_of(row)) {
            entries_[key_of(row.user_id, entry->first)] = entry->second;
        }
    }
}

std::optional<PoolRating> RatingBook::entry(std::int64_t user, Perf perf) const {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(key_of(user, perf));
    if (found == entries_.end()) {
        return std::nullopt;
    }
    return found->second;
}

bool RatingBook::apply(std::int64_t user, Perf perf, const PoolRating& rating) {
    std::lock_guard lock(mutex_);
    auto [found, inserted] = entries_.try_emplace(key_of(user, perf), rating);
    if (inserted) {
        return true;
    }
    const PoolRating& held = found->second;
    if (rating.games > held.games ||
        (rating.games == held.games && rating.updated_ms > held.updated_ms)) {
        found->second = rating;
        return true;
    }
    return false;
}

bool RatingBook::refresh(const std::array<std::int64_t, 2>& users, Perf perf) {
    if (!source_) {
        return false;
    }
    for (const std::int64_t user : users) {
        auto rows = source_(user);
        if (!rows) {
            return false;
        }
        std::optional<PoolRating> stored;
        for (const auto& row : *rows) {
            if (auto entry = entry_of(row); entry && entry->first == perf) {
                stored = entry->second;
            }
        }
        std::lock_guard lock(mutex_);
        if (stored) {
            entries_[key_of(user, perf)] = *stored;
        } else {
            entries_.erase(key_of(user, perf));
        }
    }
    return true;
}

void RatingBook::merge(const std::vector<storage::RatingRow>& rows) {
    std::lock_guard lock(mutex_);
    for (const auto& row : rows) {
        const auto entry = entry_of(row);
        if (!entry) {
            continue;
        }
        const PoolRating& stored = entry->second;
        auto [found, inserted] = entries_.try_emplace(key_of(row.user_id, entry->first), stored);
        if (!inserted && found->second.games <= stored.games) {
            found->second = stored;
        }
    }
}

glicko2::Rating RatingBook::current_locked(std::int64_t user, Perf perf,
                                           std::int64_t now_ms) const {
    const auto found = entries_.find(key_of(user, perf));
    if (found == entries_.end()) {
        return config_.initial;
    }
    return rating_at(found->second.rating, found->second.updated_ms, now_ms, config_);
}

glicko2::Rating RatingBook::current(std::int64_t user, Perf perf, std::int64_t now_ms) const {
    std::lock_guard lock(mutex_);
    return current_locked(user, perf, now_ms);
}

protocol::PlayerRating RatingBook::shown(std::int64_t user, Perf perf, std::int64_t now_ms) const {
    const glicko2::Rating rating = current(user, perf, now_ms);
    return protocol::PlayerRating{app::shown(rating.rating), provisional(rating)};
}

Settlement RatingBook::settle(std::array<std::int64_t, 2> users, Perf perf, rules::Outcome result,
                              std::int64_t now_ms) {
    const double first_score = result == rules::Outcome::first_wins    ? 1.0
                               : result == rules::Outcome::second_wins ? 0.0
                                                                       : 0.5;
    Settlement settlement;
    settlement.perf = perf;
    settlement.at_ms = now_ms;
    settlement.users = users;
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < 2; ++i) {
        settlement.before[i] = current_locked(users[i], perf, now_ms);
        const auto found = entries_.find(key_of(users[i], perf));
        if (found != entries_.end()) {
            settlement.previous[i] = found->second;
        }
    }
    for (std::size_t i = 0; i < 2; ++i) {
        const glicko2::GameResult game{settlement.before[1 - i],
                                       i == 0 ? first_score : 1.0 - first_score};
        const std::int64_t games = settlement.previous[i] ? settlement.previous[i]->games : 0;
        settlement.after[i] = PoolRating{
            glicko2::rate(settlement.before[i], std::span(&game, 1), config_), games + 1, now_ms};
    }
    for (std::size_t i = 0; i < 2; ++i) {
        entries_[key_of(users[i], perf)] = settlement.after[i];
    }
    return settlement;
}

void RatingBook::undo(const Settlement& settlement) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < 2; ++i) {
        const auto found = entries_.find(key_of(settlement.users[i], settlement.perf));
        if (found == entries_.end() || !(found->second == settlement.after[i])) {
            continue;  // settled again since: that result stands
        }
        if (settlement.previous[i]) {
            found->second = *settlement.previous[i];
        } else {
            entries_.erase(found);
        }
    }
}

}  // namespace arbiter::server::app
