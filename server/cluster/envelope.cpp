#include "server/cluster/envelope.hpp"

#include <algorithm>
#include <optional>

#include "common/core/assert.hpp"
#include "common/core/cluster_id.hpp"
#include "common/core/overloaded.hpp"

namespace arbiter::server::cluster {

namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::string_view kInboxPrefix = "inbox:";
constexpr std::string_view kGamePrefix = "game:";

enum class Kind : std::uint8_t { intent = 1, answer = 2, event = 3 };

class Writer {
  public:
    explicit Writer(Kind kind) {
        bytes_.push_back(static_cast<char>(kVersion));
        bytes_.push_back(static_cast<char>(kind));
    }
    void integer(std::uint64_t value) {
        for (int byte = 0; byte < 8; ++byte) {
            bytes_.push_back(static_cast<char>((value >> (8 * byte)) & 0xffU));
        }
    }
    void count(std::size_t value) {
        ARBITER_ASSERT(value <= kMaxMessageBytes);
        for (int byte = 0; byte < 4; ++byte) {
            bytes_.push_back(static_cast<char>((value >> (8 * byte)) & 0xffU));
        }
    }
    void id(std::string_view value) {
        ARBITER_ASSERT(valid_id(value));
        text(value);
    }
    /// An id, or nothing (an empty text).
    void optional_id(std::string_view value) {
        if (!value.empty()) {
            id(value);
        } else {
            text({});
        }
    }
    void text(std::string_view value) {
        count(value.size());
        bytes_.append(value);
    }
    std::string take() && { return std::move(bytes_); }

  private:
    std::string bytes_;
};

/// Reads fields off the front of the input; the first failure sticks and later reads give
/// empty values, so that a decoder reads every field and checks once at the end.
class Reader {
  public:
    explicit Reader(std::string_view bytes) : rest_(bytes) {}

    std::uint64_t integer(std::string_view field) {
        const auto raw = take(8, field);
        std::uint64_t value = 0;
        for (std::size_t byte = raw.size(); byte-- > 0;) {
            value = (value << 8) | static_cast<unsigned char>(raw[byte]);
        }
        return value;
    }
    std::size_t count(std::string_view field, std::size_t max) {
        const auto raw = take(4, field);
        std::size_t value = 0;
        for (std::size_t byte = raw.size(); byte-- > 0;) {
            value = (value << 8) | static_cast<unsigned char>(raw[byte]);
        }
        if (value > max) {
            fail(std::string(field) + " is too long");
            return 0;
        }
        return value;
    }
    std::string text(std::string_view field, std::size_t max) {
        const auto size = count(field, max);
        return std::string(take(size, field));
    }
    std::string id(std::string_view field, bool may_be_empty = false) {
        auto value = text(field, kMaxIdBytes);
        if (!error_ && !(may_be_empty && value.empty()) && !valid_id(value)) {
            fail(std::string(field) + " is not a valid id");
        }
        return value;
    }
    void fail(std::string reason) {
        if (!error_) {
            error_ = std::move(reason);
        }
        rest_ = {};
    }
    /// The error, or one for bytes left over after the last field.
    std::optional<std::string> finish() {
        if (!error_ && !rest_.empty()) {
            error_ = "bytes after the last field";
        }
        return error_;
    }

  private:
    std::string_view take(std::size_t size, std::string_view field) {
        if (error_ || rest_.size() < size) {
            fail("truncated in " + std::string(field));
            return {};
        }
        const auto taken = rest_.substr(0, size);
        rest_.remove_prefix(size);
        return taken;
    }

