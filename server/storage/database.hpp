#pragma once
/// \file
/// Every store the server keeps, on one engine: games (repository.hpp), accounts
/// (account_store.hpp), players (player_store.hpp) and analyses (analysis_store.hpp) share one
/// database and one writer, so that their writes commit in the order submitted, in the same
/// batches. SQLite (sqlite_repository.hpp) and PostgreSQL (postgres_repository.hpp) implement it
/// alike; the server opens one (server/app/main.cpp) and sees no difference.

#include <vector>

#include "common/core/expected.hpp"
#include "server/storage/account_store.hpp"
#include "server/storage/analysis_store.hpp"
#include "server/storage/player_store.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::storage {

/// One engine's stores. Thread-safe: any thread may call any member.
class Database : public GameRepository,
                 public AccountStore,
                 public PlayerStore,
                 public AnalysisStore {
  public:
    /// Every interface names the same callback type.
    using Done = GameRepository::Done;

    /// Every stored rating, of every player (the rating book's start, server/app/rating_book.hpp).
    virtual Expected<std::vector<RatingRow>, StorageError> load_ratings() = 0;
};

}  // namespace arbiter::server::storage
