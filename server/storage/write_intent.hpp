#pragma once
/// \file
/// What a storage engine's single writer writes: a game's change, an account's, or an analysis.
/// All share the batches, so that they commit in the order submitted (database.hpp). Internal to
/// arbiter_storage.

#include <variant>

#include "server/storage/account_store.hpp"
#include "server/storage/analysis_store.hpp"
#include "server/storage/intents.hpp"

namespace arbiter::server::storage::detail {

/// One write of any store.
using WriteIntent = std::variant<GameIntent, AccountIntent, SaveAnalysis>;

}  // namespace arbiter::server::storage::detail
