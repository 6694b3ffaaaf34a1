#pragma once
// Samples of every protocol message: what protocol_samples prints for the schema check
// (run_schema_check.sh), and what the codec's tests read and write both ways.

#include <string_view>
#include <vector>

#include "common/protocol/messages.hpp"

namespace arbiter::protocol::samples {

/// Every server message, in each variant and seat where seats are named, with and without ids.
std::vector<ServerMessage> server_messages();
/// One valid frame of every client message type (each must decode).
const std::vector<std::string_view>& client_frames();
/// Frames decode() refuses, which the client schemas must refuse too.
const std::vector<std::string_view>& invalid_client_frames();
/// The variant that names a message's seats: its own, which travels on the wire or not; chess
/// for a message that names none.
rules::Variant seat_variant(const ServerBody& body);

}  // namespace arbiter::protocol::samples
