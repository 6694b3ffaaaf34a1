#include "common/rules/xiangqi/pgn.hpp"

#include <utility>

#include "common/rules/pgn_writer.hpp"

namespace arbiter::rules::xiangqi {

std::string export_pgn(const ExportInfo& info, const PgnGame& game) {
    const Outcome outcome = info.outcome != Outcome::ongoing ? info.outcome : game.status.outcome;
    // One notation story: the export's moves are the move list's (WXF), and the Format tag of
    // XQ PGN (xqbase.com: "WXF", "ICCS" or "Chinese") says which notation they are in.
    std::vector<pgn::Tag> tags{{"Variant", "xiangqi"}, {"Format", "WXF"}};
    const std::string fen = game.start.fen();
    if (fen != kStartFen) {
        tags.push_back({"FEN", fen});
        tags.push_back({"SetUp", "1"});
    }
    if (!info.termination.empty()) {
        tags.push_back({"Termination", info.termination});
    }
    pgn::Movetext movetext(game.start.fullmove(),
                           game.start.side_to_move() == Color::red ? Side::first : Side::second);
    for (std::size_t ply = 0; ply < game.wxf.size(); ++ply) {
        movetext.move(game.wxf[ply]);
        const std::string commands = pgn::move_commands(info, ply);
        if (!commands.empty()) {
            // pychess writes its clock comments with spaces inside the braces.
            movetext.comment("{ " + commands + " }");
        }
    }
    return pgn::tag_section(info, "?", outcome, std::move(tags)) +
           movetext.finish(result_string(outcome));
}

}  // namespace arbiter::rules::xiangqi
