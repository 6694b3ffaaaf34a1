#pragma once
/// \file
/// One step of a schema, as every engine's migration runner takes it (SQLite: migrations.hpp,
/// PostgreSQL: postgres_migrations.hpp). The SQL lives in schema/<engine>/NNNN_name.sql and is
/// embedded into the binary at build time (embed_migrations.cmake).

#include <string_view>

namespace arbiter::server::storage {

/// One step of the schema: the SQL that takes version `version - 1` to `version`.
struct Migration {
    int version = 0;
    std::string_view name;  ///< the file name, for messages
    std::string_view sql;
};

}  // namespace arbiter::server::storage
