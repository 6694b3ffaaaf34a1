// encode(): every server message as one line of JSON, written straight into its text
// (json_writer.hpp says why). Field names and shapes are the "Server to client" section of
// schema/protocol.md; schema/messages/server.*.json check them in a test. SharedMessage: one
// encoding of a message for all who get it, and the requester's copy of it.

#include <optional>
#include <string_view>

#include "common/core/assert.hpp"
#include "common/protocol/codec.hpp"
#include "common/protocol/json_writer.hpp"
#include "common/protocol/text_rules.hpp"

namespace arbiter::protocol {

namespace {

using detail::JsonWriter;

std::string_view seat(rules::Variant variant, rules::Side side) {
    return rules::seat_name(variant, side);
}

void player(JsonWriter& out, const std::optional<PlayerInfo>& info) {
    if (!info) {
        out.null();
        return;
    }
    out.begin_object().text("name", info->name).boolean("connected", info->connected);
    // Absent for people, so that a human seat reads exactly as before engines existed.
    if (info->engine) {
        out.boolean("engine", true);
    }
    if (info->claim_after_ms) {
        out.number("claim_after_ms", *info->claim_after_ms);
    }
    out.boolean("guest", info->guest).key("rating");
    if (info->rating) {
        out.begin_object()
            .number("rating", info->rating->rating)
            .boolean("provisional", info->rating->provisional)
            .end_object();
    } else {
        out.null();
    }
    out.end_object();
}

void bound(JsonWriter& out, std::string_view name, const std::optional<int>& value) {
    out.key(name);
    if (value) {
        out.number(*value);
    } else {
        out.null();
    }
}

// `rated` and `rating_range` of a state, a listing or a record.
void rated(JsonWriter& out, bool is_rated, const std::optional<RatingRange>& range) {
    out.boolean("rated", is_rated).key("rating_range");
    if (!range) {
        out.null();
        return;
    }
    out.begin_object();
    bound(out, "min", range->min);
    bound(out, "max", range->max);
    out.end_object();
}

void rating_change(JsonWriter& out, const RatingChange& change) {
    out.begin_object()
        .number("before", change.before)
        .number("after", change.after)
        .number("diff", change.diff)
        .boolean("provisional", change.provisional)
        .end_object();
}

void end_ratings(JsonWriter& out, rules::Variant variant, const std::optional<EndRatings>& r) {
    if (!r) {
        out.null();
        return;
    }
    out.begin_object();
    rating_change(out.key(seat(variant, rules::Side::first)), r->first);
    rating_change(out.key(seat(variant, rules::Side::second)), r->second);
    out.end_object();
}

void players(JsonWriter& out, rules::Variant variant, const std::optional<PlayerInfo>& first,
             const std::optional<PlayerInfo>& second) {
    out.begin_object();
    player(out.key(seat(variant, rules::Side::first)), first);
    player(out.key(seat(variant, rules::Side::second)), second);
    out.end_object();
}

void clock(JsonWriter& out, rules::Variant variant, const std::optional<ClockState>& state) {
    if (!state) {
        out.null();
        return;
    }
    out.begin_object()
        .key(std::string(seat(variant, rules::Side::first)) + "_ms")
        .number(state->first_ms)
        .key(std::string(seat(variant, rules::Side::second)) + "_ms")
        .number(state->second_ms)
        .boolean("running", state->running)
        .end_object();
}

void time_control(JsonWriter& out, const std::optional<ClockSpec>& spec) {
    if (!spec) {
        out.null();
        return;
    }
    out.begin_object()
        .number("initial_ms", spec->initial_ms)
        .number("increment_ms", spec->increment_ms)
        .end_object();
}

void summaries(JsonWriter& out, const std::vector<GameSummary>& games) {
    out.begin_array();
    for (const GameSummary& game : games) {
        out.begin_object()
            .text("game", game.game)
            .text("variant", rules::to_string(game.variant))
            .text("status", to_string(game.status));
        players(out.key("players"), game.variant, game.first, game.second);
        time_control(out.key("time_control"), game.time_control);
        out.number("ply", game.ply)
            .text_or_null("result", result_text(game.result))
            .text_or_null("reason", to_string(game.reason))
            .number("created_ms", game.created_ms);
        rated(out, game.rated, game.rating_range);
        out.end_object();
    }
    out.end_array();
}

void chat_lines(JsonWriter& out, const std::vector<ChatLine>& lines) {
    out.key("chat").begin_array();
    for (const ChatLine& line : lines) {
        out.begin_object()
            .number("seq", line.seq)
            .text("room", to_string(line.room))
            .text("from", line.from)
            .text("text", line.text)
            .number("at_ms", line.at_ms)
            .end_object();
    }
    out.end_array();
}

void body(JsonWriter& out, const Welcome& m) {
    out.text("type", "welcome").text("server", m.server).number("protocol", m.protocol);
    out.key("engines").begin_array();
    for (const EngineInfo& engine : m.engines) {
        out.begin_object().text("name", engine.name).key("variants").begin_array();
        for (const rules::Variant variant : engine.variants) {
            out.text(rules::to_string(variant));
        }
        out.end_array().end_object();
    }
    out.end_array();
    out.key("user");
    if (m.user) {
        out.begin_object().text("username", m.user->username).end_object();
    } else {
        out.null();
    }
}

void body(JsonWriter& out, const SeatGranted& m) {
    out.text("type", m.created ? "created" : "joined")
        .text("game", m.game)
        .text("seat", seat(m.variant, m.seat))
        .text("token", m.token)
        .text("variant", rules::to_string(m.variant));
}

// Draughts: a move's route, `{"path":[22,13,6],"taken":[18,9]}` (protocol.md, Routes).
void route(JsonWriter& out, const rules::MoveRoute& route) {
    out.begin_object().key("path").begin_array();
    for (const int square : route.path) {
        out.number(square);
    }
    out.end_array().key("taken").begin_array();
    for (const int square : route.taken) {
        out.number(square);
    }
    out.end_array().end_object();
}

// Draughts: the route of each legal move, in the order of `legal`; nothing in the other games.
void routes(JsonWriter& out, rules::Variant variant, const std::vector<rules::MoveRoute>& routes) {
    if (variant != rules::Variant::draughts) {
        return;
    }
    out.key("routes").begin_array();
    for (const rules::MoveRoute& each : routes) {
        route(out, each);
    }
    out.end_array();
}

void body(JsonWriter& out, const State& m) {
    out.text("type", "state")
        .text("game", m.game)
        .number("seq", m.seq)
        .text("variant", rules::to_string(m.variant))
        .text("status", to_string(m.status))
        .text("you", m.you ? seat(m.variant, *m.you) : "spectator");
    players(out.key("players"), m.variant, m.first, m.second);
    out.text("initial_position", m.initial_position)
        .text("position", m.position)
        .texts("moves", m.moves)
        .texts("notation", m.notation)
        .number("ply", m.ply)
        .text("turn", seat(m.variant, m.turn))
        .texts("legal", m.legal);
    routes(out, m.variant, m.routes);
    out.boolean("check", m.check);
    clock(out.key("clock"), m.variant, m.clock);
    time_control(out.key("time_control"), m.time_control);
    out.text_or_null("result", result_text(m.result)).text_or_null("reason", to_string(m.reason));
    out.key("offers").begin_array();
    for (const OpenOffer& offer : m.offers) {
        out.begin_object()
            .text("kind", to_string(offer.kind))
            .text("by", seat(m.variant, offer.by))
            .end_object();
    }
    out.end_array().number("spectators", m.spectators).key("rematch");
    if (m.rematch) {
        out.text(*m.rematch);
    } else {
        out.null();
    }
    rated(out, m.rated, m.rating_range);
    chat_lines(out, m.chat);
}

void body(JsonWriter& out, const Moved& m) {
    out.text("type", "moved")
        .text("game", m.game)
        .number("seq", m.seq)
        .number("ply", m.ply)
        .text("move", m.move)
        .text("notation", m.notation);
    if (m.variant == rules::Variant::draughts && !m.route.path.empty()) {
        route(out.key("route"), m.route);
    }
    out.text("position", m.position).text("turn", seat(m.variant, m.turn)).texts("legal", m.legal);
    routes(out, m.variant, m.routes);
    out.boolean("check", m.check);
    clock(out.key("clock"), m.variant, m.clock);
}

void body(JsonWriter& out, const Ended& m) {
    out.text("type", "ended")
        .text("game", m.game)
        .number("seq", m.seq)
        .text_or_null("result", result_text(m.result))
        .text("reason", to_string(m.reason))
        .text("status", to_string(m.status));
    end_ratings(out.key("ratings"), m.variant, m.ratings);
}

void body(JsonWriter& out, const OfferEvent& m) {
    out.text("type", "offer")
        .text("game", m.game)
        .number("seq", m.seq)
        .text("kind", to_string(m.kind))
        .text("action", to_string(m.action))
        .text("by", seat(m.variant, m.by));
}

void body(JsonWriter& out, const TakenBack& m) {
    out.text("type", "takeback")
        .text("game", m.game)
        .number("seq", m.seq)
        .number("ply", m.ply)
        .text("position", m.position)
        .text("turn", seat(m.variant, m.turn))
        .texts("legal", m.legal);
    routes(out, m.variant, m.routes);
    out.boolean("check", m.check);
    clock(out.key("clock"), m.variant, m.clock);
}

void body(JsonWriter& out, const Presence& m) {
    out.text("type", "presence")
        .text("game", m.game)
        .number("seq", m.seq)
        .text("seat", seat(m.variant, m.seat))
        .boolean("connected", m.connected)
        .number_or_null("claim_after_ms", m.claim_after_ms);
}

void body(JsonWriter& out, const RematchEvent& m) {
    out.text("type", "rematch").text("game", m.game).number("seq", m.seq).text("next", m.next);
}

void body(JsonWriter& out, const SpectatorCount& m) {
    out.text("type", "spectators").text("game", m.game).number("count", m.count);
    out.key("watchers").begin_array();
    for (const Watcher& watcher : m.watchers) {
        out.begin_object().text("name", watcher.name).boolean("guest", watcher.guest).end_object();
    }
    out.end_array();
}

void body(JsonWriter& out, const SeatLost& m) {
    out.text("type", "seat_lost")
        .text("game", m.game)
        .text("seat", seat(m.variant, m.seat))
        .text("reason", to_string(m.reason))
        .key("you");
    if (m.still_seated) {
        out.text(seat(m.variant, *m.still_seated));
    } else if (m.still_watching) {
        out.text("spectator");
    } else {
        out.null();
    }
}

void body(JsonWriter& out, const LobbyList& m) {
    summaries(out.text("type", "lobby").key("games"), m.games);
    if (m.next) {
        out.text("next", *m.next);
    }
}

void body(JsonWriter& out, const GamesList& m) {
    summaries(out.text("type", "games").key("games"), m.games);
}

void body(JsonWriter& out, const Record& m) {
    out.text("type", "record")
        .text("game", m.game)
        .text("variant", rules::to_string(m.variant))
        .text("status", to_string(m.status));
    players(out.key("players"), m.variant, m.first, m.second);
    time_control(out.key("time_control"), m.time_control);
    out.text("initial_position", m.initial_position)
        .boolean("initial_check", m.initial_check)
        .key("moves")
        .begin_array();
    for (const RecordMove& move : m.moves) {
        out.begin_object()
            .number("ply", move.ply)
            .text("move", move.move)
            .text("notation", move.notation)
            .text("position", move.position)
            .number_or_null("clock_ms", move.clock_ms)
            .number_or_null("think_ms", move.think_ms)
            .boolean("check", move.check);
        if (move.lag_ms) {
            out.number("lag_ms", *move.lag_ms);
        }
        out.end_object();
    }
    out.end_array()
        .text_or_null("result", result_text(m.result))
        .text_or_null("reason", to_string(m.reason))
        .number("created_ms", m.created_ms);
    rated(out, m.rated, m.rating_range);
    end_ratings(out.key("ratings"), m.variant, m.ratings);
    chat_lines(out, m.chat);
}

void body(JsonWriter& out, const ErrorMessage& m) {
    out.text("type", "error").text("code", to_string(m.code)).text("message", m.message);
}

void body(JsonWriter& out, const Pong& /*m*/) {
    out.text("type", "pong");
}

void body(JsonWriter& out, const ChatEvent& m) {
    out.text("type", "chat")
        .text("game", m.game)
        .number("seq", m.seq)
        .text("room", to_string(m.room))
        .text("from", m.from)
        .key("text");
    if (m.text) {
        out.text(*m.text);
    } else {
        out.null();
    }
    out.number("at_ms", m.at_ms);
}

void body(JsonWriter& out, const ChatMuted& m) {
    out.text("type", "chat_muted").text("game", m.game).boolean("mute", m.mute);
}

void body(JsonWriter& out, const AnalysisProgress& m) {
    out.text("type", "analysis")
        .text("game", m.game)
        .text("status", to_string(m.status))
        .number("done", m.done)
        .number("total", m.total);
}

std::size_t chat_size(const std::vector<ChatLine>& lines) {
    std::size_t size = 16;
    for (const ChatLine& line : lines) {
        size += 96 + line.from.size() + line.text.size();
    }
    return size;
}

// About how long a message's text is: its strings, and ~24 bytes a field for names, quotes and
// numbers. A guess low by a little costs one more growth; the short messages take the default.
std::size_t text_size(const std::vector<std::string>& texts) {
    std::size_t size = 0;
    for (const std::string& text : texts) {
        size += text.size() + 3;
    }
    return size;
}

// `moved` and `takeback`: a position and its legal moves, and a dozen short fields.
std::size_t position_event_size(const std::string& position,
                                const std::vector<std::string>& legal) {
    return 256 + position.size() + text_size(legal);
}

// Draughts routes: a few squares each, ~4 bytes a square with its comma.
std::size_t routes_size(const std::vector<rules::MoveRoute>& routes) {
    std::size_t size = 0;
    for (const rules::MoveRoute& route : routes) {
        size += 24 + 4 * (route.path.size() + route.taken.size());
    }
    return size;
}

std::size_t expected_size(const Moved& m) {
    return position_event_size(m.position, m.legal) + routes_size(m.routes);
}

std::size_t expected_size(const TakenBack& m) {
    return position_event_size(m.position, m.legal) + routes_size(m.routes);
}

std::size_t expected_size(const State& m) {
    return 640 + m.initial_position.size() + m.position.size() + text_size(m.moves) +
           text_size(m.notation) + text_size(m.legal) + routes_size(m.routes) + chat_size(m.chat);
}

std::size_t expected_size(const Record& m) {
    std::size_t size = 384 + m.initial_position.size() + chat_size(m.chat);
    for (const RecordMove& move : m.moves) {
        size += 112 + move.move.size() + move.notation.size() + move.position.size();
    }
    return size;
}

std::size_t summaries_size(const std::vector<GameSummary>& games) {
    return 64 + 256 * games.size();
}

std::size_t expected_size(const LobbyList& m) {
    return summaries_size(m.games);
}

std::size_t expected_size(const GamesList& m) {
    return summaries_size(m.games);
}

template <typename Body>
std::size_t expected_size(const Body& /*m*/) {
    return 128;
}

std::string encode_body(const ServerBody& message, const std::optional<std::string>& id) {
    JsonWriter out(
        std::visit([](const auto& alternative) { return expected_size(alternative); }, message) +
        (id ? id->size() + 8 : 0));
    out.begin_object();
    std::visit([&out](const auto& alternative) { body(out, alternative); }, message);
    if (id) {
        out.text("id", *id);
    }
    out.end_object();
    return std::move(out).finish();
}

// The id of the requester's copy as a JSON string, escaped as that copy has always been written:
// `"` and `\` with a backslash, control characters as \u00XX, everything else as it is (encode()
// writes \n and \t for those two: both are JSON, and the copy's bytes stay what they were). An
// id decode() accepted is valid UTF-8; other text is repaired as encode() repairs it, so that the
// frame stays valid JSON.
void append_request_id(std::string& out, std::string_view id) {
    if (!text::is_utf8(id)) {
        out += detail::escaped(id);
        return;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    for (const char c : id) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20U) {
            out += "\\u00";
            out += kHex[byte >> 4U];
            out += kHex[byte & 0x0FU];
        } else {
            out += c;
        }
    }
    out += '"';
}

}  // namespace

std::string encode(const ServerMessage& message) {
    return encode_body(message.body, message.id);
}

std::string encode_error(ErrorCode code, std::string_view message,
                         const std::optional<std::string>& id) {
    return encode(ServerMessage{ErrorMessage{code, std::string(message)}, id});
}

SharedMessage::SharedMessage(const ServerBody& body)
    : text_(std::make_shared<const std::string>(encode_body(body, std::nullopt))) {}

std::shared_ptr<const std::string> SharedMessage::with_id(std::string_view id) const {
    return std::make_shared<const std::string>(requester_copy(*text_, id));
}

std::string requester_copy(std::string_view encoded, std::string_view id) {
    // Every message opens with `{"type":`: the id goes between the brace and the rest.
    ARBITER_ASSERT(encoded.size() > 2 && encoded.front() == '{');
    std::string out;
    out.reserve(encoded.size() + id.size() + 12);
    out += "{\"id\":";
    append_request_id(out, id);
    out += ',';
    out.append(encoded.substr(1));
    return out;
}

std::shared_ptr<const std::string> SharedMessage::for_request(
    const std::optional<std::string>& id) const {
    return id ? with_id(*id) : text_;
}

}  // namespace arbiter::protocol
