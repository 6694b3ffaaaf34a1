#pragma once
/// \file
/// The export format of PGN (PGN standard 8) shared by chess and xiangqi: the tag section in its
/// standard order, and movetext with move number indications, comments and lines of fewer than
/// 80 characters. Each game supplies its own moves, comments and extra tags. Draughts writes PDN,
/// which keeps PGN's tag pairs and movetext but has results of its own (pdn_tag_section).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/rules/game.hpp"

namespace arbiter::rules::pgn {

/// A tag pair beyond the Seven Tag Roster ("FEN", "SetUp", "Termination", "Variant", ...).
struct Tag {
    std::string name;
    std::string value;
};

/// The tag section and the empty line after it (PGN 8.1.1): the Seven Tag Roster in its fixed
/// order (Event, Site, Date, Round, White, Black, Result), filled from `info`, `round` and
/// `outcome`, then `other` and info's TimeControl (when set) in ASCII order of their names. Values
/// are escaped (PGN 7); an empty value is written as "?", an empty date as "????.??.??".
std::string tag_section(const ExportInfo& info, std::string_view round, Outcome outcome,
                        std::vector<Tag> other);

/// The tag section of a PDN game (PDN 3.0 takes PGN's tag pairs, their order and their
/// escaping): as tag_section, TimeControl included (PDN 3.0 has no clock tag of its own; PGN's
/// is the one lidraughts writes), with PDN's own `result` text ("2-0", "1-1", "0-2", "*").
std::string pdn_tag_section(const ExportInfo& info, std::string_view round, std::string_view result,
                            std::vector<Tag> other);

/// The clock command "[%clk h:mm:ss]" (lichess, chess.com, pychess) for `ms` of remaining time,
/// whole seconds rounded down, to be put inside a comment.
std::string clock_command(std::int64_t ms);

/// The evaluation command of Lichess's PGN export, to be put inside a comment: "[%eval 0.17]"
/// for centipawns (pawns with two decimals, from the first side's view), "[%eval #3]" for a mate
/// in 3, "[%eval #-3]" when the first side is mated in 3.
std::string eval_command_centipawns(int centipawns);
/// See eval_command_centipawns().
std::string eval_command_mate(int moves);

/// The commands of the comment after ply `ply` (0-based) of `info`: its evaluation ("[%eval
/// 0.17]", when the game was analysed) and its clock ("[%clk 0:03:00]", when timed), in that order
/// and separated by a space, as Lichess exports them; empty when there is neither. Chess,
/// xiangqi and draughts write the same commands, each in its own braces.
std::string move_commands(const ExportInfo& info, std::size_t ply);

/// Movetext in export format (PGN 8.2): tokens separated by single spaces, wrapped into lines of
/// fewer than 80 characters, a move number before every first-side move and "N..." before a
/// second-side move that opens the movetext or follows a comment (PGN 8.2.2.2).
class Movetext {
  public:
    /// Movetext whose first move is `first_mover`'s, in move number `first_move_number`.
    Movetext(int first_move_number, Side first_mover) noexcept
        : number_(first_move_number), mover_(first_mover) {}

    /// Appends the next move, in the game's notation ("Nf3", "Che3"), with its move number
    /// indication where one is due.
    void move(std::string_view notation);
    /// Appends a comment written whole, braces included ("{[%clk 0:05:00]}"); it is kept on one
    /// line.
    void comment(std::string_view comment);
    /// The movetext ended by `result` ("1-0", "*"), a line break and the empty line that
    /// terminates a game in export format.
    std::string finish(std::string_view result);

  private:
    void add(std::string_view token);

    std::string text_;  ///< the finished lines
    std::string line_;  ///< the line being filled
    int number_;
    Side mover_;
    bool number_due_ = true;  ///< a second-side move here needs "N..." (start, after a comment)
};

}  // namespace arbiter::rules::pgn
