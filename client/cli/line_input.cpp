#include "client/cli/line_input.hpp"

#include <iostream>
#include <thread>

#include "client/cli/text_rules.hpp"

namespace arbiter::client {

// UTF-8 takes at most 4 bytes a character.
static_assert(kMaxLineBytes >= 4 * kMoveRule.max_length, "a typed line holds any move");

std::optional<TypedLine> read_line(std::istream& in, std::size_t max_bytes) {
    std::string line;
    std::size_t length = 0;
    bool read_any = false;
    char c = 0;
    while (in.get(c)) {
        read_any = true;
        if (c == '\n') {
            break;
        }
        // Past the cap the rest of the line is only counted: it is dropped, not held.
        if (++length <= max_bytes) {
            line.push_back(c);
        }
    }
    if (!read_any) {
        return std::nullopt;
    }
    if (length > max_bytes) {
        return TypedLine(unexpected("ignored: the line is over " + std::to_string(max_bytes) +
                                    " bytes, longer than any move or command; nothing was sent"));
    }
    return TypedLine(std::move(line));
}

LineInput::LineInput() : shared_(std::make_shared<Shared>()) {
    // Detached: a read blocked on a terminal cannot be interrupted portably, and the process
    // may exit while it waits. The shared state outlives this object through the shared_ptr.
    std::thread([shared = shared_] {
        while (auto line = read_line(std::cin)) {
            std::lock_guard lock(shared->mutex);
            shared->lines.push_back(std::move(*line));
        }
        std::lock_guard lock(shared->mutex);
        shared->end = true;
    }).detach();
}

std::optional<TypedLine> LineInput::next() {
    std::lock_guard lock(shared_->mutex);
    if (shared_->lines.empty()) {
        return std::nullopt;
    }
    TypedLine line = std::move(shared_->lines.front());
    shared_->lines.pop_front();
    return line;
}

bool LineInput::finished() {
    std::lock_guard lock(shared_->mutex);
    return shared_->end && shared_->lines.empty();
}

}  // namespace arbiter::client
