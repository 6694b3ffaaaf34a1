// encode(): every server message as one line of JSON. Field names and shapes are the "Server to
// client" section of schema/protocol.md; schema/messages/server.*.json check them in a test.
//
// Messages are written straight into their text, not built as a Json tree and dumped: a tree
// allocates a node and a key string per field, and a `record` of a 300-ply game took ~430 us
// that way against ~30 us written directly (a replay, a resume's `state` and every `moved` pay
// it). The text is compact JSON in the documented field order, exactly what nlohmann's dump()
// of the same tree gives: the tests parse each message and dump it again to check that. Strings
// that need escaping or repair go through nlohmann's own serializer.

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "common/protocol/codec.hpp"

namespace arbiter::protocol {

namespace {

/// A string that JSON carries as it is: printable ASCII without quotes or backslashes.
bool plain(std::string_view text) {
    for (const char c : text) {
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
            return false;
        }
    }
    return true;
}

/// Appends JSON tokens to one string, with the commas between values, and no spaces.
class JsonWriter {
  public:
    /// `expected`: about the size of the text, so that it grows once or not at all.
    explicit JsonWriter(std::size_t expected) { out_.resize(expected); }

    JsonWriter& begin_object() { return opening("{"); }
    JsonWriter& end_object() { return closing("}"); }
    JsonWriter& begin_array() { return opening("["); }
    JsonWriter& end_array() { return closing("]"); }
    /// A member's name; its value follows.
    JsonWriter& key(std::string_view name) {
        const std::string_view comma = separator();
        if (plain(name)) {
            put(comma, "\"", name, "\":");
        } else {
            put(comma, escaped(name), ":");
        }
        after_key_ = true;
        return *this;
    }
    JsonWriter& text(std::string_view value) {
        const std::string_view comma = separator();
        if (plain(value)) {
            put(comma, "\"", value, "\"");
        } else {
            put(comma, escaped(value));
        }
        first_ = false;
        return *this;
    }
    /// "" on the C++ side means "not yet" (no result, no reason); the wire says null.
    JsonWriter& text_or_null(std::string_view value) {
        return value.empty() ? null() : text(value);
    }
    template <typename Number>
    JsonWriter& number(Number value) {
        char digits[24];
        const auto end = std::to_chars(std::begin(digits), std::end(digits), value).ptr;
        return literal(std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
    template <typename Number>
    JsonWriter& number_or_null(const std::optional<Number>& value) {
        return value ? number(*value) : null();
    }
    JsonWriter& boolean(bool value) { return literal(value ? "true" : "false"); }
    JsonWriter& null() { return literal("null"); }
    JsonWriter& texts(const std::vector<std::string>& values) {
        begin_array();
        for (const std::string& value : values) {
            text(value);
        }
        return end_array();
    }
    // A member and its value in one call: out.text("type", "moved").number("seq", seq).
    JsonWriter& text(std::string_view name, std::string_view value) {
        return key(name).text(value);
    }
    JsonWriter& text_or_null(std::string_view name, std::string_view value) {
        return key(name).text_or_null(value);
    }
    template <typename Number>
    JsonWriter& number(std::string_view name, Number value) {
        return key(name).number(value);
    }
    template <typename Number>
    JsonWriter& number_or_null(std::string_view name, const std::optional<Number>& value) {
        return key(name).number_or_null(value);
    }
    JsonWriter& boolean(std::string_view name, bool value) { return key(name).boolean(value); }
    JsonWriter& texts(std::string_view name, const std::vector<std::string>& values) {
        return key(name).texts(values);
    }

    std::string finish() && {
        out_.resize(used_);
        return std::move(out_);
    }

  private:
    /// The comma before a value or member, unless it opens its container or follows its key.
    std::string_view separator() {
        if (after_key_) {
            after_key_ = false;
            return {};
        }
        return first_ ? std::string_view() : std::string_view(",");
    }
    JsonWriter& literal(std::string_view token) {
        put(separator(), token);
        first_ = false;
        return *this;
    }
    JsonWriter& opening(std::string_view bracket) {
        put(separator(), bracket);
        first_ = true;
        return *this;
    }
    JsonWriter& closing(std::string_view bracket) {
        put(bracket);
        first_ = false;
        return *this;
    }
    /// Appends the pieces at the cursor. out_ is sized ahead (doubling when a piece would not
    /// fit) and cut to what was written at the end: a message is many short pieces, and
    /// std::string's push_back and append are calls (libstdc++ instantiates them once), which a
    /// profile of a 300-ply record put at a third of its time, and a resize per piece zero-fills
    /// what the piece then overwrites (a `moved` writes ~45 pieces).
    template <typename... Pieces>
    void put(const Pieces&... pieces) {
        const std::size_t size = (std::string_view(pieces).size() + ...);
        if (out_.size() - used_ < size) {
            out_.resize(std::max(2 * out_.size(), used_ + size));
        }
        char* cursor = out_.data() + used_;
        ((cursor = std::copy_n(std::string_view(pieces).data(), std::string_view(pieces).size(),
                               cursor)),
         ...);
        used_ += size;
    }
    /// A string that needs escaping or repair, quoted by nlohmann's serializer. Names and
    /// messages can carry text that is not valid UTF-8 (a bug upstream must not become an
    /// exception here): bad bytes become U+FFFD instead of a throw.
    static std::string escaped(std::string_view value) {
        return nlohmann::json(std::string(value))
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }

    std::string out_;  ///< [0, used_) is the text; the rest is room for what follows
    std::size_t used_ = 0;
    bool first_ = true;
    bool after_key_ = false;
};

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
            .number("created_ms", game.created_ms)
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
}

void body(JsonWriter& out, const SeatGranted& m) {
    out.text("type", m.created ? "created" : "joined")
        .text("game", m.game)
        .text("seat", seat(m.variant, m.seat))
        .text("token", m.token)
        .text("variant", rules::to_string(m.variant));
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
        .texts("legal", m.legal)
        .boolean("check", m.check);
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
}

void body(JsonWriter& out, const Moved& m) {
    out.text("type", "moved")
        .text("game", m.game)
        .number("seq", m.seq)
        .number("ply", m.ply)
        .text("move", m.move)
        .text("notation", m.notation)
        .text("position", m.position)
        .text("turn", seat(m.variant, m.turn))
        .texts("legal", m.legal)
        .boolean("check", m.check);
    clock(out.key("clock"), m.variant, m.clock);
}

void body(JsonWriter& out, const Ended& m) {
    out.text("type", "ended")
        .text("game", m.game)
        .number("seq", m.seq)
        .text_or_null("result", result_text(m.result))
        .text("reason", to_string(m.reason))
        .text("status", to_string(m.status));
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
        .texts("legal", m.legal)
        .boolean("check", m.check);
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
            .boolean("check", move.check)
            .end_object();
    }
    out.end_array()
        .text_or_null("result", result_text(m.result))
        .text_or_null("reason", to_string(m.reason))
        .number("created_ms", m.created_ms);
}

void body(JsonWriter& out, const ErrorMessage& m) {
    out.text("type", "error").text("code", to_string(m.code)).text("message", m.message);
}

void body(JsonWriter& out, const Pong& /*m*/) {
    out.text("type", "pong");
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

std::size_t expected_size(const Moved& m) {
    return position_event_size(m.position, m.legal);
}

std::size_t expected_size(const TakenBack& m) {
    return position_event_size(m.position, m.legal);
}

std::size_t expected_size(const State& m) {
    return 640 + m.initial_position.size() + m.position.size() + text_size(m.moves) +
           text_size(m.notation) + text_size(m.legal);
}

std::size_t expected_size(const Record& m) {
    std::size_t size = 384 + m.initial_position.size();
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

}  // namespace

std::string encode(const ServerMessage& message) {
    JsonWriter out(std::visit([](const auto& body) { return expected_size(body); }, message.body) +
                   (message.id ? message.id->size() + 8 : 0));
    out.begin_object();
    std::visit([&out](const auto& alternative) { body(out, alternative); }, message.body);
    if (message.id) {
        out.text("id", *message.id);
    }
    out.end_object();
    return std::move(out).finish();
}

std::string encode_error(ErrorCode code, std::string_view message,
                         const std::optional<std::string>& id) {
    return encode(ServerMessage{ErrorMessage{code, std::string(message)}, id});
}

}  // namespace arbiter::protocol