    std::string_view rest_;
    std::optional<std::string> error_;
};

Intent read_intent(Reader& in) {
    Intent intent;
    intent.from_node = in.id("from_node");
    intent.connection = in.integer("connection");
    intent.attempt = in.integer("attempt");
    intent.game = in.id("game");
    intent.message = in.text("message", kMaxMessageBytes);
    return intent;
}

Answer read_answer(Reader& in) {
    Answer answer;
    answer.from_node = in.id("from_node");
    answer.connection = in.integer("connection");
    answer.attempt = in.integer("attempt");
    answer.game = in.id("game");
    const auto kind = in.integer("kind");
    if (kind == static_cast<std::uint64_t>(AnswerKind::replied)) {
        answer.kind = AnswerKind::replied;
    } else if (kind == static_cast<std::uint64_t>(AnswerKind::not_owner)) {
        answer.kind = AnswerKind::not_owner;
    } else {
        in.fail("unknown answer kind");
    }
    answer.owner_node = in.id("owner_node", true);
    answer.owner_epoch = in.integer("owner_epoch");
    const auto messages = in.count("messages", kMaxAnswerMessages);
    for (std::size_t index = 0; index < messages; ++index) {
        answer.messages.push_back(in.text("message", kMaxMessageBytes));
    }
    return answer;
}

Event read_event(Reader& in) {
    Event event;
    event.game = in.id("game");
    event.seq = in.integer("seq");
    event.owner_node = in.id("owner_node");
    event.owner_epoch = in.integer("owner_epoch");
    event.message = in.text("message", kMaxMessageBytes);
    event.cause_node = in.id("cause_node", true);
    event.cause_attempt = in.integer("cause_attempt");
    return event;
}

}  // namespace

std::string encode(const Envelope& envelope) {
    return std::visit(Overloaded{
                          [](const Intent& intent) {
                              Writer out(Kind::intent);
                              out.id(intent.from_node);
                              out.integer(intent.connection);
                              out.integer(intent.attempt);
                              out.id(intent.game);
                              out.text(intent.message);
                              return std::move(out).take();
                          },
                          [](const Answer& answer) {
                              ARBITER_ASSERT(answer.messages.size() <= kMaxAnswerMessages);
                              Writer out(Kind::answer);
                              out.id(answer.from_node);
                              out.integer(answer.connection);
                              out.integer(answer.attempt);
                              out.id(answer.game);
                              out.integer(static_cast<std::uint64_t>(answer.kind));
                              out.optional_id(answer.owner_node);
                              out.integer(answer.owner_epoch);
                              out.count(answer.messages.size());
                              for (const auto& message : answer.messages) {
                                  out.text(message);
                              }
                              return std::move(out).take();
                          },
                          [](const Event& event) {
                              Writer out(Kind::event);
                              out.id(event.game);
                              out.integer(event.seq);
                              out.id(event.owner_node);
                              out.integer(event.owner_epoch);
                              out.text(event.message);
                              out.optional_id(event.cause_node);
                              out.integer(event.cause_attempt);
                              return std::move(out).take();
                          },
                      },
                      envelope);
}

Expected<Envelope, EnvelopeError> decode(std::string_view bytes) {
    if (bytes.size() < 2) {
        return unexpected(EnvelopeError{"shorter than a header"});
    }
    if (static_cast<std::uint8_t>(bytes[0]) != kVersion) {
        return unexpected(EnvelopeError{"unknown version"});
    }
    const auto kind = static_cast<std::uint8_t>(bytes[1]);
    Reader in(bytes.substr(2));
    Envelope envelope;
    switch (kind) {
        case static_cast<std::uint8_t>(Kind::intent):
            envelope = read_intent(in);
            break;
        case static_cast<std::uint8_t>(Kind::answer):
            envelope = read_answer(in);
            break;
        case static_cast<std::uint8_t>(Kind::event):
            envelope = read_event(in);
            break;
        default:
            return unexpected(EnvelopeError{"unknown kind"});
    }
    if (auto error = in.finish()) {
        return unexpected(EnvelopeError{std::move(*error)});
    }
    return envelope;
}

bool valid_id(std::string_view id) noexcept {
    return is_cluster_id(id);
}

std::string inbox_channel(std::string_view node) {
    return std::string(kInboxPrefix).append(node);
}

std::string game_channel(std::string_view game) {
    return std::string(kGamePrefix).append(game);
}

std::string_view game_of_channel(std::string_view channel) noexcept {
    if (!channel.starts_with(kGamePrefix)) {
        return {};
    }
    return channel.substr(kGamePrefix.size());
}

}  // namespace arbiter::server::cluster
