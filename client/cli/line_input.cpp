#include "client/cli/line_input.hpp"

#include <iostream>
#include <thread>

namespace arbiter::client {

LineInput::LineInput() : shared_(std::make_shared<Shared>()) {
    // Detached: a read blocked on a terminal cannot be interrupted portably, and the process
    // may exit while it waits. The shared state outlives this object through the shared_ptr.
    std::thread([shared = shared_] {
        std::string line;
        while (std::getline(std::cin, line)) {
            std::lock_guard lock(shared->mutex);
            shared->lines.push_back(line);
        }
        std::lock_guard lock(shared->mutex);
        shared->end = true;
    }).detach();
}

std::optional<std::string> LineInput::next() {
    std::lock_guard lock(shared_->mutex);
    if (shared_->lines.empty()) {
        return std::nullopt;
    }
    std::string line = std::move(shared_->lines.front());
    shared_->lines.pop_front();
    return line;
}

bool LineInput::finished() {
    std::lock_guard lock(shared_->mutex);
    return shared_->end && shared_->lines.empty();
}

}  // namespace arbiter::client
