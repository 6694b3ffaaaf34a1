#pragma once
/// \file
/// The bridge from a storage intent to the repository's GameWrite, which still takes the whole
/// header: the intent is laid over the header as it stands before the change. It goes once
/// GameRepository::write takes the intent itself.

#include "server/storage/intents.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// The write that makes `intent` of `row`, the game's header before the change.
storage::GameWrite as_game_write(storage::GameRow row, storage::GameIntent intent);

}  // namespace arbiter::server::app
