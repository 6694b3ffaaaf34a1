#pragma once
/// \file
/// Seat tokens kept per server and game in $XDG_CONFIG_HOME/arbiter/tokens.json (or
/// ~/.config/arbiter/tokens.json), readable by the user only (0600), so that `resume GAME` works
/// without typing the token.

#include <optional>
#include <string>

#include "common/core/expected.hpp"

namespace arbiter::client {

/// A stored seat.
struct StoredSeat {
    std::string token;
    std::string seat;
};

/// The token file.
class TokenStore {
  public:
    /// The store at `path`.
    explicit TokenStore(std::string path);
    /// The store at the default path from the environment (XDG_CONFIG_HOME, else HOME).
    static Expected<TokenStore, std::string> from_environment();

    /// Remembers a seat (replacing an older entry for the same server and game).
    Expected<void, std::string> save(const std::string& server, const std::string& game,
                                     const StoredSeat& seat) const;
    /// The seat stored for a game, if any.
    std::optional<StoredSeat> find(const std::string& server, const std::string& game) const;

    const std::string& path() const { return path_; }

  private:
    /// save() once the file is locked: the file read, the seat added, the file replaced.
    Expected<void, std::string> write_with(const std::string& server, const std::string& game,
                                           const StoredSeat& seat) const;

    std::string path_;
};

}  // namespace arbiter::client
