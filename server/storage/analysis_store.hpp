#pragma once
/// \file
/// Where engine analyses of finished games live (issue 42, migration 0013): one row per game.
/// Writes are one intent each, queued to the same single writer as the games' and the accounts'
/// writes; reads are synchronous and meant for a worker thread, never a network thread. The
/// per-ply results are the wire's JSON text, kept as is: storage does not read them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage {

/// Where an analysis stands.
enum class AnalysisStatus : std::uint8_t { queued, running, done, failed };

inline constexpr std::array<std::string_view, 4> kAnalysisStatusNames = {"queued", "running",
                                                                         "done", "failed"};
/// "queued", "running", "done", "failed".
/// (Inline: the app reads analysis rows without linking the storage engines.)
inline std::string_view to_string(AnalysisStatus status) noexcept {
    return kAnalysisStatusNames[static_cast<std::size_t>(status)];
}
/// Inverse of to_string.
inline std::optional<AnalysisStatus> parse_analysis_status(std::string_view text) noexcept {
    for (std::size_t i = 0; i < kAnalysisStatusNames.size(); ++i) {
        if (kAnalysisStatusNames[i] == text) {
            return static_cast<AnalysisStatus>(i);
        }
    }
    return std::nullopt;
}

/// One `analyses` row.
struct AnalysisRow {
    std::string game_id;
    AnalysisStatus status = AnalysisStatus::queued;
    std::string engine;  ///< "stockfish", "fairy-stockfish", "builtin"
    std::int64_t done = 0;
    std::int64_t total = 0;
    std::string plies_json = "[]";             ///< the wire's "plies" array
    std::optional<std::string> accuracy_json;  ///< the wire's "accuracy" object, once done
    std::optional<std::string> counts_json;    ///< the wire's "counts" object, once done
    std::int64_t requested_ms = 0;
    std::int64_t updated_ms = 0;
    friend bool operator==(const AnalysisRow&, const AnalysisRow&) = default;
};

/// The analysis of a game as it stands now: inserts the row or replaces it. Fails when the game
/// is not stored.
struct SaveAnalysis {
    AnalysisRow row;
};

/// Analyses' storage. Thread-safe: any thread may call any member.
class AnalysisStore {
  public:
    /// Called once the write committed (ok) or failed; from the writer's thread.
    using Done = std::function<void(Expected<void, StorageError>)>;

    virtual ~AnalysisStore() = default;

    /// Queues one write; writes commit in the order submitted, with the games' writes.
    virtual void write_analysis(SaveAnalysis save, Done done) = 0;
    /// The analysis of `game_id`, or nullopt when none was ever requested.
    virtual Expected<std::optional<AnalysisRow>, StorageError> find_analysis(
        const std::string& game_id) = 0;
    /// Every analysis left queued or running (at start: to queue them again), oldest first.
    virtual Expected<std::vector<AnalysisRow>, StorageError> unfinished_analyses() = 0;
};

}  // namespace arbiter::server::storage
