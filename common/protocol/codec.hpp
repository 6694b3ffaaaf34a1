#pragma once
/// \file
/// One decode for everything a client sends, one encode for everything the server sends.

#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::protocol {

/// Parses one text frame strictly: a JSON object with a known "type", the fields of that type
/// with the right JSON types and ranges, nothing else (an unknown field is bad_request).
/// Never throws; every failure is a ProtocolError carrying the request id when readable.
Expected<ClientMessage, ProtocolError> decode(std::string_view text);

/// The JSON text of a server message (one line, UTF-8).
std::string encode(const ServerMessage& message);

/// Shorthand for an error reply.
std::string encode_error(ErrorCode code, std::string_view message,
                         const std::optional<std::string>& id);

}  // namespace arbiter::protocol
