// The table: what members and listings see of it, and its header as a storage row.
#include "server/app/seats.hpp"
#include "server/app/table.hpp"

namespace arbiter::server::app {

using protocol::GameStatus;
using rules::Side;

std::optional<protocol::PlayerInfo> Table::player(Side side) const {
    const auto& seat = seats_[seat_index(side)];
    if (seat.name.empty() && !seat.taken()) {
        return std::nullopt;
    }
    const bool engine = !seat.engine.empty();
    return protocol::PlayerInfo{seat.name,    seat_connected(side),     engine,
                                std::nullopt, !engine && !seat.user_id, seat.rating};
}

protocol::State Table::state(std::optional<Side> you, std::uint32_t spectators,
                             TimePoint now) const {
    const bool playing = status_ == GameStatus::playing;
    protocol::State state;
    state.game = id_;
    state.seq = seq_;
    state.variant = variant_;
    state.status = status_;
    state.you = you;
    state.first = player(Side::first);
    state.second = player(Side::second);
    if (playing) {
        // A player who comes back (a reload, a server restart) learns when a claim opens, as the
        // presence event told those who were there.
        for (auto [side, info] :
             {std::pair{Side::first, &state.first}, {Side::second, &state.second}}) {
            if (const auto left = claim_opens_in(side, now); left && *info) {
                (*info)->claim_after_ms = left->count();
            }
        }
    }
    state.initial_position = initial_position_;
    state.position = game_->position();
    state.moves = game_->moves();
    state.notation.reserve(plies_.size());
    for (const auto& record : plies_) {
        state.notation.push_back(record.notation);
    }
    state.ply = ply();
    state.turn = game_->turn();
    state.legal = playing ? game_->legal_moves() : std::vector<std::string>{};
    state.routes = playing ? game_->legal_routes() : std::vector<rules::MoveRoute>{};
    state.check = game_->in_check();
    state.clock = reading(clocks_at(now), clock_ && clock_->running() && playing);
    state.time_control = control_;
    state.result = result_;
    state.reason = reason_;
    state.offers = offers_;
    state.spectators = spectators;
    state.rematch = rematch_next_;
    state.rated = rated_;
    state.rating_range = rating_range_;
    return state;
}

protocol::GameSummary Table::summary() const {
    return protocol::GameSummary{id_,
                                 variant_,
                                 status_,
                                 player(Side::first),
                                 player(Side::second),
                                 control_,
                                 ply(),
                                 result_,
                                 reason_,
                                 created_ms_,
                                 rated_,
                                 rating_range_};
}

storage::GameRow Table::row() const {
    storage::GameRow row;
    row.id = id_;
    row.variant = variant_;
    row.initial_position = initial_position_;
    row.is_private = is_private_;
    if (control_) {
        row.clock_initial_ms = control_->initial_ms;
        row.clock_increment_ms = control_->increment_ms;
    }
    row.status = status_;
    row.result = result_;
    row.reason = reason_;
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& seat = seats_[i];
        row.seats[i] = {seat.name,         seat.token_hash, seat.engine,
                        seat.engine_level, seat.user_id,    seat.rating};
    }
    row.clock_ms = clock_ ? clock_->stored() : Clocks{0, 0};
    row.seq = seq_;
    row.ply = ply();
    row.created_ms = created_ms_;
    row.updated_ms = updated_ms_;
    row.rematch_of = rematch_of_;
    row.rematch_next = rematch_next_;
    row.offers = offers_;
    row.rated = rated_;
    row.rating_range = rating_range_;
    return row;
}

}  // namespace arbiter::server::app
