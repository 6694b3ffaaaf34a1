// The table: construction, the command dispatch, apply and discard, and the clocks. Moves and
// endings are in table_play.cpp, offers in table_offers.cpp, seats and engines in
// table_seats.cpp, the views in table_views.cpp.
#include "server/app/table.hpp"

#include <algorithm>
#include <utility>

#include "common/core/overloaded.hpp"
#include "server/app/seats.hpp"

namespace arbiter::server::app {

using protocol::ErrorCode;
using protocol::GameStatus;
using rules::Side;

Table::Table(const storage::GameRow& header, std::unique_ptr<rules::Game> game, TableConfig config)
    : config_(std::move(config)),
      id_(header.id),
      variant_(header.variant),
      initial_position_(header.initial_position),
      is_private_(header.is_private),
      rated_(header.rated),
      rating_range_(header.rating_range),
      control_(time_control_of(header)),
      created_ms_(header.created_ms),
      updated_ms_(header.updated_ms),
      rematch_of_(header.rematch_of),
      rematch_next_(header.rematch_next),
      status_(header.status),
      result_(header.result),
      reason_(header.reason),
      seq_(header.seq),
      game_(std::move(game)),
      offers_(header.offers) {
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& row = header.seats[i];
        seats_[i] = TableSeat{row.name, row.token_hash, row.engine, row.engine_level, false,
                              {},       row.user_id,    row.rating};
    }
    if (control_) {
        clock_.emplace(*control_);
        const LagQuota quota = LagQuota::for_clock(*control_);
        lag_ = {LagTracker(quota), LagTracker(quota)};
    }
}

Table Table::open(const storage::GameRow& header, std::unique_ptr<rules::Game> game,
                  TableConfig config) {
    return Table(header, std::move(game), std::move(config));
}

Expected<Table, std::string> Table::restore(storage::StoredGame stored, TableConfig config,
                                            Instant now) {
    auto game = rules::make_game(stored.header.variant, stored.header.initial_position);
    if (!game) {
        return unexpected("stored start position refused: " + game.error().message);
    }
    Table table(stored.header, std::move(game).value(), std::move(config));
    table.plies_.reserve(stored.moves.size());
    for (auto& row : stored.moves) {
        const Side mover = table.game_->turn();
        auto played = table.game_->play(row.move);
        if (!played) {
            return unexpected("stored move " + std::to_string(row.ply) + " " + row.move +
                              " refused: " + played.error().message);
        }
        Clocks clocks = table.clocks_before(table.ply());
        if (row.clock_ms) {
            clocks[seat_index(mover)] = *row.clock_ms;
        }
        // The stored notation and position, not the ones just made again: the record keeps what
        // was sent (and a restore writes no FEN per ply).
        table.plies_.push_back({std::move(row.notation), clocks, row.seq, row.lag_ms.value_or(0),
                                std::move(row.position)});
    }
    if (table.clock_) {
        Clocks clocks = stored.header.clock_ms;
        const auto& parked = stored.header.parked_flag;
        // The deadline holds while no later event stored newer clocks (ParkedFlag). The clock of
        // the side to move ran while the game was out of memory: what is left is the time to the
        // deadline, and none once it passed (start() then flags it at once).
        if (parked && parked->seq == table.seq_ && table.status_ == GameStatus::playing &&
            table.ply() >= 2) {
            auto& mover = clocks[seat_index(table.turn())];
            mover = std::clamp<std::int64_t>(parked->at_ms - now.unix_ms, 0, mover);
        }
        table.clock_->set(clocks);
    }
    table.rebuild_lag();
    for (auto& row : stored.chat) {
        table.chat_.push_back({protocol::ChatLine{row.seq, row.room, std::move(row.from),
                                                  std::move(row.text), row.at_ms},
                               row.seat});
    }
    while (table.chat_.size() > kKeptChat) {
        table.chat_.pop_front();
    }
    if (table.status_ == GameStatus::playing || table.status_ == GameStatus::waiting) {
        // Nobody is connected after a restart: the claim window (or, for a game still waiting
        // for an opponent, its creator's time to come back) opens a full timeout from now.
        table.seats_[0].away_since = now.steady;
        table.seats_[1].away_since = now.steady;
    }
    return table;
}

