#include "common/rules/chess/pgn.hpp"

#include <utility>

#include "common/rules/pgn_writer.hpp"

namespace arbiter::rules::chess {

std::string write_pgn(const PgnMoves& moves, const ExportInfo& info, Outcome outcome,
                      const std::string& termination) {
    std::vector<pgn::Tag> tags{{"Termination", termination}};
    if (!moves.standard_start) {
        tags.push_back({"SetUp", "1"});
        tags.push_back({"FEN", moves.start_fen});
    }
    pgn::Movetext movetext(moves.first_move_number,
                           moves.first_mover == white ? Side::first : Side::second);
    for (std::size_t ply = 0; ply < moves.san.size(); ++ply) {
        movetext.move(moves.san[ply]);
        const std::string commands = pgn::move_commands(info, ply);
        if (!commands.empty()) {
            movetext.comment("{" + commands + "}");
        }
    }
    return pgn::tag_section(info, "-", outcome, std::move(tags)) +
           movetext.finish(result_string(outcome));
}

}  // namespace arbiter::rules::chess
