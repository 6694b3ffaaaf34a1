#pragma once
/// \file
/// Standard input read line by line on a thread of its own, so that the main loop can wait for
/// server messages and typed lines together.

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace arbiter::client {

/// Lines typed or piped in.
class LineInput {
  public:
    /// Starts reading standard input.
    LineInput();
    /// The next complete line, if one is waiting.
    std::optional<std::string> next();
    /// True once standard input is exhausted and every line was taken.
    bool finished();

  private:
    struct Shared {
        std::mutex mutex;
        std::deque<std::string> lines;
        bool end = false;
    };
    std::shared_ptr<Shared> shared_;
};

}  // namespace arbiter::client
