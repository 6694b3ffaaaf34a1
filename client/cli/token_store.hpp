#pragma once
/// \file
/// Seat tokens kept per server, game and seat, and the session of `arbiter-cli login` per server,
/// in $XDG_CONFIG_HOME/arbiter/tokens.json (or
/// ~/.config/arbiter/tokens.json), readable by the user only (0600), so that `resume GAME` works
/// without typing the token.

#include <optional>
#include <string>
#include <vector>

#include "common/core/expected.hpp"

namespace arbiter::client {

/// A stored seat.
struct StoredSeat {
    std::string token;
    std::string seat;
};

/// A stored session (arbiter-cli login): who signed in, and the token to send in hello.
struct StoredSession {
    std::string username;
    std::string token;
};

/// The token file.
class TokenStore {
  public:
    /// The store at `path`.
    explicit TokenStore(std::string path);
    /// The store at the default path from the environment (XDG_CONFIG_HOME, else HOME).
    static Expected<TokenStore, std::string> from_environment();

    /// Remembers a seat (replacing an older token for the same server, game and seat; the
    /// other seat of the game, played from the same folder, is kept).
    Expected<void, std::string> save(const std::string& server, const std::string& game,
                                     const StoredSeat& seat) const;
    /// Every seat stored for a game, by seat name.
    std::vector<StoredSeat> seats(const std::string& server, const std::string& game) const;

    /// Remembers the session signed in on `server` (replacing an older one).
    Expected<void, std::string> save_session(const std::string& server,
                                             const StoredSession& session) const;
    /// Forgets the session of `server` (none stored: nothing to do).
    Expected<void, std::string> forget_session(const std::string& server) const;
    /// The session stored for `server`, if any.
    std::optional<StoredSession> find_session(const std::string& server) const;

    const std::string& path() const { return path_; }

  private:
    /// Runs `change` on the file's JSON under the file's lock, and writes the result back.
    template <class Change>
    Expected<void, std::string> update(Change&& change) const;
    /// Replaces the file with `text`, readable by the user only.
    Expected<void, std::string> write_all(const std::string& text) const;

    std::string path_;
};

/// The stored seat to resume `game` with: the one named `wanted`, or, when none is named, the
/// only one stored. The error says what to do (no seat stored; both stored: name one).
Expected<StoredSeat, std::string> choose_seat(const std::vector<StoredSeat>& stored,
                                              const std::string& wanted, const std::string& game);

}  // namespace arbiter::client
