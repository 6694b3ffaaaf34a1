// decode_server(): one strict reader for every server message, the inverse of encode(). The
// shapes are the "Server to client" section of schema/protocol.md, and the rules of its JSON
// Schemas (schema/messages/server.*.json): every field listed is present, of its type and range,
// and nothing else is. Seats are named per variant ("white", "red"), so a message that names
// seats without naming its variant is read with the variant its game has for the client.

#include <algorithm>
#include <array>
#include <limits>

#include "common/protocol/codec.hpp"
#include "common/protocol/json_reader.hpp"

namespace arbiter::protocol {

namespace {

using detail::JsonCursor;
using detail::ObjectReader;
using detail::ReadFailure;
using rules::Side;
using rules::Variant;
using text::kEngineRule;
using text::kGameIdRule;
using text::kIdRule;
using text::kNameRule;
using text::kTokenRule;

constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t kMaxInitialMs = 24ULL * 60 * 60 * 1000;  // protocol.md: create.clock
constexpr std::uint64_t kMaxIncrementMs = 60ULL * 60 * 1000;
// Ratings as shown: far beyond any Glicko-2 rating, within int.
constexpr std::int64_t kMinRating = -100000;
constexpr std::int64_t kMaxRating = 100000;
/// defs.schema.json, wireMove: 1..64 characters (of any kind: the server sent them).
constexpr text::TextRule kWireMoveRule{1, 64, text::Charset::any};
/// Text the protocol does not bound (positions, notation, names, messages).
constexpr text::TextRule kAnyText{0, std::numeric_limits<std::size_t>::max(), text::Charset::any};

/// The wire names of the first N enumerators of Enum, in their order.
template <typename Enum, std::size_t N, typename Name>
std::array<std::string_view, N> wire_names(Name name, std::size_t first = 0) {
    std::array<std::string_view, N> names{};
    for (std::size_t i = 0; i < N; ++i) {
        names[i] = name(static_cast<Enum>(first + i));
    }
    return names;
}

const auto kVariantNames =
    wire_names<Variant, 3>([](Variant variant) { return rules::to_string(variant); });
const auto kStatusNames = wire_names<GameStatus, 4>([](GameStatus s) { return to_string(s); });
// EndReason::none is null on the wire (or absent from `ended`): only the others have names.
const auto kReasonNames = wire_names<EndReason, 15>([](EndReason r) { return to_string(r); }, 1);
// Outcome::ongoing is null on the wire.
const auto kResultNames =
    wire_names<rules::Outcome, 3>([](rules::Outcome o) { return result_text(o); }, 1);
const auto kOfferKindNames = wire_names<OfferKind, 3>([](OfferKind k) { return to_string(k); });
const auto kOfferActionNames =
    wire_names<OfferAction, 3>([](OfferAction a) { return to_string(a); });
const auto kErrorCodeNames = wire_names<ErrorCode, 20>([](ErrorCode c) { return to_string(c); });
static_assert(static_cast<std::size_t>(ErrorCode::internal) + 1 == 20, "one name per code");
const auto kAnalysisStatusNames =
    wire_names<AnalysisStatus, 4>([](AnalysisStatus s) { return to_string(s); });
const auto kSeatLossNames =
    wire_names<SeatLossReason, 1>([](SeatLossReason r) { return to_string(r); });

/// The seat names of a variant, first seat first, and `extra` after them.
std::array<std::string_view, 3> seat_names(Variant variant, std::string_view extra = {}) {
    return {rules::seat_name(variant, Side::first), rules::seat_name(variant, Side::second), extra};
}

/// What one reader needs: the message's members and how to learn a game's variant.
struct Context {
    ObjectReader& in;
    const VariantOfGame& variant_of;
};

Variant read_variant(ObjectReader& in) {
    return static_cast<Variant>(in.choice("variant", kVariantNames).value_or(0));
}

Side read_side(ObjectReader& in, std::string_view name, Variant variant) {
    const auto seats = seat_names(variant);
    return static_cast<Side>(in.choice(name, std::span(seats).first(2)).value_or(0));
}

GameStatus read_status(ObjectReader& in) {
    return static_cast<GameStatus>(in.choice("status", kStatusNames).value_or(0));
}

rules::Outcome read_result(ObjectReader& in) {
    const auto index = in.choice("result", kResultNames, true);
    return index ? static_cast<rules::Outcome>(*index + 1) : rules::Outcome::ongoing;
}

EndReason read_reason(ObjectReader& in, bool null_allowed) {
    const auto index = in.choice("reason", kReasonNames, null_allowed);
    return index ? static_cast<EndReason>(*index + 1) : EndReason::none;
}

/// The game of a message that names seats but not its variant, and that game's variant as the
/// client knows it; a game whose variant the client does not know is refused as unknown_game.
std::pair<std::string, Variant> read_game_and_variant(Context& message) {
    std::string game = message.in.text("game", kGameIdRule);
    if (message.in.failed()) {
        return {std::move(game), Variant::chess};
    }
    const std::optional<Variant> variant = message.variant_of(game);
    if (!variant) {
        message.in.fail(
            "game \"" + game + "\": its variant is not known, so its seats cannot be read",
            ErrorCode::unknown_game);
    }
    return {std::move(game), variant.value_or(Variant::chess)};
}

std::optional<PlayerInfo> read_player(ObjectReader& players, std::string_view seat) {
    std::optional<PlayerInfo> info;
    players.object(seat, true, [&](ObjectReader& in) {
        info.emplace();
        info->name = in.text("name");
        info->connected = in.boolean("connected");
        info->engine = in.optional_true("engine");
        if (const auto after = in.optional_integer("claim_after_ms", 0, kMaxI64)) {
            info->claim_after_ms = static_cast<std::int64_t>(*after);
        }
        // Issue 40's fields are read when present: a client keeps working with a server from
        // before them (the JSON Schemas hold the server to sending them).
        if (in.present("guest")) {
            info->guest = in.boolean("guest");
        }
        if (in.present("rating")) {
            in.object("rating", true, [&](ObjectReader& rating_in) {
                info->rating = PlayerRating{
                    static_cast<int>(rating_in.signed_integer("rating", kMinRating, kMaxRating)),
                    rating_in.boolean("provisional")};
            });
        }
    });
    return info;
}

std::optional<int> read_bound(ObjectReader& in, std::string_view name) {
    // A bound is null, or an integer (ratings are positive in practice; the reader is strict).
    std::optional<int> value;
    if (const auto bound = in.integer_or_null(name, 0, kMaxRating)) {
        value = static_cast<int>(*bound);
    }
    return value;
}

/// `rated` and `rating_range`, when present (see read_player).
void read_rated(ObjectReader& in, bool& rated, std::optional<RatingRange>& range) {
    if (in.present("rated")) {
        rated = in.boolean("rated");
    }
    if (in.present("rating_range")) {
        in.object("rating_range", true, [&](ObjectReader& range_in) {
            range = RatingRange{read_bound(range_in, "min"), read_bound(range_in, "max")};
        });
    }
}

RatingChange read_change(ObjectReader& in) {
    RatingChange change;
    change.before = static_cast<int>(in.signed_integer("before", kMinRating, kMaxRating));
    change.after = static_cast<int>(in.signed_integer("after", kMinRating, kMaxRating));
    change.diff = static_cast<int>(in.signed_integer("diff", -kMaxRating, kMaxRating));
    change.provisional = in.boolean("provisional");
    return change;
}

std::optional<EndRatings> read_end_ratings(ObjectReader& in, Variant variant) {
    std::optional<EndRatings> ratings;
    if (!in.present("ratings")) {
        return ratings;
    }
    in.object("ratings", true, [&](ObjectReader& ratings_in) {
        ratings.emplace();
        ratings_in.object(rules::seat_name(variant, Side::first), false,
                          [&](ObjectReader& seat_in) { ratings->first = read_change(seat_in); });
        ratings_in.object(rules::seat_name(variant, Side::second), false,
                          [&](ObjectReader& seat_in) { ratings->second = read_change(seat_in); });
    });
    return ratings;
}

void read_players(ObjectReader& in, Variant variant, std::optional<PlayerInfo>& first,
                  std::optional<PlayerInfo>& second) {
    in.object("players", false, [&](ObjectReader& players) {
        first = read_player(players, rules::seat_name(variant, Side::first));
        second = read_player(players, rules::seat_name(variant, Side::second));
    });
}

std::optional<ClockState> read_clock(ObjectReader& in, Variant variant) {
    std::optional<ClockState> clock;
    in.object("clock", true, [&](ObjectReader& clock_in) {
        clock.emplace();
        const std::string first(rules::seat_name(variant, Side::first));
        const std::string second(rules::seat_name(variant, Side::second));
        clock->first_ms = static_cast<std::int64_t>(clock_in.integer(first + "_ms", 0, kMaxI64));
        clock->second_ms = static_cast<std::int64_t>(clock_in.integer(second + "_ms", 0, kMaxI64));
        clock->running = clock_in.boolean("running");
    });
    return clock;
}

std::optional<ClockSpec> read_time_control(ObjectReader& in) {
    std::optional<ClockSpec> spec;
    in.object("time_control", true, [&](ObjectReader& spec_in) {
        spec.emplace();
        spec->initial_ms =
            static_cast<std::int64_t>(spec_in.integer("initial_ms", 1, kMaxInitialMs));
        spec->increment_ms =
            static_cast<std::int64_t>(spec_in.integer("increment_ms", 0, kMaxIncrementMs));
    });
    return spec;
}

std::vector<GameSummary> read_summaries(ObjectReader& in) {
    std::vector<GameSummary> games;
    in.objects("games", [&](ObjectReader& game_in) {
        GameSummary& game = games.emplace_back();
        game.game = game_in.text("game", kGameIdRule);
        game.variant = read_variant(game_in);
        game.status = read_status(game_in);
        read_players(game_in, game.variant, game.first, game.second);
        game.time_control = read_time_control(game_in);
        game.ply = static_cast<std::uint32_t>(game_in.integer("ply", 0, kMaxU32));
        game.result = read_result(game_in);
        game.reason = read_reason(game_in, true);
        game.created_ms = static_cast<std::int64_t>(game_in.integer("created_ms", 0, kMaxI64));
        read_rated(game_in, game.rated, game.rating_range);
    });
    return games;
}

ServerBody read_welcome(Context& message) {
    ObjectReader& in = message.in;
    Welcome welcome;
    welcome.server = in.text("server");
    welcome.protocol = static_cast<int>(in.integer("protocol", 1, std::numeric_limits<int>::max()));
    in.objects("engines", [&](ObjectReader& engine_in) {
        EngineInfo& engine = welcome.engines.emplace_back();
        engine.name = engine_in.text("name", kEngineRule);
        for (const std::string& name : engine_in.texts("variants", kAnyText)) {
            const auto variant = rules::parse_variant(name);
            if (!variant || std::find(engine.variants.begin(), engine.variants.end(), *variant) !=
                                engine.variants.end()) {
                engine_in.fail(engine_in.quoted("variants") +
                               ": must list variants (chess, xiangqi, draughts), each once");
                return;
            }
            engine.variants.push_back(*variant);
        }
    });
    in.object("user", true, [&](ObjectReader& user_in) {
        welcome.user = SignedInUser{user_in.text("username", kNameRule)};
    });
    return welcome;
}

template <bool Created>
ServerBody read_seat_granted(Context& message) {
    ObjectReader& in = message.in;
    SeatGranted seat;
    seat.created = Created;
    seat.game = in.text("game", kGameIdRule);
    seat.variant = read_variant(in);
    seat.seat = read_side(in, "seat", seat.variant);
    seat.token = in.text("token", kTokenRule);
    return seat;
}

// A draughts route (protocol.md, Routes): squares 1..32.
rules::MoveRoute read_route(ObjectReader& in) {
    constexpr std::uint64_t kLastSquare = 32;
    rules::MoveRoute route;
    for (const std::uint64_t square : in.integers("path", 1, kLastSquare)) {
        route.path.push_back(static_cast<int>(square));
    }
    for (const std::uint64_t square : in.integers("taken", 1, kLastSquare)) {
        route.taken.push_back(static_cast<int>(square));
    }
    return route;
}

// Draughts: `routes`, one per legal move; the other games send none.
std::vector<rules::MoveRoute> read_routes(ObjectReader& in, Variant variant) {
    std::vector<rules::MoveRoute> routes;
    if (variant == Variant::draughts) {
        in.objects("routes",
                   [&](ObjectReader& route_in) { routes.push_back(read_route(route_in)); });
    }
    return routes;
}

const std::array<std::string_view, 2> kChatRoomNames = {"players", "spectators"};
/// A chat message's text as the server sends it: what `chat` accepts, trimmed.
constexpr text::TextRule kChatTextRule{1, kMaxChatLength, text::Charset::printable};

ChatRoom read_chat_room(ObjectReader& in) {
    return static_cast<ChatRoom>(in.choice("room", kChatRoomNames).value_or(0));
}

// `chat` of a state or a record; absent (a server from before chat): none.
std::vector<ChatLine> read_chat_lines(ObjectReader& in) {
    std::vector<ChatLine> lines;
    if (!in.present("chat")) {
        return lines;
    }
    in.objects("chat", [&](ObjectReader& line_in) {
        ChatLine& line = lines.emplace_back();
        line.seq = line_in.integer("seq", 1, kMaxU64);
        line.room = read_chat_room(line_in);
        line.from = line_in.text("from", kNameRule);
        line.text = line_in.text("text", kChatTextRule);
        line.at_ms = static_cast<std::int64_t>(line_in.integer("at_ms", 0, kMaxI64));
    });
    return lines;
}

ServerBody read_state(Context& message) {
    ObjectReader& in = message.in;
    State state;
    state.game = in.text("game", kGameIdRule);
    state.seq = in.integer("seq", 0, kMaxU64);
    state.variant = read_variant(in);
    state.status = read_status(in);
    const auto you = in.choice("you", seat_names(state.variant, "spectator"));
    state.you = you && *you < 2 ? std::optional(static_cast<Side>(*you)) : std::nullopt;
    read_players(in, state.variant, state.first, state.second);
    state.initial_position = in.text("initial_position");
    state.position = in.text("position");
    state.moves = in.texts("moves", kWireMoveRule);
    state.notation = in.texts("notation", kAnyText);
    state.ply = static_cast<std::uint32_t>(in.integer("ply", 0, kMaxU32));
    state.turn = read_side(in, "turn", state.variant);
    state.legal = in.texts("legal", kWireMoveRule);
    state.routes = read_routes(in, state.variant);
    state.check = in.boolean("check");
    state.clock = read_clock(in, state.variant);
    state.time_control = read_time_control(in);
    state.result = read_result(in);
    state.reason = read_reason(in, true);
    in.objects("offers", [&](ObjectReader& offer_in) {
        OpenOffer& offer = state.offers.emplace_back();
        offer.kind = static_cast<OfferKind>(offer_in.choice("kind", kOfferKindNames).value_or(0));
        offer.by = read_side(offer_in, "by", state.variant);
    });
    state.spectators = static_cast<std::uint32_t>(in.integer("spectators", 0, kMaxU32));
    state.rematch = in.text_or_null("rematch", kGameIdRule);
    read_rated(in, state.rated, state.rating_range);
    state.chat = read_chat_lines(in);
    return state;
}

// `moved` and `takeback`: the position the event leaves, read in the order the encoder writes it.
template <typename Event>
void read_position_after(ObjectReader& in, Event& event) {
    event.position = in.text("position");
    event.turn = read_side(in, "turn", event.variant);
    event.legal = in.texts("legal", kWireMoveRule);
    event.routes = read_routes(in, event.variant);
    event.check = in.boolean("check");
    event.clock = read_clock(in, event.variant);
}

ServerBody read_moved(Context& message) {
    ObjectReader& in = message.in;
    Moved moved;
    std::tie(moved.game, moved.variant) = read_game_and_variant(message);
    moved.seq = in.integer("seq", 0, kMaxU64);
    moved.ply = static_cast<std::uint32_t>(in.integer("ply", 0, kMaxU32));
    moved.move = in.text("move", kWireMoveRule);
    moved.notation = in.text("notation");
    if (moved.variant == Variant::draughts && in.present("route")) {
        in.object("route", false,
                  [&](ObjectReader& route_in) { moved.route = read_route(route_in); });
    }
    read_position_after(in, moved);
    return moved;
}

ServerBody read_ended(Context& message) {
    ObjectReader& in = message.in;
    Ended ended;
    ended.game = in.text("game", kGameIdRule);
    ended.seq = in.integer("seq", 0, kMaxU64);
    ended.result = read_result(in);
    ended.reason = read_reason(in, false);
    // schema/messages/server.ended.schema.json: a game ends as ended or aborted, nothing else.
    static const std::array<std::string_view, 2> kEndStatuses = {to_string(GameStatus::ended),
                                                                 to_string(GameStatus::aborted)};
    const auto status = in.choice("status", kEndStatuses);
    ended.status = status == 1U ? GameStatus::aborted : GameStatus::ended;
    // The seats of `ratings` are named as in the game's variant (its state told the client).
    ended.variant = message.variant_of(ended.game).value_or(Variant::chess);
    ended.ratings = read_end_ratings(in, ended.variant);
    return ended;
}

ServerBody read_offer(Context& message) {
    ObjectReader& in = message.in;
    OfferEvent offer;
    std::tie(offer.game, offer.variant) = read_game_and_variant(message);
    offer.seq = in.integer("seq", 0, kMaxU64);
    offer.kind = static_cast<OfferKind>(in.choice("kind", kOfferKindNames).value_or(0));
    offer.action = static_cast<OfferAction>(in.choice("action", kOfferActionNames).value_or(0));
    offer.by = read_side(in, "by", offer.variant);
    return offer;
}

ServerBody read_takeback(Context& message) {
    ObjectReader& in = message.in;
    TakenBack takeback;
    std::tie(takeback.game, takeback.variant) = read_game_and_variant(message);
    takeback.seq = in.integer("seq", 0, kMaxU64);
    takeback.ply = static_cast<std::uint32_t>(in.integer("ply", 0, kMaxU32));
    read_position_after(in, takeback);
    return takeback;
}

ServerBody read_presence(Context& message) {
    ObjectReader& in = message.in;
    Presence presence;
    std::tie(presence.game, presence.variant) = read_game_and_variant(message);
    presence.seq = in.integer("seq", 0, kMaxU64);
    presence.seat = read_side(in, "seat", presence.variant);
    presence.connected = in.boolean("connected");
    if (const auto after = in.integer_or_null("claim_after_ms", 0, kMaxI64)) {
        presence.claim_after_ms = static_cast<std::int64_t>(*after);
    }
    return presence;
}

ServerBody read_rematch(Context& message) {
    ObjectReader& in = message.in;
    RematchEvent rematch;
    rematch.game = in.text("game", kGameIdRule);
    rematch.seq = in.integer("seq", 0, kMaxU64);
    rematch.next = in.text("next", kGameIdRule);
    return rematch;
}

ServerBody read_spectators(Context& message) {
    ObjectReader& in = message.in;
    SpectatorCount count;
    count.game = in.text("game", kGameIdRule);
    count.count = static_cast<std::uint32_t>(in.integer("count", 0, kMaxU32));
    // Read when present: a client keeps working with a server from before the names.
    if (in.present("watchers")) {
        in.objects("watchers", [&](ObjectReader& watcher_in) {
            if (count.watchers.size() == kMaxListedWatchers) {
                watcher_in.fail(in.quoted("watchers") + ": at most 50 names");
                return;
            }
            Watcher& watcher = count.watchers.emplace_back();
            watcher.name = watcher_in.text("name");
            watcher.guest = watcher_in.boolean("guest");
        });
    }
    return count;
}

ServerBody read_seat_lost(Context& message) {
    ObjectReader& in = message.in;
    SeatLost lost;
    std::tie(lost.game, lost.variant) = read_game_and_variant(message);
    lost.seat = read_side(in, "seat", lost.variant);
    lost.reason = static_cast<SeatLossReason>(in.choice("reason", kSeatLossNames).value_or(0));
    const auto you = in.choice("you", seat_names(lost.variant, "spectator"), true);
    if (you && *you < 2) {
        lost.still_seated = static_cast<Side>(*you);
    }
    lost.still_watching = you == 2U;
    return lost;
}

ServerBody read_lobby(Context& message) {
    LobbyList list{read_summaries(message.in), std::nullopt};
    list.next = message.in.optional_text("next", kGameIdRule);
    return list;
}

ServerBody read_games(Context& message) {
    return GamesList{read_summaries(message.in)};
}

ServerBody read_record(Context& message) {
    ObjectReader& in = message.in;
    Record record;
    record.game = in.text("game", kGameIdRule);
    record.variant = read_variant(in);
    record.status = read_status(in);
    read_players(in, record.variant, record.first, record.second);
    record.time_control = read_time_control(in);
    record.initial_position = in.text("initial_position");
    record.initial_check = in.boolean("initial_check");
    in.objects("moves", [&](ObjectReader& move_in) {
        RecordMove& move = record.moves.emplace_back();
        move.ply = static_cast<std::uint32_t>(move_in.integer("ply", 1, kMaxU32));
        move.move = move_in.text("move", kWireMoveRule);
        move.notation = move_in.text("notation");
        move.position = move_in.text("position");
        if (const auto clock = move_in.integer_or_null("clock_ms", 0, kMaxI64)) {
            move.clock_ms = static_cast<std::int64_t>(*clock);
        }
        if (const auto think = move_in.integer_or_null("think_ms", 0, kMaxI64)) {
            move.think_ms = static_cast<std::int64_t>(*think);
        }
        move.check = move_in.boolean("check");
        if (const auto lag = move_in.optional_integer("lag_ms", 0, kMaxI64)) {
            move.lag_ms = static_cast<std::int64_t>(*lag);
        }
    });
    record.result = read_result(in);
    record.reason = read_reason(in, true);
    record.created_ms = static_cast<std::int64_t>(in.integer("created_ms", 0, kMaxI64));
    read_rated(in, record.rated, record.rating_range);
    record.ratings = read_end_ratings(in, record.variant);
    record.chat = read_chat_lines(in);
    return record;
}

ServerBody read_error(Context& message) {
    ObjectReader& in = message.in;
    ErrorMessage error;
    error.code = static_cast<ErrorCode>(in.choice("code", kErrorCodeNames).value_or(0));
    error.message = in.text("message");
    return error;
}

ServerBody read_pong(Context& /*message*/) {
    return Pong{};
}

ServerBody read_chat(Context& message) {
    ObjectReader& in = message.in;
    ChatEvent chat;
    chat.game = in.text("game", kGameIdRule);
    chat.seq = in.integer("seq", 1, kMaxU64);
    chat.room = read_chat_room(in);
    chat.from = in.text("from", kNameRule);
    chat.text = in.text_or_null("text", kChatTextRule);
    chat.at_ms = static_cast<std::int64_t>(in.integer("at_ms", 0, kMaxI64));
    return chat;
}

ServerBody read_chat_muted(Context& message) {
    ObjectReader& in = message.in;
    ChatMuted muted;
    muted.game = in.text("game", kGameIdRule);
    muted.mute = in.boolean("mute");
    return muted;
}

ServerBody read_analysis(Context& message) {
    ObjectReader& in = message.in;
    AnalysisProgress progress;
    progress.game = in.text("game", kGameIdRule);
    progress.status =
        static_cast<AnalysisStatus>(in.choice("status", kAnalysisStatusNames).value_or(0));
    progress.done = static_cast<std::int64_t>(in.integer("done", 0, kMaxI64));
    // server.analysis.schema.json: the start position at least; never fewer than are done.
    progress.total = static_cast<std::int64_t>(
        in.integer("total", std::max<std::uint64_t>(1, progress.done), kMaxI64));
    return progress;
}

struct MessageType {
    std::string_view name;
    ServerBody (*read)(Context&);
};

constexpr std::array<MessageType, 20> kMessageTypes = {{
    {"welcome", read_welcome},
    {"created", read_seat_granted<true>},
    {"joined", read_seat_granted<false>},
    {"state", read_state},
    {"moved", read_moved},
    {"ended", read_ended},
    {"offer", read_offer},
    {"takeback", read_takeback},
    {"presence", read_presence},
    {"rematch", read_rematch},
    {"spectators", read_spectators},
    {"seat_lost", read_seat_lost},
    {"lobby", read_lobby},
    {"games", read_games},
    {"record", read_record},
    {"error", read_error},
    {"pong", read_pong},
    {"chat", read_chat},
    {"chat_muted", read_chat_muted},
    {"analysis", read_analysis},
}};

ProtocolError refuse(ErrorCode code, std::string message, std::optional<std::string> id = {}) {
    return ProtocolError{code, std::move(message), std::move(id)};
}

}  // namespace

Expected<ServerMessage, ProtocolError> decode_server(std::string_view text,
                                                     const VariantOfGame& variant_of) {
    JsonCursor frame(text);
    if (frame.at_end()) {
        return unexpected(refuse(ErrorCode::bad_json, "the frame is not valid JSON"));
    }
    if (frame.peek() != '{') {
        return unexpected(refuse(ErrorCode::bad_json, "a message must be a JSON object"));
    }
    std::optional<ReadFailure> failure;
    ObjectReader in(text, frame.position(), {}, failure);
    const std::string type = in.text("type");
    const MessageType* reader = nullptr;
    for (const MessageType& candidate : kMessageTypes) {
        if (candidate.name == type) {
            reader = &candidate;
        }
    }
    std::optional<ServerBody> body;
    if (reader != nullptr) {
        Context message{in, variant_of};
        body = reader->read(message);
    } else if (!failure) {
        failure = ReadFailure{ErrorCode::unknown_type,
                              "unknown message type \"" + text::clip(type) + "\""};
    }
    // The id is read last, where the encoder writes it: the fields before it are read in one
    // pass. A refusal carries it when it could be read.
    const std::optional<ReadFailure> body_failure = failure;
    failure.reset();
    std::optional<std::string> id = in.optional_text("id", kIdRule);
    if (failure) {
        return unexpected(refuse(failure->code, std::move(failure->message)));
    }
    failure = body_failure;
    in.finish();
    if (!failure && !JsonCursor(text, in.end()).at_end()) {
        failure = ReadFailure{ErrorCode::bad_json, "the frame is not valid JSON"};
    }
    if (failure) {
        return unexpected(refuse(failure->code, std::move(failure->message), std::move(id)));
    }
    return ServerMessage{std::move(*body), std::move(id)};
}

}  // namespace arbiter::protocol
