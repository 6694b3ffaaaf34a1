#pragma once
/// \file
/// Small helpers shared by the decode tests: decode a frame and expect success or refusal.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

#include "common/protocol/codec.hpp"

namespace arbiter::protocol::test {

/// Decodes `text` and expects success; returns the message (default-constructed on failure).
inline ClientMessage accepted(std::string_view text) {
    auto decoded = decode(text);
    EXPECT_TRUE(decoded.has_value()) << text << " -> " << (decoded ? "" : decoded.error().message);
    return decoded ? std::move(decoded).value() : ClientMessage{std::nullopt, Ping{}};
}

/// Decodes `text`, expects success with body type T, and returns the body.
template <typename T>
T accepted_body(std::string_view text) {
    ClientMessage message = accepted(text);
    const T* body = std::get_if<T>(&message.body);
    EXPECT_NE(body, nullptr) << text << ": decoded to another message type";
    return body != nullptr ? *body : T{};
}

/// Decodes `text` and expects a refusal; returns the error (bad_request "" on success).
inline ProtocolError refused(std::string_view text) {
    auto decoded = decode(text);
    EXPECT_FALSE(decoded.has_value()) << text << " was accepted";
    return decoded ? ProtocolError{} : decoded.error();
}

/// Expects `text` to be refused as bad_request with a message that mentions `needle`.
inline void expect_bad_request(std::string_view text, std::string_view needle) {
    const ProtocolError error = refused(text);
    EXPECT_EQ(error.code, ErrorCode::bad_request) << text;
    EXPECT_NE(error.message.find(needle), std::string::npos)
        << text << ": message \"" << error.message << "\" does not mention " << needle;
}

/// `{"type":"<type>",<fields>}`, or `{"type":"<type>"}` when fields is empty.
inline std::string frame(std::string_view type, std::string_view fields) {
    std::string text = "{\"type\":\"" + std::string(type) + "\"";
    if (!fields.empty()) {
        text += ",";
        text += fields;
    }
    return text + "}";
}

}  // namespace arbiter::protocol::test