// ---- decide, apply, discard ---------------------------------------------------------------

Expected<Decision, Refusal> Table::decide(TableCommand command, Instant now) {
    ARBITER_ASSERT(!pending_);
    Verdict verdict = std::visit(
        Overloaded{
            [&](const command::Create&) { return on_create(); },
            [&](const command::Start&) { return on_start(now); },
            [&](const command::Join& join) { return on_join(join, now); },
            [&](const command::Move& move) { return on_move(move, now); },
            [&](const command::Resign& resign) { return on_resign(resign, now); },
            [&](const command::Offer& offer) { return on_offer(offer, now); },
            [&](const command::Abort& abort) { return on_abort(abort, now); },
            [&](const command::Claim& claim) { return on_claim(claim, now); },
            [&](const command::Presence& presence) { return on_presence(presence, now); },
            [&](const command::FlagFall&) { return on_flag_fall(now); },
            [&](const command::AbandonCheck&) { return on_abandon_check(now); },
            [&](const command::EngineMove& move) { return on_engine_move(move, now); },
            [&](const command::EngineFailure& failure) { return on_engine_failure(failure, now); },
            [&](const command::Chat& chat) { return on_chat(chat, now); },
        },
        command);
    pending_ = verdict.has_value();
    return verdict;
}

void Table::apply(Decision& decision, Instant now) {
    ARBITER_ASSERT(pending_);
    pending_ = false;
    Decision::Change change = std::exchange(decision.change_, Decision::Unchanged{});
    std::visit(Overloaded{
                   [&](Decision::Unchanged&) {},
                   [&](Decision::TurnStarts&) { start_turn(now.steady); },
                   [&](Decision::Seated& seated) {
                       auto& seat = seats_[seat_index(seated.side)];
                       seat.name = std::move(seated.name);
                       seat.token_hash = std::move(seated.token_hash);
                       seat.user_id = seated.user_id;
                       seat.rating = seated.rating;
                       status_ = GameStatus::playing;
                       seq_ = decision.seq_;
                       updated_ms_ = decision.updated_ms_;
                       start_turn(now.steady);
                   },
                   [&](Decision::Played& played) {
                       if (clock_) {
                           clock_->set(played.record.clocks);
                           clock_->stop();
                       }
                       if (played.timed) {
                           LagTracker& lag = lag_[seat_index(played.mover)];
                           lag = lag.after(played.record.lag_ms, played.round_trip_ms);
                       }
                       plies_.push_back(std::move(played.record));
                       offers_.clear();  // open draw and takeback offers lapse with a move
                       seq_ = decision.seq_;
                       updated_ms_ = decision.updated_ms_;
                       if (played.ending) {
                           status_ = played.ending->status;
                           result_ = played.ending->result;
                           reason_ = played.ending->reason;
                       } else {
                           start_turn(now.steady);
                       }
                   },
                   [&](Decision::Ended& ended) {
                       status_ = ended.ending.status;
                       result_ = ended.ending.result;
                       reason_ = ended.ending.reason;
                       offers_.clear();  // a rematch may be offered from here on
                       seq_ = decision.seq_;
                       updated_ms_ = decision.updated_ms_;
                       if (clock_) {
                           clock_->set(ended.clocks);
                           clock_->stop();
                       }
                   },
                   [&](Decision::OffersChanged& changed) {
                       offers_ = std::move(changed.offers);
                       seq_ = decision.seq_;
                   },
                   [&](Decision::TakenBack& taken) {
                       game_ = std::move(taken.game);
                       plies_.resize(taken.to_ply);
                       rebuild_lag();
                       offers_.clear();
                       seq_ = decision.seq_;
                       updated_ms_ = decision.updated_ms_;
                       if (clock_) {
                           clock_->set(clocks_before(taken.to_ply));
                       }
                       start_turn(now.steady);
                   },
                   [&](Decision::Rematched& rematched) {
                       rematch_next_ = std::move(rematched.next);
                       offers_.clear();
                       seq_ = decision.seq_;
                   },
                   [&](Decision::EventOnly&) { seq_ = decision.seq_; },
                   [&](Decision::ChatPosted& posted) {
                       seq_ = decision.seq_;
                       chat_.push_back(std::move(posted.chat));
                       if (chat_.size() > kKeptChat) {
                           chat_.pop_front();
                       }
                   },
               },
               change);
}

