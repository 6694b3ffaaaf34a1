// decode(): one strict reader for every client message. The shape of each message is the
// "Client to server" section of schema/protocol.md; the schemas in schema/messages/client.*.json
// say the same thing and a test keeps the two in step.

#include <array>
#include <limits>

#include "common/protocol/codec.hpp"
#include "common/protocol/field_reader.hpp"
#include "common/protocol/plain_move.hpp"
#include "common/protocol/player_name.hpp"

namespace arbiter::protocol {

namespace {

using Json = nlohmann::json;
using detail::FieldReader;
using detail::kGameIdRule;
using detail::kIdRule;
using detail::kMaxPly;
using detail::kMoveRule;
using detail::kTokenRule;
using detail::TextRule;

using text::kEngineRule;
using text::kNameRule;
using text::kPositionRule;

constexpr std::uint64_t kMaxInitialMs = 24ULL * 60 * 60 * 1000;  // 24 h
constexpr std::uint64_t kMaxIncrementMs = 60ULL * 60 * 1000;     // 1 h
constexpr std::uint64_t kMaxSeq = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMaxLimit = 200;
// A seek's rating bounds: far beyond any Glicko-2 rating.
constexpr std::uint64_t kMaxRatingBound = 10000;
// move.think_ms: any time a move can take, up to the largest integer every JSON reader (a
// browser's included) holds exactly.
constexpr std::uint64_t kMaxThinkMs = (1ULL << 53U) - 1;

std::optional<rules::Variant> read_variant(FieldReader& in, bool required) {
    const std::initializer_list<std::pair<std::string_view, rules::Variant>> variants = {
        {"chess", rules::Variant::chess},
        {"xiangqi", rules::Variant::xiangqi},
        {"draughts", rules::Variant::draughts}};
    if (required) {
        return in.choice("variant", variants);
    }
    return in.optional_choice("variant", variants);
}

std::optional<ClockSpec> read_clock(FieldReader& in) {
    const Json* object = in.optional_object("clock", true);
    if (object == nullptr) {
        return std::nullopt;
    }
    FieldReader clock_in(*object, "clock.");
    ClockSpec clock;
    clock.initial_ms = static_cast<std::int64_t>(clock_in.integer("initial_ms", 1, kMaxInitialMs));
    clock.increment_ms =
        static_cast<std::int64_t>(clock_in.integer("increment_ms", 0, kMaxIncrementMs));
    if (auto error = clock_in.finish()) {
        in.fail(std::move(*error));
    }
    return clock;
}

std::optional<EngineOpponent> read_opponent(FieldReader& in) {
    const Json* object = in.optional_object("opponent", false);
    if (object == nullptr) {
        return std::nullopt;
    }
    FieldReader opponent_in(*object, "opponent.");
    EngineOpponent opponent;
    opponent.engine = opponent_in.text("engine", kEngineRule);
    opponent.level =
        static_cast<int>(opponent_in.integer("level", kMinEngineLevel, kMaxEngineLevel));
    if (auto error = opponent_in.finish()) {
        in.fail(std::move(*error));
    }
    return opponent;
}

std::optional<RatingRange> read_rating_range(FieldReader& in) {
    const Json* object = in.optional_object("rating_range", false);
    if (object == nullptr) {
        return std::nullopt;
    }
    FieldReader range_in(*object, "rating_range.");
    RatingRange range;
    if (const auto min = range_in.optional_integer("min", 0, kMaxRatingBound)) {
        range.min = static_cast<int>(*min);
    }
    if (const auto max = range_in.optional_integer("max", 0, kMaxRatingBound)) {
        range.max = static_cast<int>(*max);
    }
    if (auto error = range_in.finish()) {
        in.fail(std::move(*error));
    } else if (range.min && range.max && *range.min > *range.max) {
        in.fail("field \"rating_range\": min must not be above max");
    }
    return range;
}

OfferAction read_action(FieldReader& in) {
    return in.choice<OfferAction>("action", {{"offer", OfferAction::offer},
                                             {"accept", OfferAction::accept},
                                             {"decline", OfferAction::decline}});
}

ClientBody read_hello(FieldReader& in) {
    std::string name = in.text("name", kNameRule);
    std::optional<std::string> token = in.optional_text("token", kTokenRule);
    if (in.failed()) {
        return Hello{};
    }
    // The one place a name enters: every seat, list and log shows it in one spelling.
    auto normal = normalize_player_name(name);
    if (!normal) {
        in.fail("field \"name\": " + normal.error());
        return Hello{};
    }
    return Hello{std::move(normal).value(), std::move(token)};
}

ClientBody read_create(FieldReader& in) {
    Create create;
    create.variant = read_variant(in, true).value_or(rules::Variant::chess);
    create.side = in.optional_choice<SidePreference>("side", {{"first", SidePreference::first},
                                                              {"second", SidePreference::second},
                                                              {"random", SidePreference::random}})
                      .value_or(SidePreference::random);
    create.clock = read_clock(in);
    create.is_private = in.optional_boolean("private").value_or(false);
    create.position = in.optional_text("position", kPositionRule).value_or(std::string{});
    // "" asks for the standard start; only spaces is no FEN either, but a client that sent it
    // meant some position: refused, not read as the standard start (chess FEN trims spaces).
    if (!create.position.empty() && create.position.find_first_not_of(' ') == std::string::npos) {
        in.fail("field \"position\": only spaces; send a FEN, or \"\" for the standard start");
    }
    create.opponent = read_opponent(in);
    create.rated = in.optional_boolean("rated").value_or(false);
    create.rating_range = read_rating_range(in);
    if (create.rating_range && !create.rated) {
        in.fail("field \"rating_range\": only a rated game has one");
    }
    return create;
}

ClientBody read_join(FieldReader& in) {
    return Join{in.text("game", kGameIdRule)};
}

ClientBody read_resume(FieldReader& in) {
    Resume resume;
    resume.game = in.text("game", kGameIdRule);
    // Absent: the connection's account holds a seat there (protocol.md, resume).
    resume.token = in.optional_text("token", kTokenRule).value_or(std::string{});
    resume.since = in.optional_integer("since", 0, kMaxSeq);
    return resume;
}

ClientBody read_watch(FieldReader& in) {
    Watch watch;
    watch.game = in.text("game", kGameIdRule);
    watch.since = in.optional_integer("since", 0, kMaxSeq);
    return watch;
}

ClientBody read_unwatch(FieldReader& in) {
    return Unwatch{in.text("game", kGameIdRule)};
}

ClientBody read_move(FieldReader& in) {
    MoveRequest move;
    move.game = in.text("game", kGameIdRule);
    move.move = in.text("move", kMoveRule);
    move.ply = static_cast<std::uint32_t>(in.integer("ply", 0, kMaxPly));
    if (const auto think = in.optional_integer("think_ms", 0, kMaxThinkMs)) {
        move.think_ms = static_cast<std::int64_t>(*think);
    }
    return move;
}

ClientBody read_resign(FieldReader& in) {
    return Resign{in.text("game", kGameIdRule)};
}

template <OfferKind Kind>
ClientBody read_offer(FieldReader& in) {
    OfferRequest offer;
    offer.game = in.text("game", kGameIdRule);
    offer.kind = Kind;
    offer.action = read_action(in);
    return offer;
}

ClientBody read_abort(FieldReader& in) {
    return Abort{in.text("game", kGameIdRule)};
}

ClientBody read_claim(FieldReader& in) {
    Claim claim;
    claim.game = in.text("game", kGameIdRule);
    claim.kind = in.choice<ClaimKind>("kind", {{"win", ClaimKind::win}, {"draw", ClaimKind::draw}});
    return claim;
}

ClientBody read_lobby(FieldReader& in) {
    LobbySubscribe lobby;
    if (auto limit = in.optional_integer("limit", 1, kMaxLimit)) {
        lobby.limit = static_cast<int>(*limit);
    }
    lobby.after = in.optional_text("after", kGameIdRule);
    return lobby;
}

ClientBody read_games(FieldReader& in) {
    GamesQuery query;
    query.status = in.optional_choice<GameStatus>("status", {{"waiting", GameStatus::waiting},
                                                             {"playing", GameStatus::playing},
                                                             {"ended", GameStatus::ended},
                                                             {"aborted", GameStatus::aborted}});
    query.variant = read_variant(in, false);
    query.limit = static_cast<int>(in.optional_integer("limit", 1, kMaxLimit).value_or(50));
    query.before = in.optional_text("before", kGameIdRule);
    return query;
}

ClientBody read_replay(FieldReader& in) {
    return ReplayRequest{in.text("game", kGameIdRule)};
}

ClientBody read_ping(FieldReader& /*in*/) {
    return Ping{};
}

ClientBody read_chat(FieldReader& in) {
    ChatRequest chat;
    chat.game = in.text("game", kGameIdRule);
    chat.room = in.choice<ChatRoom>(
        "room", {{"players", ChatRoom::players}, {"spectators", ChatRoom::spectators}});
    const std::string raw = in.text("text", text::kChatRawRule);
    if (in.failed()) {
        return chat;
    }
    // protocol.md, Chat: the text is judged trimmed of the white space around it.
    auto text = text::chat_text(raw, kMaxChatLength);
    if (!text) {
        in.fail("field \"text\": " + text.error());
        return chat;
    }
    chat.text = std::move(text).value();
    return chat;
}

ClientBody read_chat_mute(FieldReader& in) {
    ChatMute mute;
    mute.game = in.text("game", kGameIdRule);
    mute.mute = in.optional_boolean("mute").value_or(true);
    return mute;
}

struct MessageType {
    std::string_view name;
    ClientBody (*read)(FieldReader&);
};

constexpr std::array<MessageType, 19> kMessageTypes = {{
    {"hello", read_hello},
    {"create", read_create},
    {"join", read_join},
    {"resume", read_resume},
    {"watch", read_watch},
    {"unwatch", read_unwatch},
    {"move", read_move},
    {"resign", read_resign},
    {"draw", read_offer<OfferKind::draw>},
    {"takeback", read_offer<OfferKind::takeback>},
    {"rematch", read_offer<OfferKind::rematch>},
    {"abort", read_abort},
    {"claim", read_claim},
    {"lobby", read_lobby},
    {"games", read_games},
    {"replay", read_replay},
    {"ping", read_ping},
    {"chat", read_chat},
    {"chat_mute", read_chat_mute},
}};

ProtocolError refuse(ErrorCode code, std::string message, std::optional<std::string> id = {}) {
    return ProtocolError{code, std::move(message), std::move(id)};
}

}  // namespace

Expected<ClientMessage, ProtocolError> decode(std::string_view text) {
    if (auto move = detail::read_plain_move(text)) {
        return std::move(*move);
    }
    return detail::read_message(text);
}

Expected<ClientMessage, ProtocolError> detail::read_message(std::string_view text) {
    // No exceptions: a parse failure (including invalid UTF-8) yields a discarded value.
    const Json json = Json::parse(text.begin(), text.end(), nullptr, false);
    if (json.is_discarded()) {
        return unexpected(refuse(ErrorCode::bad_json, "the frame is not valid JSON"));
    }
    if (!json.is_object()) {
        return unexpected(refuse(ErrorCode::bad_json, "a message must be a JSON object"));
    }

    // The id is read before anything else so that every later error can echo it.
    FieldReader in(json);
    in.allow({"type", "id"});
    std::optional<std::string> id = in.optional_text("id", kIdRule);
    if (in.failed()) {
        return unexpected(refuse(ErrorCode::bad_request, in.error().value_or("")));
    }

    const auto type_field = json.find("type");
    if (type_field == json.end()) {
        return unexpected(refuse(ErrorCode::bad_request, "missing field \"type\"", id));
    }
    const auto* type = type_field->get_ptr<const Json::string_t*>();
    if (type == nullptr) {
        return unexpected(refuse(ErrorCode::bad_request, "field \"type\": must be a string", id));
    }

    for (const MessageType& candidate : kMessageTypes) {
        if (candidate.name != *type) {
            continue;
        }
        ClientBody body = candidate.read(in);
        if (auto error = in.finish()) {
            return unexpected(refuse(ErrorCode::bad_request, std::move(*error), id));
        }
        return ClientMessage{std::move(id), std::move(body)};
    }
    return unexpected(refuse(ErrorCode::unknown_type,
                             "unknown message type \"" + detail::clip(*type) + "\"", id));
}

}  // namespace arbiter::protocol
