#pragma once
/// \file
/// The one rule for the ids a cluster names on its bus and in its database: a node's id and a
/// game's. 1..kMaxClusterIdBytes of [A-Za-z0-9_-], so that an id can stand in a Redis channel
/// name (server/cluster/envelope.hpp) and passes the nodes table's CHECK
/// (schema/postgres/0002_nodes.sql).

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace arbiter {

inline constexpr std::size_t kMaxClusterIdBytes = 64;

/// A character an id may hold.
constexpr bool is_cluster_id_character(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/// Whether `id` follows the rule.
constexpr bool is_cluster_id(std::string_view id) noexcept {
    return !id.empty() && id.size() <= kMaxClusterIdBytes &&
           std::ranges::all_of(id, is_cluster_id_character);
}

}  // namespace arbiter
