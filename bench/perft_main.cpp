// arbiter-perft VARIANT "FEN|startpos" DEPTH [--divide]
// Counts the leaf nodes of the legal-move tree and prints nodes, seconds and nodes per second.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "common/rules/game.hpp"

namespace {

int usage() {
    std::fprintf(
        stderr,
        "usage: arbiter-perft chess|xiangqi|draughts \"<FEN>|startpos\" DEPTH [--divide]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace arbiter::rules;
    if (argc < 4 || argc > 5) {
        return usage();
    }
    const auto variant = parse_variant(argv[1]);
    if (!variant) {
        std::fprintf(stderr, "unknown variant '%s'\n", argv[1]);
        return usage();
    }
    int depth = 0;
    const std::string_view depth_text = argv[3];
    const auto [end, ec] = std::from_chars(depth_text.begin(), depth_text.end(), depth);
    if (ec != std::errc{} || end != depth_text.end() || depth < 0 || depth > 20) {
        std::fprintf(stderr, "depth must be a whole number from 0 to 20\n");
        return usage();
    }
    const bool divide = argc == 5 && std::string_view(argv[4]) == "--divide";
    if (argc == 5 && !divide) {
        return usage();
    }
    auto game = make_game(*variant, argv[2]);
    if (!game) {
        std::fprintf(stderr, "bad position: %s\n", game.error().message.c_str());
        return 1;
    }
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t nodes = 0;
    if (divide && depth > 0) {
        for (const auto& [move, count] : (*game)->divide(depth)) {
            std::printf("%s: %llu\n", move.c_str(), static_cast<unsigned long long>(count));
            nodes += count;
        }
    } else {
        nodes = (*game)->perft(depth);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("nodes %llu\nseconds %.3f\nnodes/s %.0f\n", static_cast<unsigned long long>(nodes),
                seconds, seconds > 0 ? static_cast<double>(nodes) / seconds : 0.0);
    return 0;
}
