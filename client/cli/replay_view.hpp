#pragma once
/// \file
/// A stored game (the server's `record`) as text: the whole game printed, or the board at one
/// ply for stepping through it, and the stepping keys.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/cli/render.hpp"
#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::client {

/// One move of a record.
struct RecordMove {
    std::uint64_t ply = 0;
    std::string move;      ///< wire notation
    std::string notation;  ///< display notation
    std::string position;  ///< FEN after the move
    bool check = false;    ///< the side to move after it is in check
};

/// The parts of a `record` that replay shows.
struct GameRecord {
    std::string game;
    std::string variant;
    std::string status;
    std::string initial_position;
    bool initial_check = false;
    std::vector<std::pair<std::string, std::string>> players;  ///< (seat, name), first seat first
    std::vector<RecordMove> moves;
    std::string result;
    std::string reason;
};

/// The parts of a `record` message that replay shows, as text.
GameRecord read_record(const protocol::Record& message);

/// The whole game: a header line, the moves in numbered pairs (`1. e4 e5  2. Nf3 Nc6`), the
/// result.
std::string print_record(const GameRecord& record);
/// The whole game as PGN: the tags (Event, Variant, the players by seat, Result, FEN of a game
/// that did not start from the chess start, Termination) and the movetext in display notation.
std::string print_record_pgn(const GameRecord& record);

/// The board after `ply` plies (0: the start), with the move that led there.
std::string render_record_at(const GameRecord& record, std::size_t ply, const RenderStyle& style,
                             bool flip);

/// Where a replay key takes the viewer.
struct ReplayStep {
    std::size_t ply = 0;
    bool quit = false;
    bool flip = false;
};

/// Reads one typed key: next/n/Enter, prev/p, first/f, last/l, a ply number, flip, quit/q.
Expected<ReplayStep, std::string> parse_replay_step(std::string_view line, std::size_t current,
                                                    std::size_t total);

}  // namespace arbiter::client