void Table::discard(Decision& decision) {
    ARBITER_ASSERT(pending_);
    pending_ = false;
    if (std::holds_alternative<Decision::Played>(decision.change_)) {
        // The move was played on the table's game in decide(): it goes back without it.
        if (auto game = replayed(ply())) {
            game_ = std::move(game);
        }
    }
    decision.change_ = Decision::Unchanged{};
}

// ---- clocks -------------------------------------------------------------------------------

void Table::start_turn(TimePoint now) {
    turn_since_ = now;
    if (clock_ && status_ == GameStatus::playing) {
        // Clocks start after each side's first move: the first two plies are not charged.
        clock_->start_turn(turn(), now, ply() >= 2);
    }
}

const LagTracker& Table::lag(Side side) const noexcept {
    return lag_[seat_index(side)];
}

Clocks Table::clocks_at(TimePoint now) const {
    return clock_ ? clock_->at(now) : Clocks{0, 0};
}

Clocks Table::clocks_before(std::uint32_t ply) const {
    if (ply > 0) {
        return plies_[ply - 1].clocks;
    }
    return control_ ? Clocks{control_->initial_ms, control_->initial_ms} : Clocks{0, 0};
}

std::optional<protocol::ClockState> Table::reading(const Clocks& clocks, bool running) const {
    if (!control_) {
        return std::nullopt;
    }
    return protocol::ClockState{clocks[0], clocks[1], running};
}

std::optional<Table::TimePoint> Table::flag_falls_at() const {
    if (!clock_ || status_ != GameStatus::playing) {
        return std::nullopt;
    }
    return clock_->flag_falls_at(flag_grace_ms());
}

std::int64_t Table::flag_grace_ms() const {
    return clock_ && clock_->running() ? lag_[seat_index(turn())].flag_grace_ms() : 0;
}

void Table::rebuild_lag() {
    if (!control_) {
        return;
    }
    // The quota is a function of the credits of the timed moves, each side's from its second move
    // on (the first two plies are not timed); the round trips are not stored, so the flag grace
    // waits for each side's next move.
    const LagQuota quota = LagQuota::for_clock(*control_);
    std::array<LagTracker, 2> rebuilt{LagTracker(quota), LagTracker(quota)};
    const std::uint32_t plies = ply();
    for (std::uint32_t index = 2; index < plies; ++index) {
        const Side mover = (plies - index) % 2 != 0 ? rules::opponent(turn()) : turn();
        LagTracker& lag = rebuilt[seat_index(mover)];
        lag = lag.after(plies_[index].lag_ms, std::nullopt);
    }
    lag_ = rebuilt;
}

std::optional<storage::StoreClocks> Table::clocks_to_store(Instant now) const {
    if (status_ != GameStatus::playing || !clock_ || !clock_->running()) {
        return std::nullopt;
    }
    return storage::StoreClocks{id_, clock_->at(now.steady), now.unix_ms};
}

std::optional<storage::StoreClocks> Table::clocks_to_park(Instant now) const {
    auto clocks = clocks_to_store(now);
    const auto flag = flag_falls_at();
    if (!clocks || !flag) {
        return std::nullopt;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*flag - now.steady);
    clocks->parked_flag =
        storage::ParkedFlag{now.unix_ms + std::max<std::int64_t>(left.count(), 0), seq_};
    return clocks;
}

std::unique_ptr<rules::Game> Table::replayed(std::uint32_t plies) const {
    auto rebuilt = rules::make_game(variant_, initial_position_);
    if (!rebuilt) {
        return nullptr;
    }
    std::unique_ptr<rules::Game> game = std::move(rebuilt).value();
    for (std::uint32_t i = 0; i < plies; ++i) {
        if (!game->play(game_->moves()[i])) {
            return nullptr;
        }
    }
    return game;
}

}  // namespace arbiter::server::app
