#include "server/cluster/inbox.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "common/protocol/codec.hpp"

namespace arbiter::server::cluster {

namespace {

/// The game a client message is about; empty for a message about no one game.
std::string_view game_of(const protocol::ClientBody& body) {
    return std::visit(
        [](const auto& message) -> std::string_view {
            if constexpr (requires { message.game; }) {
                return message.game;
            } else {
                return {};
            }
        },
        body);
}

/// One attempt of one sender: attempt ids are the sender's own.
std::string attempt_key(const std::string& from_node, std::uint64_t attempt) {
    return from_node + '/' + std::to_string(attempt);
}

bool fits_an_envelope(const std::vector<std::string>& messages) {
    return messages.size() <= kMaxAnswerMessages &&
           std::ranges::all_of(messages, [](const std::string& message) {
               return message.size() <= kMaxMessageBytes;
           });
}

}  // namespace

Inbox::Inbox(std::string self_node, bus::Bus& bus, OwnershipLookup& ownership, Handler handler)
    : self_(std::move(self_node)), bus_(bus), ownership_(ownership), handler_(std::move(handler)) {}

void Inbox::on_intent(const Intent& intent) {
    const auto owner = ownership_.owner_of(intent.game);
    if (!owner || owner->node != self_) {
        ++counters_.not_owner;
        Answer answer;
        answer.kind = AnswerKind::not_owner;
        if (owner && valid_id(owner->node)) {
            answer.owner_node = owner->node;
            answer.owner_epoch = owner->epoch;
        }
        publish_answer(intent, std::move(answer));
        return;
    }
    auto decoded = protocol::decode(intent.message);
    if (!decoded) {
        // The sender's codec wrote it, so this is a bug or a version skew: the player gets the
        // refusal it would get from a local decode, and nothing reaches the room.
        ++counters_.bad_messages;
        const auto& error = decoded.error();
        Answer answer;
        answer.messages.push_back(protocol::encode_error(error.code, error.message, error.id));
        publish_answer(intent, std::move(answer));
        return;
    }
    if (game_of(decoded.value().body) != intent.game) {
        ++counters_.bad_messages;
        Answer answer;
        answer.messages.push_back(protocol::encode_error(protocol::ErrorCode::bad_request,
                                                         "the message is about another game",
                                                         decoded.value().id));
        publish_answer(intent, std::move(answer));
        return;
    }
    auto key = attempt_key(intent.from_node, intent.attempt);
    if (const auto seen = attempts_.find(key); seen != attempts_.end()) {
        ++counters_.repeats;
        if (seen->second) {
            publish_answer(intent, *seen->second);
        }
        return;
    }
    remember(std::move(key));
    ++counters_.intents;
    handler_(ForwardedRequest{intent.from_node, intent.connection, intent.attempt, intent.game,
                              std::move(decoded).value()});
}

void Inbox::answer(const ForwardedRequest& request, std::vector<std::string> messages) {
    Answer answer;
    if (!fits_an_envelope(messages)) {
        // An answer the envelope cannot carry would be refused by the sender's decoder and
        // retried for nothing: the player hears why instead (the room has acted already).
        ++counters_.oversized;
        messages = {protocol::encode_error(protocol::ErrorCode::internal,
                                           "the answer is too large to forward",
                                           request.message.id)};
    }
    answer.messages = std::move(messages);
    if (const auto seen = attempts_.find(attempt_key(request.from_node, request.attempt));
        seen != attempts_.end()) {
        seen->second = answer;
    }
    publish_answer(Intent{request.from_node, request.connection, request.attempt, request.game, {}},
                   std::move(answer));
}

void Inbox::publish_event(std::string game, std::uint64_t seq, std::uint64_t epoch,
                          std::string message, const ForwardedRequest* cause) {
    if (message.size() > kMaxMessageBytes) {
        // Not on the bus: the next event shows the viewers' relays a gap, and they read it from the
        // database.
        ++counters_.oversized;
        return;
    }
    ++counters_.events;
    auto channel = game_channel(game);
    Event event{std::move(game), seq, self_, epoch, std::move(message), {}, 0};
    if (cause != nullptr) {
        event.cause_node = cause->from_node;
        event.cause_attempt = cause->attempt;
    }
    bus_.publish(std::move(channel), encode(event));
}

void Inbox::remember(std::string key) {
    if (attempt_order_.size() == kRememberedAttempts) {
        attempts_.erase(attempt_order_.front());
        attempt_order_.pop_front();
    }
    attempts_.emplace(key, std::nullopt);
    attempt_order_.push_back(std::move(key));
}

void Inbox::publish_answer(const Intent& intent, Answer answer) {
    ++counters_.answers;
    answer.from_node = self_;
    answer.connection = intent.connection;
    answer.attempt = intent.attempt;
    answer.game = intent.game;
    bus_.publish(inbox_channel(intent.from_node), encode(answer));
}

}  // namespace arbiter::server::cluster
