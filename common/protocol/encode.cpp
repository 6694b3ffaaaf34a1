// encode(): every server message as one line of JSON. Field names and shapes are the "Server to
// client" section of schema/protocol.md; schema/messages/server.*.json check them in a test.

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "common/protocol/codec.hpp"

namespace arbiter::protocol {

namespace {

// Insertion-ordered, so that "type" comes first and the fields read in the documented order.
using Json = nlohmann::ordered_json;

std::string seat(rules::Variant variant, rules::Side side) {
    return std::string(rules::seat_name(variant, side));
}

// "" on the C++ side means "not yet" (no result, no reason); the wire says null.
Json text_or_null(const std::string& text) {
    return text.empty() ? Json(nullptr) : Json(text);
}

Json player(const std::optional<PlayerInfo>& info) {
    if (!info) {
        return nullptr;
    }
    Json object{{"name", info->name}, {"connected", info->connected}};
    // Absent for people, so that a human seat reads exactly as before engines existed.
    if (info->engine) {
        object["engine"] = true;
    }
    return object;
}

Json players(rules::Variant variant, const std::optional<PlayerInfo>& first,
             const std::optional<PlayerInfo>& second) {
    Json object = Json::object();
    object[seat(variant, rules::Side::first)] = player(first);
    object[seat(variant, rules::Side::second)] = player(second);
    return object;
}

Json clock(rules::Variant variant, const std::optional<ClockState>& state) {
    if (!state) {
        return nullptr;
    }
    Json object = Json::object();
    object[seat(variant, rules::Side::first) + "_ms"] = state->first_ms;
    object[seat(variant, rules::Side::second) + "_ms"] = state->second_ms;
    object["running"] = state->running;
    return object;
}

Json time_control(const std::optional<ClockSpec>& spec) {
    if (!spec) {
        return nullptr;
    }
    return Json{{"initial_ms", spec->initial_ms}, {"increment_ms", spec->increment_ms}};
}

template <typename T>
Json optional_number(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json summary(const GameSummary& game) {
    return Json{{"game", game.game},
                {"variant", rules::to_string(game.variant)},
                {"status", game.status},
                {"players", players(game.variant, game.first, game.second)},
                {"time_control", time_control(game.time_control)},
                {"ply", game.ply},
                {"result", text_or_null(game.result)},
                {"reason", text_or_null(game.reason)},
                {"created_ms", game.created_ms}};
}

Json summaries(const std::vector<GameSummary>& games) {
    Json list = Json::array();
    for (const GameSummary& game : games) {
        list.push_back(summary(game));
    }
    return list;
}

Json offers(rules::Variant variant, const std::vector<OpenOffer>& open) {
    Json list = Json::array();
    for (const OpenOffer& offer : open) {
        list.push_back(Json{{"kind", to_string(offer.kind)}, {"by", seat(variant, offer.by)}});
    }
    return list;
}

Json record_moves(const std::vector<RecordMove>& moves) {
    Json list = Json::array();
    for (const RecordMove& move : moves) {
        list.push_back(Json{{"ply", move.ply},
                            {"move", move.move},
                            {"notation", move.notation},
                            {"position", move.position},
                            {"clock_ms", optional_number(move.clock_ms)},
                            {"think_ms", optional_number(move.think_ms)}});
    }
    return list;
}

Json engines(const std::vector<EngineInfo>& offered) {
    Json list = Json::array();
    for (const EngineInfo& engine : offered) {
        Json variants = Json::array();
        for (rules::Variant variant : engine.variants) {
            variants.push_back(rules::to_string(variant));
        }
        list.push_back(Json{{"name", engine.name}, {"variants", std::move(variants)}});
    }
    return list;
}

Json body(const Welcome& m) {
    return Json{{"type", "welcome"},
                {"server", m.server},
                {"protocol", m.protocol},
                {"engines", engines(m.engines)}};
}

Json body(const SeatGranted& m) {
    return Json{{"type", m.created ? "created" : "joined"},
                {"game", m.game},
                {"seat", seat(m.variant, m.seat)},
                {"token", m.token},
                {"variant", rules::to_string(m.variant)}};
}

Json body(const State& m) {
    return Json{{"type", "state"},
                {"game", m.game},
                {"seq", m.seq},
                {"variant", rules::to_string(m.variant)},
                {"status", m.status},
                {"you", m.you ? seat(m.variant, *m.you) : std::string("spectator")},
                {"players", players(m.variant, m.first, m.second)},
                {"initial_position", m.initial_position},
                {"position", m.position},
                {"moves", m.moves},
                {"notation", m.notation},
                {"ply", m.ply},
                {"turn", seat(m.variant, m.turn)},
                {"legal", m.legal},
                {"check", m.check},
                {"clock", clock(m.variant, m.clock)},
                {"time_control", time_control(m.time_control)},
                {"result", text_or_null(m.result)},
                {"reason", text_or_null(m.reason)},
                {"offers", offers(m.variant, m.offers)},
                {"spectators", m.spectators},
                {"rematch", m.rematch ? Json(*m.rematch) : Json(nullptr)}};
}

Json body(const Moved& m) {
    return Json{{"type", "moved"},
                {"game", m.game},
                {"seq", m.seq},
                {"ply", m.ply},
                {"move", m.move},
                {"notation", m.notation},
                {"position", m.position},
                {"turn", seat(m.variant, m.turn)},
                {"legal", m.legal},
                {"check", m.check},
                {"clock", clock(m.variant, m.clock)}};
}

Json body(const Ended& m) {
    return Json{{"type", "ended"},    {"game", m.game},
                {"seq", m.seq},       {"result", text_or_null(m.result)},
                {"reason", m.reason}, {"status", m.status}};
}

Json body(const OfferEvent& m) {
    return Json{{"type", "offer"},
                {"game", m.game},
                {"seq", m.seq},
                {"kind", to_string(m.kind)},
                {"action", to_string(m.action)},
                {"by", seat(m.variant, m.by)}};
}

Json body(const TakenBack& m) {
    return Json{
        {"type", "takeback"}, {"game", m.game},         {"seq", m.seq},
        {"ply", m.ply},       {"position", m.position}, {"turn", seat(m.variant, m.turn)},
        {"legal", m.legal},   {"check", m.check},       {"clock", clock(m.variant, m.clock)}};
}

Json body(const Presence& m) {
    return Json{{"type", "presence"},
                {"game", m.game},
                {"seq", m.seq},
                {"seat", seat(m.variant, m.seat)},
                {"connected", m.connected},
                {"claim_after_ms", optional_number(m.claim_after_ms)}};
}

Json body(const RematchEvent& m) {
    return Json{{"type", "rematch"}, {"game", m.game}, {"seq", m.seq}, {"next", m.next}};
}

Json body(const SpectatorCount& m) {
    return Json{{"type", "spectators"}, {"game", m.game}, {"count", m.count}};
}

Json body(const LobbyList& m) {
    return Json{{"type", "lobby"}, {"games", summaries(m.games)}};
}

Json body(const GamesList& m) {
    return Json{{"type", "games"}, {"games", summaries(m.games)}};
}

Json body(const Record& m) {
    return Json{{"type", "record"},
                {"game", m.game},
                {"variant", rules::to_string(m.variant)},
                {"status", m.status},
                {"players", players(m.variant, m.first, m.second)},
                {"time_control", time_control(m.time_control)},
                {"initial_position", m.initial_position},
                {"moves", record_moves(m.moves)},
                {"result", text_or_null(m.result)},
                {"reason", text_or_null(m.reason)},
                {"created_ms", m.created_ms}};
}

Json body(const ErrorMessage& m) {
    return Json{{"type", "error"}, {"code", to_string(m.code)}, {"message", m.message}};
}

Json body(const Pong& /*m*/) {
    return Json{{"type", "pong"}};
}

// `moved` is the message of every move, to every player and spectator of the game, so it is
// written straight into its text instead of through a Json tree (measured: building the tree,
// its ~40 strings and the dump were ~15% of the server's network threads' CPU under load). The
// text is byte for byte what the tree would dump; a string that dump() would escape or repair
// (quotes, backslashes, control characters, anything not ASCII) sends the message the general
// way instead, so the two can never differ.
bool plain(std::string_view text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; });
}

class DirectWriter {
  public:
    explicit DirectWriter(std::size_t reserve) { out_.reserve(reserve); }

