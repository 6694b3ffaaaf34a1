// encode() of a client message: what arbiter-cli and arbiter-load send. Fields are written in
// the order of the tables of schema/protocol.md ("Client to server"), the id last; an optional
// field is left out when it has its default, which decode() reads back as the same value.

#include "common/protocol/codec.hpp"
#include "common/protocol/json_writer.hpp"

namespace arbiter::protocol {

namespace {

using detail::JsonWriter;

/// GamesQuery.limit when the request names none (protocol.md, games).
constexpr int kDefaultLimit = 50;

std::string_view side_name(SidePreference side) {
    switch (side) {
        case SidePreference::first:
            return "first";
        case SidePreference::second:
            return "second";
        case SidePreference::random:
            break;
    }
    return "random";
}

std::string_view claim_name(ClaimKind kind) {
    return kind == ClaimKind::win ? "win" : "draw";
}

void body(JsonWriter& out, const Hello& m) {
    out.text("type", "hello").text("name", m.name);
    if (m.token) {
        out.text("token", *m.token);
    }
}

void body(JsonWriter& out, const Create& m) {
    out.text("type", "create")
        .text("variant", rules::to_string(m.variant))
        .text("side", side_name(m.side));
    if (m.clock) {
        out.key("clock")
            .begin_object()
            .number("initial_ms", m.clock->initial_ms)
            .number("increment_ms", m.clock->increment_ms)
            .end_object();
    }
    if (m.is_private) {
        out.boolean("private", true);
    }
    if (!m.position.empty()) {
        out.text("position", m.position);
    }
    if (m.opponent) {
        out.key("opponent")
            .begin_object()
            .text("engine", m.opponent->engine)
            .number("level", m.opponent->level)
            .end_object();
    }
    if (m.rated) {
        out.boolean("rated", true);
    }
    if (m.rating_range) {
        out.key("rating_range").begin_object();
        if (m.rating_range->min) {
            out.number("min", *m.rating_range->min);
        }
        if (m.rating_range->max) {
            out.number("max", *m.rating_range->max);
        }
        out.end_object();
    }
}

void body(JsonWriter& out, const Join& m) {
    out.text("type", "join").text("game", m.game);
}

void body(JsonWriter& out, const Resume& m) {
    out.text("type", "resume").text("game", m.game);
    if (!m.token.empty()) {
        out.text("token", m.token);
    }
    if (m.since) {
        out.number("since", *m.since);
    }
}

void body(JsonWriter& out, const Watch& m) {
    out.text("type", "watch").text("game", m.game);
    if (m.since) {
        out.number("since", *m.since);
    }
}

void body(JsonWriter& out, const Unwatch& m) {
    out.text("type", "unwatch").text("game", m.game);
}

void body(JsonWriter& out, const MoveRequest& m) {
    out.text("type", "move").text("game", m.game).text("move", m.move).number("ply", m.ply);
    if (m.think_ms) {
        out.number("think_ms", *m.think_ms);
    }
}

void body(JsonWriter& out, const Resign& m) {
    out.text("type", "resign").text("game", m.game);
}

void body(JsonWriter& out, const OfferRequest& m) {
    out.text("type", to_string(m.kind)).text("game", m.game).text("action", to_string(m.action));
}

void body(JsonWriter& out, const Abort& m) {
    out.text("type", "abort").text("game", m.game);
}

void body(JsonWriter& out, const Claim& m) {
    out.text("type", "claim").text("game", m.game).text("kind", claim_name(m.kind));
}

void body(JsonWriter& out, const LobbySubscribe& m) {
    out.text("type", "lobby");
    if (m.limit) {
        out.number("limit", *m.limit);
    }
    if (m.after) {
        out.text("after", *m.after);
    }
}

void body(JsonWriter& out, const GamesQuery& m) {
    out.text("type", "games");
    if (m.status) {
        out.text("status", to_string(*m.status));
    }
    if (m.variant) {
        out.text("variant", rules::to_string(*m.variant));
    }
    if (m.limit != kDefaultLimit) {
        out.number("limit", m.limit);
    }
    if (m.before) {
        out.text("before", *m.before);
    }
}

void body(JsonWriter& out, const ReplayRequest& m) {
    out.text("type", "replay").text("game", m.game);
}

void body(JsonWriter& out, const Ping& /*m*/) {
    out.text("type", "ping");
}

void body(JsonWriter& out, const ChatRequest& m) {
    out.text("type", "chat")
        .text("game", m.game)
        .text("room", to_string(m.room))
        .text("text", m.text);
}

void body(JsonWriter& out, const ChatMute& m) {
    out.text("type", "chat_mute").text("game", m.game).boolean("mute", m.mute);
}

}  // namespace

std::string encode(const ClientMessage& message) {
    // Requests are short: a move, with its game and id, is ~80 bytes; a create with a position
    // is the longest, and grows the text once.
    JsonWriter out(128);
    out.begin_object();
    std::visit([&out](const auto& alternative) { body(out, alternative); }, message.body);
    if (message.id) {
        out.text("id", *message.id);
    }
    out.end_object();
    return std::move(out).finish();
}

}  // namespace arbiter::protocol
