// The chat rooms (protocol.md, Chat): who writes where, who reads what, the word list, and a
// message as a numbered, stored game event that a restore brings back.
#include <gtest/gtest.h>

#include "server/app/chat_rules.hpp"
#include "table_test_support.hpp"

namespace arbiter::server::app {
namespace {

using namespace testing;
using protocol::ChatRoom;
using protocol::ErrorCode;
using protocol::GameStatus;

command::Chat chat_by(HeldSeats held, bool watching, ChatRoom room, std::string text) {
    return command::Chat{held, watching, room, "Cy", std::move(text)};
}
command::Chat player_says(Side side, std::string text) {
    return chat_by(HeldSeats::only(side), false, ChatRoom::players, std::move(text));
}
command::Chat watcher_says(std::string text) {
    return chat_by(HeldSeats{}, true, ChatRoom::spectators, std::move(text));
}

const ChatMember kWatcher{HeldSeats{}, true};
const ChatMember kWhitePlayer{HeldSeats::only(kWhite), false};
const ChatMember kBlackPlayer{HeldSeats::only(kBlack), false};
constexpr std::array<bool, 2> kNoMutes{};

TEST(TableChat, APlayersMessageIsANumberedStoredEventUnderTheSeatsName) {
    Table table = new_table();
    auto decision = commit(table, player_says(kBlack, "good luck"), at(1'500));
    const auto& posted = intent_as<storage::PostChat>(decision);
    EXPECT_EQ(posted.game, "g1");
    EXPECT_EQ(posted.seq, 2u);
    EXPECT_EQ(posted.message, (storage::ChatRow{2, ChatRoom::players, "Bo", kBlack, "good luck",
                                                kUnixStart + 1'500}));
    EXPECT_TRUE(decision.answers_request);
    EXPECT_EQ(
        event_as<protocol::ChatEvent>(decision),
        (protocol::ChatEvent{"g1", 2, ChatRoom::players, "Bo", "good luck", kUnixStart + 1'500}));
    EXPECT_EQ(table.seq(), 2u);
    ASSERT_EQ(table.chat().size(), 1u);
    EXPECT_EQ(table.chat().back().seat, kBlack);
}

TEST(TableChat, AWatchersMessageGoesUnderItsConnectionsName) {
    Table table = new_table();
    auto decision = commit(table, watcher_says("nice"), at(0));
    EXPECT_EQ(intent_as<storage::PostChat>(decision).message.seat, std::nullopt);
    EXPECT_EQ(event_as<protocol::ChatEvent>(decision).from, "Cy");
    EXPECT_EQ(event_as<protocol::ChatEvent>(decision).room, ChatRoom::spectators);
}

TEST(TableChat, EachRoomRefusesTheOthers) {
    Table table = new_table();
    EXPECT_EQ(
        refusal(table, chat_by(HeldSeats::only(kWhite), false, ChatRoom::spectators, "x"), at(0)),
        (Refusal{ErrorCode::forbidden, "players cannot write to the spectators' room"}));
    // A player who also watches is still a player.
    EXPECT_EQ(
        refusal(table, chat_by(HeldSeats::only(kWhite), true, ChatRoom::spectators, "x"), at(0))
            .code,
        ErrorCode::forbidden);
    EXPECT_EQ(refusal(table, chat_by(HeldSeats{}, true, ChatRoom::players, "x"), at(0)),
              (Refusal{ErrorCode::forbidden, "only the players write to the players' room"}));
    EXPECT_EQ(refusal(table, chat_by(HeldSeats{}, false, ChatRoom::spectators, "x"), at(0)).code,
              ErrorCode::forbidden)
        << "a connection that does not watch the game";
    EXPECT_EQ(table.seq(), 1u) << "a refusal changes nothing";
}

TEST(TableChat, SpectatorChatTurnedOffIsNotAllowedButPlayersStillChat) {
    TableSetup setup;
    setup.config.spectator_chat = false;
    Table table = new_table(setup);
    EXPECT_EQ(refusal(table, watcher_says("hello"), at(0)),
              (Refusal{ErrorCode::not_allowed, "spectator chat is turned off on this server"}));
    commit(table, player_says(kWhite, "hi"), at(0));
}

TEST(TableChat, TheWordListMasksBeforeStoringAndSending) {
    TableSetup setup;
    setup.config.chat_words = std::make_shared<const ChatWords>(ChatWords::parse("darn\n").value());
    Table table = new_table(setup);
    auto decision = commit(table, player_says(kWhite, "Darn, darned DARN!"), at(0));
    EXPECT_EQ(intent_as<storage::PostChat>(decision).message.text, "****, darned ****!");
    EXPECT_EQ(event_as<protocol::ChatEvent>(decision).text, "****, darned ****!");
}

TEST(TableChat, AStateListsWhatItsReaderMayRead) {
    Table table = new_table();
    commit(table, player_says(kWhite, "p1"), at(0));
    commit(table, watcher_says("s1"), at(0));
    commit(table, player_says(kBlack, "p2"), at(0));
    const auto texts = [&](const ChatMember& reader, std::array<bool, 2> muted) {
        std::vector<std::string> out;
        for (const auto& line : table.chat_for(reader, muted)) {
            out.push_back(line.text);
        }
        return out;
    };
    EXPECT_EQ(texts(kWatcher, kNoMutes), std::vector<std::string>{"s1"});
    EXPECT_EQ(texts(kWhitePlayer, kNoMutes), (std::vector<std::string>{"p1", "p2"}));
    EXPECT_EQ(texts(kWhitePlayer, {true, false}), std::vector<std::string>{"p1"})
        << "White muted Black";
    EXPECT_EQ(texts(kBlackPlayer, {true, false}), (std::vector<std::string>{"p1", "p2"}));
    commit(table, command::Resign{HeldSeats::only(kWhite), steady(0)}, at(0));
    EXPECT_EQ(texts(kWhitePlayer, kNoMutes), (std::vector<std::string>{"p1", "s1", "p2"}))
        << "players read the spectators' room once the game is over";
}

TEST(TableChat, AStateListsAtMostTheLastHundred) {
    Table table = new_table();
    for (int i = 0; i < 130; ++i) {
        commit(table, watcher_says("m" + std::to_string(i)), at(i));
    }
    const auto lines = table.chat_for(kWatcher, kNoMutes);
    ASSERT_EQ(lines.size(), protocol::kStateChatLines);
    EXPECT_EQ(lines.front().text, "m30");
    EXPECT_EQ(lines.back().text, "m129");
}

TEST(TableChat, ARestoreBringsTheMessagesBack) {
    storage::StoredGame stored{header_of(TableSetup{}), {}};
    stored.header.seq = 3;
    stored.chat = {storage::ChatRow{2, ChatRoom::players, "Ana", kWhite, "hi", kUnixStart},
                   storage::ChatRow{3, ChatRoom::spectators, "Cy", std::nullopt, "yo", kUnixStart}};
    auto table = Table::restore(stored, {}, at(0));
    ASSERT_TRUE(table);
    ASSERT_EQ(table->chat().size(), 2u);
    EXPECT_EQ(table->chat_for(kWhitePlayer, kNoMutes),
              (std::vector<protocol::ChatLine>{{2, ChatRoom::players, "Ana", "hi", kUnixStart}}));
    EXPECT_EQ(table->chat_for(kBlackPlayer, {false, true}), std::vector<protocol::ChatLine>{})
        << "Black muted White";
}

TEST(ChatRules, WhoReadsWhichRoom) {
    for (const auto status : {GameStatus::waiting, GameStatus::playing}) {
        EXPECT_FALSE(may_read_chat(ChatRoom::players, kWhite, kWatcher, status, kNoMutes));
        EXPECT_TRUE(may_read_chat(ChatRoom::spectators, std::nullopt, kWatcher, status, kNoMutes));
        EXPECT_TRUE(may_read_chat(ChatRoom::players, kWhite, kBlackPlayer, status, kNoMutes));
        EXPECT_FALSE(
            may_read_chat(ChatRoom::spectators, std::nullopt, kBlackPlayer, status, kNoMutes));
    }
    for (const auto status : {GameStatus::ended, GameStatus::aborted}) {
        EXPECT_TRUE(
            may_read_chat(ChatRoom::spectators, std::nullopt, kBlackPlayer, status, kNoMutes));
        EXPECT_FALSE(may_read_chat(ChatRoom::players, kWhite, kWatcher, status, kNoMutes));
    }
    // A player who watches too is a player (protocol.md, Chat).
    const ChatMember watching_player{HeldSeats::only(kWhite), true};
    EXPECT_FALSE(may_read_chat(ChatRoom::spectators, std::nullopt, watching_player,
                               GameStatus::playing, kNoMutes));
}

TEST(ChatRules, AMuteHidesOnlyTheOpponentFromTheSeatThatMuted) {
    const std::array<bool, 2> white_muted{true, false};
    EXPECT_FALSE(
        may_read_chat(ChatRoom::players, kBlack, kWhitePlayer, GameStatus::playing, white_muted));
    EXPECT_TRUE(
        may_read_chat(ChatRoom::players, kWhite, kWhitePlayer, GameStatus::playing, white_muted))
        << "one's own messages";
    EXPECT_TRUE(
        may_read_chat(ChatRoom::players, kWhite, kBlackPlayer, GameStatus::playing, white_muted));
    EXPECT_TRUE(may_read_chat(ChatRoom::players, kBlack, ChatMember{HeldSeats{true, true}, false},
                              GameStatus::playing, white_muted))
        << "a connection holding both seats reads through the one that did not mute";
}

TEST(ChatWordList, WholeWordsIgnoringCaseMaskedCharacterForCharacter) {
    const auto words = ChatWords::parse("# a comment\n\n  Heck \r\nfoo_bar\n\xC3\xA9t\xC3\xA9\n");
    ASSERT_TRUE(words) << words.error();
    EXPECT_EQ(words->mask("heck, HECK! heckle check"), "****, ****! heckle check");
    EXPECT_EQ(words->mask("foo_bar foo bar"), "******* foo bar");
    EXPECT_EQ(words->mask("un \xC3\xA9t\xC3\xA9 chaud"), "un *** chaud")
        << "one star per character, not per byte";
    EXPECT_EQ(words->mask("<b>heck</b>"), "<b>****</b>");
    EXPECT_EQ(ChatWords{}.mask("heck"), "heck");
}

TEST(ChatWordList, ALineThatIsNotOneWordIsRefusedByNumber) {
    EXPECT_EQ(ChatWords::parse("ok\ntwo words\n").error(),
              "line 2: not one word (letters, digits and '_')");
    EXPECT_FALSE(ChatWords::parse("a-b").has_value());
}

}  // namespace
}  // namespace arbiter::server::app
