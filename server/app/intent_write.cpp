#include "server/app/intent_write.hpp"

#include <utility>

#include "common/core/overloaded.hpp"
#include "server/app/seats.hpp"

namespace arbiter::server::app {

namespace {

void set_ending(storage::GameRow& row, const storage::GameEnding& ending) {
    row.status = std::string(protocol::to_string(ending.status));
    row.result = std::string(protocol::result_text(ending.result));
    row.reason = std::string(protocol::to_string(ending.reason));
}

}  // namespace

storage::GameWrite as_game_write(storage::GameRow row, storage::GameIntent intent) {
    storage::GameWrite write;
    std::visit(Overloaded{
                   [&](storage::CreateGame& create) { row = std::move(create.header); },
                   [&](storage::SeatPlayer& seated) {
                       row.seats[seat_index(seated.side)] = std::move(seated.seat);
                       row.status = std::string(protocol::to_string(protocol::GameStatus::playing));
                       row.seq = seated.seq;
                       row.updated_ms = seated.updated_ms;
                   },
                   [&](storage::AppendMove& append) {
                       row.ply = append.move.ply;
                       row.seq = append.seq;
                       row.clock_ms = append.clock_ms;
                       row.updated_ms = append.move.played_ms;
                       row.offers.clear();
                       if (append.ending) {
                           set_ending(row, *append.ending);
                       }
                       write.append = std::move(append.move);
                   },
                   [&](storage::TakeBack& back) {
                       row.ply = back.to_ply;
                       row.seq = back.seq;
                       row.clock_ms = back.clock_ms;
                       row.updated_ms = back.updated_ms;
                       row.offers.clear();
                       write.truncate_from_ply = back.to_ply + 1;
                   },
                   [&](storage::SetOffers& set) {
                       row.offers.clear();
                       for (const auto& offer : set.offers) {
                           row.offers += row.offers.empty() ? "" : ",";
                           row.offers += protocol::to_string(offer.kind);
                           row.offers += offer.by == rules::Side::first ? ":first" : ":second";
                       }
                       row.clock_ms = set.clock_ms;
                       row.seq = set.seq;
                   },
                   [&](storage::RecordEvent& event) {
                       row.clock_ms = event.clock_ms;
                       row.seq = event.seq;
                   },
                   [&](storage::EndGame& end) {
                       set_ending(row, end.ending);
                       row.clock_ms = end.clock_ms;
                       row.seq = end.seq;
                       row.updated_ms = end.updated_ms;
                       row.offers.clear();
                   },
                   [&](storage::LinkRematch& link) {
                       row.rematch_next = std::move(link.next);
                       row.seq = link.seq;
                       row.offers.clear();
                   },
                   [&](storage::StoreClocks& clocks) {
                       row.clock_ms = clocks.clock_ms;
                       row.updated_ms = clocks.updated_ms;
                   },
               },
               intent);
    write.header = std::move(row);
    return write;
}

}  // namespace arbiter::server::app