    DirectWriter& key(std::string_view name) {
        out_ += out_.empty() ? "{\"" : ",\"";
        out_ += name;
        out_ += "\":";
        return *this;
    }
    DirectWriter& text(std::string_view value) {
        out_ += '"';
        out_ += value;
        out_ += '"';
        return *this;
    }
    template <typename Number>
    DirectWriter& number(Number value) {
        char digits[24];
        const auto end = std::to_chars(std::begin(digits), std::end(digits), value).ptr;
        out_.append(digits, end);
        return *this;
    }
    DirectWriter& boolean(bool value) {
        out_ += value ? "true" : "false";
        return *this;
    }
    DirectWriter& raw(std::string_view json) {
        out_ += json;
        return *this;
    }
    std::string finish() {
        out_ += '}';
        return std::move(out_);
    }

  private:
    std::string out_;
};

std::optional<std::string> encode_moved_directly(const Moved& m,
                                                 const std::optional<std::string>& id) {
    const bool all_plain = plain(m.game) && plain(m.move) && plain(m.notation) &&
                           plain(m.position) && (!id || plain(*id)) &&
                           std::all_of(m.legal.begin(), m.legal.end(),
                                       [](const std::string& move) { return plain(move); });
    if (!all_plain) {
        return std::nullopt;
    }
    std::size_t legal_bytes = 0;
    for (const std::string& move : m.legal) {
        legal_bytes += move.size() + 3;
    }
    DirectWriter out(192 + m.game.size() + m.position.size() + legal_bytes);
    out.key("type").text("moved");
    out.key("game").text(m.game);
    out.key("seq").number(m.seq);
    out.key("ply").number(m.ply);
    out.key("move").text(m.move);
    out.key("notation").text(m.notation);
    out.key("position").text(m.position);
    out.key("turn").text(rules::seat_name(m.variant, m.turn));
    out.key("legal").raw("[");
    for (std::size_t i = 0; i < m.legal.size(); ++i) {
        out.raw(i == 0 ? "" : ",").text(m.legal[i]);
    }
    out.raw("]");
    out.key("check").boolean(m.check);
    out.key("clock");
    if (m.clock) {
        out.raw("{\"")
            .raw(rules::seat_name(m.variant, rules::Side::first))
            .raw("_ms\":")
            .number(m.clock->first_ms)
            .raw(",\"")
            .raw(rules::seat_name(m.variant, rules::Side::second))
            .raw("_ms\":")
            .number(m.clock->second_ms)
            .raw(",\"running\":")
            .boolean(m.clock->running)
            .raw("}");
    } else {
        out.raw("null");
    }
    if (id) {
        out.key("id").text(*id);
    }
    return out.finish();
}

}  // namespace

std::string encode(const ServerMessage& message) {
    if (const auto* moved = std::get_if<Moved>(&message.body)) {
        if (auto text = encode_moved_directly(*moved, message.id)) {
            return std::move(*text);
        }
    }
    Json json = std::visit([](const auto& alternative) { return body(alternative); }, message.body);
    if (message.id) {
        json["id"] = *message.id;
    }
    // Names and messages can carry text that is not valid UTF-8 (a bug upstream must not become
    // an exception here): replace bad bytes with U+FFFD instead of throwing.
    return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string encode_error(ErrorCode code, std::string_view message,
                         const std::optional<std::string>& id) {
    return encode(ServerMessage{ErrorMessage{code, std::string(message)}, id});
}

}  // namespace arbiter::protocol
