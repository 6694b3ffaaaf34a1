#pragma once
/// \file
/// Standard input read line by line on a thread of its own, so that the main loop can wait for
/// server messages and typed lines together. A line is kept up to kMaxLineBytes: a longer one
/// (a paste gone wrong) is read to its end and dropped, never held whole.

#include <cstddef>
#include <deque>
#include <istream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/core/expected.hpp"

namespace arbiter::client {

/// The longest typed line kept, in bytes: far above any move (at most 64 characters, so 256
/// bytes of UTF-8, protocol.md) or command.
inline constexpr std::size_t kMaxLineBytes = 4UL * 1024;

/// A typed line, or the note saying why it was refused (it was too long).
using TypedLine = Expected<std::string, std::string>;

/// The next line of `in` without its '\n', like std::getline, but keeping at most `max_bytes`:
/// a longer line is read to its end and refused. nullopt at the end of input.
std::optional<TypedLine> read_line(std::istream& in, std::size_t max_bytes = kMaxLineBytes);

/// Lines typed or piped in.
class LineInput {
  public:
    /// Starts reading standard input.
    LineInput();
    /// The next complete line, if one is waiting.
    std::optional<TypedLine> next();
    /// True once standard input is exhausted and every line was taken.
    bool finished();

  private:
    struct Shared {
        std::mutex mutex;
        std::deque<TypedLine> lines;
        bool end = false;
    };
    std::shared_ptr<Shared> shared_;
};

}  // namespace arbiter::client
