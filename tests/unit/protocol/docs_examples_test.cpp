// The examples of schema/protocol.md must decode: the client examples with decode(), the server
// examples with decode_server(), which reads each as encode() writes it again. The prose contract
// and the codec agree. (Their schema conformance is the schema test's job.)

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/protocol/codec.hpp"
#include "test_paths.hpp"

namespace arbiter::protocol::test {
namespace {

std::string protocol_md() {
    std::ifstream file(std::string(ARBITER_SOURCE_DIR) + "/schema/protocol.md");
    EXPECT_TRUE(file) << "cannot read schema/protocol.md";
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// Inline code spans `{"type":...}` between the `section` heading ("## Client to server") and the
// next "## " heading; with `blocks`, also the ```json blocks there, each one message.
std::vector<std::string> examples_in(const std::string& markdown, const std::string& section,
                                     bool blocks = false) {
    std::vector<std::string> examples;
    std::istringstream lines(markdown);
    bool in_section = false;
    std::optional<std::string> block;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("## ", 0) == 0) {
            in_section = line == section;
            continue;
        }
        if (!in_section) {
            continue;
        }
        if (blocks && line == "```json") {
            block.emplace();
            continue;
        }
        if (block && line == "```") {
            examples.push_back(*block);
            block.reset();
            continue;
        }
        if (block) {
            *block += line;
            continue;
        }
        for (std::size_t start = line.find("`{\"type\":"); start != std::string::npos;
             start = line.find("`{\"type\":", start + 1)) {
            const std::size_t end = line.find("}`", start);
            if (end == std::string::npos) {
                break;
            }
            examples.push_back(line.substr(start + 1, end - start));
        }
    }
    return examples;
}

TEST(ProtocolDocs, EveryClientExampleDecodes) {
    const std::vector<std::string> examples = examples_in(protocol_md(), "## Client to server");
    std::set<std::size_t> types_shown;
    for (const std::string& example : examples) {
        const auto decoded = decode(example);
        EXPECT_TRUE(decoded.has_value())
            << example << " -> " << (decoded ? "" : decoded.error().message);
        if (decoded) {
            // draw, takeback and rematch share one alternative: count them by their kind too.
            const auto* offer = std::get_if<OfferRequest>(&decoded->body);
            types_shown.insert(offer != nullptr ? 100 + static_cast<std::size_t>(offer->kind)
                                                : decoded->body.index());
        }
    }
    // Every client message type has an example: 15 alternatives, one of them 3 offer kinds.
    EXPECT_EQ(types_shown.size(), std::variant_size_v<ClientBody> - 1 + 3);
}

TEST(ProtocolDocs, EveryClientExampleIsEncodedAsTheSameMessage) {
    for (const std::string& example : examples_in(protocol_md(), "## Client to server")) {
        const auto decoded = decode(example);
        ASSERT_TRUE(decoded) << example;
        const auto again = decode(encode(*decoded));
        ASSERT_TRUE(again) << example;
        EXPECT_EQ(*again, *decoded) << example;
    }
}

// The server examples name white and black: a client that follows their game knows it is chess,
// or draughts for the game of the Routes example (d4Rt1); the messages with a variant say theirs.
TEST(ProtocolDocs, EveryServerExampleDecodesAsItIsWritten) {
    const std::vector<std::string> examples =
        examples_in(protocol_md(), "## Server to client", true);
    std::set<std::size_t> types_shown;
    for (const std::string& example : examples) {
        const auto decoded = decode_server(example, [](std::string_view game) {
            return std::optional(game == "d4Rt1" ? rules::Variant::draughts
                                                 : rules::Variant::chess);
        });
        ASSERT_TRUE(decoded.has_value()) << example << " -> " << decoded.error().message;
        types_shown.insert(decoded->body.index());
        EXPECT_EQ(nlohmann::json::parse(encode(*decoded)), nlohmann::json::parse(example))
            << example;
    }
    EXPECT_GE(types_shown.size(), 10U);
}

}  // namespace
}  // namespace arbiter::protocol::test
