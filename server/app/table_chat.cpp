// Table: the chat rooms of the game (protocol.md, Chat). A message is a game event, numbered and
// stored like the others; who may read it is the room's to apply per member (chat_rules.hpp).
#include "server/app/seats.hpp"
#include "server/app/table.hpp"

namespace arbiter::server::app {

using rules::Side;

Table::Verdict Table::on_chat(const command::Chat& chat, Instant now) {
    if (auto refusal =
            chat_refusal(chat.room, {chat.held, chat.watching}, config_.spectator_chat)) {
        return unexpected(std::move(*refusal));
    }
    // A seat speaks under the name it sits with; a connection holding both seats as the first.
    std::optional<Side> seat;
    if (chat.room == protocol::ChatRoom::players) {
        seat = chat.held.any();
    }
    std::string from = seat ? seats_[seat_index(*seat)].name : chat.name;
    std::string text = config_.chat_words ? config_.chat_words->mask(chat.text) : chat.text;

    Decision decision;
    decision.seq_ = seq_ + 1;
    decision.answers_request = true;
    const protocol::ChatLine line{decision.seq_, chat.room, from, text, now.unix_ms};
    decision.intent = storage::PostChat{
        id_, storage::ChatRow{line.seq, line.room, line.from, seat, line.text, line.at_ms},
        clocks_at(now.steady), decision.seq_};
    decision.events.emplace_back(
        protocol::ChatEvent{id_, line.seq, line.room, line.from, line.text, line.at_ms});
    decision.change_ = Decision::ChatPosted{{line, seat}};
    return decision;
}

std::vector<protocol::ChatLine> Table::chat_for(const ChatMember& reader,
                                                const std::array<bool, 2>& muted) const {
    std::vector<protocol::ChatLine> lines;
    for (auto message = chat_.rbegin();
         message != chat_.rend() && lines.size() < protocol::kStateChatLines; ++message) {
        if (may_read_chat(message->line.room, message->seat, reader, status_, muted)) {
            lines.push_back(message->line);
        }
    }
    return {lines.rbegin(), lines.rend()};
}

}  // namespace arbiter::server::app
