// read_plain_move(): a strict scanner for one shape of one message. Anything it does not
// recognise returns nullopt, never an error: decode()'s full reader then takes the text.

#include "common/protocol/plain_move.hpp"

#include "common/protocol/field_reader.hpp"

namespace arbiter::protocol::detail {

namespace {

class Scanner {
  public:
    explicit Scanner(std::string_view text) : text_(text) {}

    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' ||
                                      text_[at_] == '\n' || text_[at_] == '\r')) {
            ++at_;
        }
    }

    bool take(char c) {
        skip_space();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }

    // A string of printable ASCII without escapes; the full reader handles every other string.
    std::optional<std::string_view> string() {
        if (!take('"')) {
            return std::nullopt;
        }
        const std::size_t start = at_;
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == '"') {
                return text_.substr(start, at_++ - start);
            }
            if (c == '\\' || c < ' ' || c > '~') {
                return std::nullopt;
            }
            ++at_;
        }
        return std::nullopt;
    }

    // A JSON integer without sign, fraction or exponent, at most kMaxPly.
    std::optional<std::uint64_t> ply() {
        skip_space();
        const std::size_t start = at_;
        std::uint64_t value = 0;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
            value = value * 10 + static_cast<std::uint64_t>(text_[at_] - '0');
            if (value > kMaxPly) {
                return std::nullopt;
            }
            ++at_;
        }
        const std::size_t digits = at_ - start;
        if (digits == 0 || (digits > 1 && text_[start] == '0')) {
            return std::nullopt;  // no number, or a leading zero (not JSON)
        }
        if (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E')) {
            return std::nullopt;
        }
        return value;
    }

    bool at_end() {
        skip_space();
        return at_ == text_.size();
    }

  private:
    std::string_view text_;
    std::size_t at_ = 0;
};

}  // namespace

std::optional<ClientMessage> read_plain_move(std::string_view text) {
    Scanner in(text);
    if (!in.take('{')) {
        return std::nullopt;
    }
    std::optional<std::string_view> type, game, move, id;
    std::optional<std::uint64_t> ply;
    do {
        const auto key = in.string();
        if (!key || !in.take(':')) {
            return std::nullopt;
        }
        std::optional<std::string_view>* slot = nullptr;
        if (*key == "type") {
            slot = &type;
        } else if (*key == "game") {
            slot = &game;
        } else if (*key == "move") {
            slot = &move;
        } else if (*key == "id") {
            slot = &id;
        } else if (*key == "ply" && !ply) {
            ply = in.ply();
            if (!ply) {
                return std::nullopt;
            }
            continue;
        } else {
            return std::nullopt;  // an unknown or repeated member
        }
        if (slot->has_value()) {
            return std::nullopt;
        }
        *slot = in.string();
        if (!slot->has_value()) {
            return std::nullopt;
        }
    } while (in.take(','));
    if (!in.take('}') || !in.at_end()) {
        return std::nullopt;
    }
    if (type != "move" || !game || !move || !ply || !obeys(*game, kGameIdRule) ||
        !obeys(*move, kMoveRule) || (id && !obeys(*id, kIdRule))) {
        return std::nullopt;
    }
    ClientMessage message;
    if (id) {
        message.id = std::string(*id);
    }
    message.body =
        MoveRequest{std::string(*game), std::string(*move), static_cast<std::uint32_t>(*ply)};
    return message;
}

}  // namespace arbiter::protocol::detail
