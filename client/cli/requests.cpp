// The requests arbiter-cli sends, as protocol messages written by the protocol's codec. The
// command line has checked every value it takes from the user (options.cpp).
#include "client/cli/requests.hpp"

#include "common/protocol/codec.hpp"

namespace arbiter::client::requests {

namespace {

namespace protocol = arbiter::protocol;

std::string encoded(protocol::ClientBody body, std::optional<std::string> id = std::nullopt) {
    return protocol::encode(protocol::ClientMessage{std::move(id), std::move(body)});
}

protocol::SidePreference side_of(const std::string& side) {
    if (side == "first") {
        return protocol::SidePreference::first;
    }
    return side == "second" ? protocol::SidePreference::second : protocol::SidePreference::random;
}

protocol::OfferKind offer_kind_of(const std::string& type) {
    if (type == "takeback") {
        return protocol::OfferKind::takeback;
    }
    return type == "rematch" ? protocol::OfferKind::rematch : protocol::OfferKind::draw;
}

protocol::OfferAction offer_action_of(const std::string& action) {
    if (action == "accept") {
        return protocol::OfferAction::accept;
    }
    return action == "decline" ? protocol::OfferAction::decline : protocol::OfferAction::offer;
}

}  // namespace

std::string hello(const std::string& name, std::optional<std::string> session_token) {
    return encoded(protocol::Hello{name, std::move(session_token)});
}

std::string create(const CliOptions& options, const std::string& id) {
    protocol::Create create;
    create.variant = rules::parse_variant(options.variant).value_or(rules::Variant::chess);
    create.side = side_of(options.side);
    if (options.clock) {
        create.clock = protocol::ClockSpec{static_cast<std::int64_t>(options.clock->initial_ms),
                                           static_cast<std::int64_t>(options.clock->increment_ms)};
    }
    create.is_private = options.is_private;
    create.rated = options.rated;
    if (options.rating_range) {
        create.rating_range =
            protocol::RatingRange{options.rating_range->min, options.rating_range->max};
    }
    create.position = options.position;
    if (!options.opponent.empty()) {
        create.opponent = protocol::EngineOpponent{options.opponent, options.level};
    }
    return encoded(std::move(create), id);
}

std::string join(const std::string& game, const std::string& id) {
    return encoded(protocol::Join{game}, id);
}

std::string resume(const std::string& game, const std::string& token,
                   std::optional<std::uint64_t> since, const std::string& id) {
    return encoded(protocol::Resume{game, token, since}, id);
}

std::string watch(const std::string& game, std::optional<std::uint64_t> since,
                  const std::string& id) {
    return encoded(protocol::Watch{game, since}, id);
}

std::string move(const std::string& game, const std::string& move, std::uint64_t ply,
                 const std::string& id, std::optional<std::int64_t> think_ms) {
    return encoded(protocol::MoveRequest{game, move, static_cast<std::uint32_t>(ply), think_ms},
                   id);
}

std::string game_action(const std::string& type, const std::string& game, const std::string& id) {
    if (type == "abort") {
        return encoded(protocol::Abort{game}, id);
    }
    return encoded(protocol::Resign{game}, id);
}

std::string offer(const std::string& type, const std::string& game, const std::string& action,
                  const std::string& id) {
    return encoded(protocol::OfferRequest{game, offer_kind_of(type), offer_action_of(action)}, id);
}

std::string claim(const std::string& game, const std::string& kind, const std::string& id) {
    return encoded(protocol::Claim{game, kind == "draw" ? protocol::ClaimKind::draw
                                                        : protocol::ClaimKind::win},
                   id);
}

std::string chat(const std::string& game, protocol::ChatRoom room, const std::string& text,
                 const std::string& id) {
    return encoded(protocol::ChatRequest{game, room, text}, id);
}

std::string chat_mute(const std::string& game, bool mute, const std::string& id) {
    return encoded(protocol::ChatMute{game, mute}, id);
}

std::string lobby() {
    return encoded(protocol::LobbySubscribe{});
}

std::string games(const CliOptions& options) {
    protocol::GamesQuery query;
    query.status = protocol::parse_game_status(options.status);
    query.variant = rules::parse_variant(options.variant);
    if (options.limit) {
        query.limit = *options.limit;
    }
    return encoded(std::move(query));
}

std::string replay(const std::string& game) {
    return encoded(protocol::ReplayRequest{game});
}

}  // namespace arbiter::client::requests
